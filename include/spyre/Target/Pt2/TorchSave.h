//===- TorchSave.h - Tensors of a torch.save zip ----------------*- C++ -*-===//
//
// A `torch.save` file (torch >= 1.6) is itself a zip: `<name>/data.pkl`
// (the pickled object, see TorchPickle.h), `<name>/data/<key>` (the raw
// little-endian bytes of each storage, stored uncompressed) and small
// records (`version`, `byteorder`). torch 2.6-2.8 `.pt2` archives nest one
// per payload (`data/weights/model.pt`, `data/constants/model.pt`). This
// reader works on the file's bytes in memory (typically a mapping of the
// outer archive's stored entry) and reports where each storage's bytes
// start inside them, so weights can stay in the archive.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_TORCHSAVE_H
#define SPYRE_TARGET_PT2_TORCHSAVE_H

#include "spyre/Target/Pt2/TorchPickle.h"

namespace spyre {

/// A tensor of a torch.save dict and the bytes of its storage.
struct SavedTensor {
  PickledTensor view;
  /// Offset of the storage's first byte from the start of the file.
  uint64_t dataOffset = 0;
  /// Bytes of the storage record (at least storageNumel * elementBytes).
  uint64_t storageBytes = 0;
};

/// Reads the dict of tensors held by the torch.save file `file`; `what`
/// names it in messages ("data/weights/model.pt"). Every storage record
/// must be present, uncompressed and large enough for the views on it.
std::optional<std::map<std::string, SavedTensor>>
readTorchSave(std::string_view file, const std::string &what,
              std::string &error);

} // namespace spyre

#endif // SPYRE_TARGET_PT2_TORCHSAVE_H
