//===- SfpFunctionsDoc.cpp - docs/generated/SfpFunctions.md ---------------===//
//
// The SFP's functions as a markdown table, from the one table (SfpOps.def),
// so the reference never disagrees with the simulator and the verifier.
// `spyre-opt --spyre-list-sfp-functions` prints it; a lit test checks that
// the committed file is current.
//
//===----------------------------------------------------------------------===//

#include "spyre/ISA/ISA.h"

namespace spyre::isa {

namespace {

std::string row(const char *instruction, unsigned code, const char *name,
                bool integerForm, bool complexPath) {
  return "| `" + std::string(instruction) + "` | " + std::to_string(code) +
         " | `" + name + "` | " + (integerForm ? "int64" : "fp32") + " | " +
         (complexPath ? "complex" : "simple") + " |\n";
}

} // namespace

std::string sfpFunctionsMarkdown() {
  std::string out =
      "# SFP functions\n\n"
      "Generated from `include/spyre/ISA/SfpOps.def` "
      "(`spyre-opt --spyre-list-sfp-functions`); do not edit. "
      "`docs/isa.md` gives each instruction's operands; "
      "`include/spyre/ISA/ElementMath.h` each function's semantics.\n\n"
      "* **domain**: where the function computes on integer sources "
      "(`int64`, wrapping) - float sources always compute in fp32.\n"
      "* **path**: `complex` functions cost `sfp_complex_op_passes` times "
      "the SFP cycles of a `simple` one (`arch/spyre.json`).\n\n"
      "| instruction | op code | function | domain on integers | path |\n"
      "|---|---:|---|---|---|\n";
  unsigned code = 0;
#define SPYRE_SFP_UNARY(Enum, Name, IntegerForm, ComplexPath)                  \
  out += row("SfpUnary", code++, Name, IntegerForm, ComplexPath);
#include "spyre/ISA/SfpOps.def"
  code = 0;
#define SPYRE_SFP_BINARY(Enum, Name, IntegerForm, ComplexPath)                 \
  out += row("SfpBinary", code++, Name, IntegerForm, ComplexPath);
#include "spyre/ISA/SfpOps.def"
  code = 0;
#define SPYRE_SFP_REDUCE(Enum, Name)                                           \
  out += row("SfpReduce", code++, Name, true, false);
#include "spyre/ISA/SfpOps.def"
  return out;
}

} // namespace spyre::isa
