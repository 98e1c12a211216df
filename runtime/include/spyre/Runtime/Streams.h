//===- Streams.h - Ordered queues of launches and transfers -----*- C++ -*-===//
//
// Streams and events on one simulator, as in CUDA: commands enqueued on a
// stream (a launch, a host-to-device or device-to-host transfer) run in
// order; an event recorded on one stream can be waited on by another; the
// host synchronizes with a stream or an event, or queries it. Enqueueing
// returns at once: host buffers of transfers must stay valid until the
// stream has passed them.
//
// Execution. One executor thread per engine runs the commands of all its
// streams in the order they were enqueued, each under the device lock. That
// order keeps every stream's order, and an event's record is always
// enqueued before a wait on it, so no wait ever blocks; results and
// simulated times do not depend on host thread timing.
//
// Simulated time. Every stream has a ready time. A launch runs on the
// device, one at a time in submission order; a host-to-device transfer on
// the PCIe link's H2D direction, a device-to-host one on D2H (full duplex:
// Arch::pcieBytesPerS each way, plus pcieLatencyNs per transfer). A command
// starts when its stream is ready (and every event it waited on has
// happened) and its resource is free: a transfer on one stream overlaps a
// launch on another. The simulator idles until a launch's start, and each
// command is a span on its stream's track of the trace (a transfer also on
// its PCIe direction's track).
//
// A failing command makes its stream's error: the stream's later commands
// are skipped (its events still complete), and synchronize() returns the
// error until the stream is destroyed.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_STREAMS_H
#define SPYRE_RUNTIME_STREAMS_H

#include "spyre/Runtime/SimulatorDevice.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace spyre::rt {

/// A point in a stream's work. Create with StreamEngine::createEvent.
class Event {
private:
  friend class StreamEngine;
  /// Sequence number of the last record enqueued (0: never recorded) and of
  /// the last one executed.
  uint64_t recorded = 0, completed = 0;
  /// Simulated time of the last executed record (ps).
  uint64_t timePs = 0;
};

class StreamEngine {
public:
  /// What a command does to the device, besides its time.
  using Work = std::function<Status()>;
  enum class Resource { Device, HostToDevice, DeviceToHost };

  /// `deviceLock` is held around every command's work (and by whoever else
  /// uses `device`).
  StreamEngine(SimulatorDevice &device, std::mutex &deviceLock);
  /// Finishes every enqueued command.
  ~StreamEngine();
  StreamEngine(const StreamEngine &) = delete;
  StreamEngine &operator=(const StreamEngine &) = delete;

  uint32_t createStream();
  /// Finishes the stream's commands and forgets it; returns its error.
  Status destroyStream(uint32_t stream);

  /// Enqueues a launch (Resource::Device: its time is the simulator's) or
  /// a transfer of `bytes` over PCIe. `label` names it in the trace.
  Status enqueue(uint32_t stream, Resource resource, std::string label,
                 uint64_t bytes, Work work);
  Status record(uint32_t stream, const std::shared_ptr<Event> &event);
  /// The stream's later commands start after the event's last record (as
  /// enqueued now; none: no wait).
  Status wait(uint32_t stream, const std::shared_ptr<Event> &event);

  /// Blocks until the stream has run everything enqueued; its error.
  Status synchronize(uint32_t stream);
  /// Whether the stream has run everything enqueued (false for an unknown
  /// stream).
  bool done(uint32_t stream);
  /// Blocks until the event's last record has happened.
  void synchronize(const Event &event);
  bool done(const Event &event);
  /// Simulated ns from `start`'s last record to `end`'s; both must have
  /// happened.
  Status elapsedNs(const Event &start, const Event &end, double &ns);

private:
  struct Command;
  struct StreamState;
  StreamState *find(uint32_t stream);
  Status push(uint32_t stream, Command command);
  enum class CommandKind { Work, Record, Wait };
  /// Pushes a record or a wait.
  Status pushEvent(uint32_t stream, CommandKind kind,
                   const std::shared_ptr<Event> &event);
  void run();
  /// Runs a launch or transfer under the device lock and books its time
  /// (`skip`: only releases it, after an earlier error of its stream).
  Status execute(StreamState &stream, Command &command, bool skip);

  SimulatorDevice &device_;
  std::mutex &deviceLock_;
  /// Guards everything below; `changed_` signals completions and new work.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint32_t, std::unique_ptr<StreamState>> streams_;
  uint32_t nextStream_ = 1;
  uint64_t nextRecord_ = 1;
  std::deque<std::pair<uint32_t, Command>> queue_;
  /// When each PCIe direction is next free (ps).
  uint64_t hostToDeviceFreePs_ = 0, deviceToHostFreePs_ = 0;
  bool stopping_ = false;
  std::thread executor_;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_STREAMS_H
