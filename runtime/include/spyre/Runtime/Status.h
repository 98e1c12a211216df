//===- Status.h - Runtime error reporting -----------------------*- C++ -*-===//
//
// Every fallible runtime operation returns a Status: success, or an error
// category and a message meant for the user ("tensor 3 'w0': segment 9 out of
// range (the file has 4 segments)"). The C API maps categories to its status
// codes and keeps the message as the last error.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_STATUS_H
#define SPYRE_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace spyre::rt {

/// Error categories; the C API's spyre_status_t has the same values.
enum class StatusCode : int {
  Ok = 0,
  /// A caller passed something unusable (wrong count, shape, null).
  InvalidArgument = 1,
  /// A .spy or .npy file is malformed, truncated or hostile.
  InvalidFile = 2,
  /// The file's format major version is not the one this runtime reads.
  VersionMismatch = 3,
  /// The file was compiled for another machine description.
  ArchMismatch = 4,
  /// Device or host memory exhausted.
  OutOfMemory = 5,
  /// A program failed on the device (out-of-bounds access, deadlock...).
  DeviceError = 6,
  /// Reading or writing a file failed.
  IoError = 7,
  /// A bug in the runtime.
  Internal = 8,
};

/// Success, or an error code with a message.
class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  static Status success() { return Status(); }
  static Status error(StatusCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// Prefixes the message with context ("loading 'x.spy': ...").
  Status &withContext(const std::string &context) {
    if (!ok())
      message_ = context + ": " + message_;
    return *this;
  }

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

/// Shorthands for the common categories.
inline Status invalidArgument(std::string message) {
  return Status::error(StatusCode::InvalidArgument, std::move(message));
}
inline Status invalidFile(std::string message) {
  return Status::error(StatusCode::InvalidFile, std::move(message));
}
inline Status deviceError(std::string message) {
  return Status::error(StatusCode::DeviceError, std::move(message));
}

} // namespace spyre::rt

/// Returns from the enclosing function when `expr` yields an error Status.
#define SPYRE_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::spyre::rt::Status spyreStatus_ = (expr);                                 \
    if (!spyreStatus_.ok())                                                    \
      return spyreStatus_;                                                     \
  } while (false)

#endif // SPYRE_RUNTIME_STATUS_H
