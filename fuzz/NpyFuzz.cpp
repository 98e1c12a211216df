//===- NpyFuzz.cpp - Fuzzing the .npy reader ------------------------------===//
//
// Every failure must come with a message; an accepted array must survive
// writing and reading it again unchanged.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "spyre/Runtime/Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  spyre::rt::NpyArray array;
  spyre::rt::Status s = spyre::rt::parseNpy(data, size, array);
  if (!s.ok()) {
    spyre::fuzz::require(!s.message().empty(), "refused without a message");
    return 0;
  }
  std::vector<uint8_t> again = spyre::rt::serializeNpy(array);
  spyre::rt::NpyArray back;
  spyre::fuzz::require(
      spyre::rt::parseNpy(again.data(), again.size(), back).ok(),
      "a written array does not read back");
  spyre::fuzz::require(back.shape == array.shape && back.dtype == array.dtype &&
                           back.data == array.data,
                       "a written array reads back different");
  return 0;
}
