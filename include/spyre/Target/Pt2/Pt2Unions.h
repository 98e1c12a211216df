//===- Pt2Unions.h - Closed union tags of the exported program --*- C++ -*-===//
//
// The export schema's unions (Argument, SymInt, InputSpec, ...) are objects
// with exactly one key, the tag; the tag set of each union is closed for a
// schema version (docs/pt2-format.md, section 3). A reader that skips a tag
// it does not know silently drops what the tag carries, so the importer
// checks every union of the program against these sets before it reads
// anything.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_PT2UNIONS_H
#define SPYRE_TARGET_PT2_PT2UNIONS_H

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace spyre {

/// Walks the program (graph inputs and outputs, tensor and symbol values,
/// signature, module call graph; not the graph's nodes) and returns an error
/// naming the first union that is malformed or has an unknown tag, with its
/// field path (`program.graph_module.graph.inputs[3]`), or nullopt when
/// every union is well formed. Iterative: nesting costs heap, not stack.
std::optional<std::string> checkProgramUnions(const nlohmann::json &program);

/// The same for one graph node named `name` (its arguments, outputs and
/// the subgraphs it carries), so that the error can be reported at the
/// node's source line.
std::optional<std::string> checkNodeUnions(const nlohmann::json &node,
                                           const std::string &name);

} // namespace spyre

#endif // SPYRE_TARGET_PT2_PT2UNIONS_H
