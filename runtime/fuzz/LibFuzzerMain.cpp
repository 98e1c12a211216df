//===- LibFuzzerMain.cpp - libFuzzer entry point for the loader -----------===//
//
// Built only with clang and SPYRE_ENABLE_LIBFUZZER=ON. Each input is tried
// as is and with its header checksum repaired.
//
//===----------------------------------------------------------------------===//

#include "LoaderFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  spyre::fuzz::runLoaderOnce(data, size);
  std::vector<uint8_t> fixed(data, data + size);
  spyre::fuzz::fixChecksum(fixed);
  spyre::fuzz::runLoaderOnce(fixed.data(), fixed.size());
  return 0;
}
