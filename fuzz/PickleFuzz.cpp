//===- PickleFuzz.cpp - Fuzzing the torch.save reader and its pickles -----===//
//
// The input is read both as a torch.save zip (the nested data/weights/
// model.pt of a torch 2.6-2.8 archive: zip, then its data.pkl) and as a bare
// pickle (the restricted pickle machine alone). Every failure must come with
// a message.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "spyre/Target/Pt2/TorchPickle.h"
#include "spyre/Target/Pt2/TorchSave.h"

#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  if (!spyre::readTorchSave(bytes, "fuzz.pt", error))
    spyre::fuzz::require(!error.empty(),
                         "torch.save refused without a message");
  error.clear();
  if (!spyre::unpickleTensorDict(bytes, "fuzz.pkl", error))
    spyre::fuzz::require(!error.empty(), "pickle refused without a message");
  return 0;
}
