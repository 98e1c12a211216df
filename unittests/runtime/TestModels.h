//===- TestModels.h - Small .spy models for the runtime tests ---*- C++ -*-===//

#ifndef SPYRE_UNITTESTS_RUNTIME_TESTMODELS_H
#define SPYRE_UNITTESTS_RUNTIME_TESTMODELS_H

#include "TestUtil.h"

#include "spyre/Spy/SpyFormat.h"

#include <functional>

namespace spyre::test {

/// y = x @ w for x [4, 32] f32 (input), w [32, 32] f32 (weight), through a
/// workspace tensor t [4, 32]: the smallest model that has tensors of every
/// role but constant, relocations of every phase, and a plan.
/// Instructions: 0 load x, 1 load w, 2 matmul, 3 store t, 4 load t, 5 store y.
std::vector<uint8_t> basicModel(const Arch &a = arch(),
                                uint32_t formatMajor = spy::kFormatMajor,
                                uint32_t formatMinor = spy::kFormatMinor);
/// basicModel with its weight in a weights file written to `weightsPath`
/// (format 3.0), which the .spy names as `recorded`.
std::vector<uint8_t> basicModelWithWeightsFile(const std::string &weightsPath,
                                               const std::string &recorded);
/// The weight of basicModel and the input used with it.
std::vector<float> basicWeight();

/// Re-packs the FlatBuffer of a .spy file after `edit` changed its tables;
/// the data area is kept and the header (offsets, checksum) is rewritten.
std::vector<uint8_t> editModel(const std::vector<uint8_t> &file,
                               const std::function<void(spy::ModelT &)> &edit);

/// Edits instruction `inst` of program `program` in place (program images
/// live in the data area, outside the checksum).
std::vector<uint8_t> editInst(const std::vector<uint8_t> &file,
                              uint32_t program, uint32_t inst,
                              const std::function<void(isa::Inst &)> &edit);

/// Replaces the whole instruction image of program `program` (it must keep
/// its size).
std::vector<uint8_t> replaceCode(const std::vector<uint8_t> &file,
                                 uint32_t program,
                                 const std::vector<isa::Inst> &code);

/// Recomputes the header checksum.
void fixChecksum(std::vector<uint8_t> &file);

} // namespace spyre::test

#endif // SPYRE_UNITTESTS_RUNTIME_TESTMODELS_H
