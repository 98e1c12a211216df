//===- TorchPickle.h - Restricted reader of torch.save pickles --*- C++ -*-===//
//
// torch 2.6-2.8 archives store weights and constants as `torch.save` files
// whose `data.pkl` is a Python pickle (docs/pt2-format.md section 9). A
// pickle is a program for a stack machine that may name and call any Python
// global, so it is never run as such: this reader interprets the handful of
// opcodes torch.save emits and knows a fixed allow-list of globals (the
// tensor and parameter rebuild functions, OrderedDict, the typed storage
// classes) by name. Any other global, opcode or shape of data is an error;
// nothing is ever executed.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_TORCHPICKLE_H
#define SPYRE_TARGET_PT2_TORCHPICKLE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spyre {

/// One tensor of a pickled state dict: a strided view of a storage that
/// the pickle names by a persistent id (the key of `data/<key>` in the
/// torch.save zip).
struct PickledTensor {
  std::string storageKey;
  /// ScalarType code (docs/pt2-format.md section 3.6) of the storage class.
  int64_t dtype = 0;
  int64_t elementBytes = 0;
  /// Elements of the whole storage, as the persistent id declares them.
  int64_t storageNumel = 0;
  int64_t storageOffset = 0;
  std::vector<int64_t> sizes, strides;
};

/// Interprets `pickle` (a torch.save `data.pkl`, protocols 2 to 5) whose
/// result must be a dict (or OrderedDict) from names to tensors. `what`
/// names the pickle in error messages ("data/weights/model.pt"). Returns
/// nullopt with `error` set on anything outside the allow-list.
std::optional<std::map<std::string, PickledTensor>>
unpickleTensorDict(std::string_view pickle, const std::string &what,
                   std::string &error);

} // namespace spyre

#endif // SPYRE_TARGET_PT2_TORCHPICKLE_H
