//===- Pt2Unions.cpp - Closed union tags of the exported program ----------===//
//
// A table of the schema's structs (only the fields that lead to a union)
// and unions (every tag, with the type its payload has), after
// torch/_export/serde/schema.py up to 8.20; checkProgramUnions walks the
// program through it with an explicit work list.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/Pt2Unions.h"

#include "llvm/ADT/ArrayRef.h"

#include <nlohmann/json.hpp>

#include <vector>

using json = nlohmann::json;

namespace spyre {
namespace {

enum class Kind {
  Scalar, // a payload without unions (numbers, strings, TensorArgument, ...)
  // Structs.
  Program,
  GraphModule,
  TopGraph, // the program's graph: its nodes are checked one by one
  Graph,
  Node,
  NamedArgument,
  TensorMeta,
  Signature,
  ModuleCallEntry,
  ModuleCallSignature,
  SymExpr,
  GraphArgument,
  UserInputSpec,
  ConstantInputSpec,
  UserOutputSpec,
  // Unions.
  Argument,
  SymInt,
  SymBool,
  SymFloat,
  SymIntArgument,
  SymBoolArgument,
  SymFloatArgument,
  OptionalTensorArgument,
  SymExprHint,
  InputSpec,
  OutputSpec,
  ConstantValue,
};

enum class Many { One, List, Map };

struct Ref {
  Kind kind = Kind::Scalar;
  Many many = Many::One;
};

/// A struct field or a union tag and the type of what it holds.
struct Member {
  const char *name;
  Ref ref;
};

constexpr Ref one(Kind k) { return {k, Many::One}; }
constexpr Ref list(Kind k) { return {k, Many::List}; }
constexpr Ref map(Kind k) { return {k, Many::Map}; }
constexpr Ref scalar = {Kind::Scalar, Many::One};

llvm::ArrayRef<Member> fieldsOf(Kind k) {
  static const Member program[] = {{"graph_module", one(Kind::GraphModule)}};
  static const Member graphModule[] = {
      {"graph", one(Kind::TopGraph)},
      {"signature", one(Kind::Signature)},
      {"module_call_graph", list(Kind::ModuleCallEntry)}};
  static const Member graph[] = {
      {"inputs", list(Kind::Argument)},
      {"outputs", list(Kind::Argument)},
      {"nodes", list(Kind::Node)},
      {"tensor_values", map(Kind::TensorMeta)},
      {"sym_int_values", map(Kind::SymInt)},
      {"sym_bool_values", map(Kind::SymBool)},
      {"sym_float_values", map(Kind::SymFloat)}};
  static const Member topGraph[] = {
      {"inputs", list(Kind::Argument)},
      {"outputs", list(Kind::Argument)},
      {"tensor_values", map(Kind::TensorMeta)},
      {"sym_int_values", map(Kind::SymInt)},
      {"sym_bool_values", map(Kind::SymBool)},
      {"sym_float_values", map(Kind::SymFloat)}};
  static const Member node[] = {{"inputs", list(Kind::NamedArgument)},
                                {"outputs", list(Kind::Argument)}};
  static const Member namedArgument[] = {{"arg", one(Kind::Argument)}};
  static const Member tensorMeta[] = {{"sizes", list(Kind::SymInt)},
                                      {"strides", list(Kind::SymInt)},
                                      {"storage_offset", one(Kind::SymInt)}};
  static const Member signature[] = {
      {"input_specs", list(Kind::InputSpec)},
      {"output_specs", list(Kind::OutputSpec)}};
  static const Member moduleCallEntry[] = {
      {"signature", one(Kind::ModuleCallSignature)}};
  static const Member moduleCallSignature[] = {
      {"inputs", list(Kind::Argument)}, {"outputs", list(Kind::Argument)}};
  static const Member symExpr[] = {{"hint", one(Kind::SymExprHint)}};
  static const Member graphArgument[] = {{"graph", one(Kind::Graph)}};
  static const Member argSpec[] = {{"arg", one(Kind::Argument)}};
  static const Member constantInputSpec[] = {
      {"value", one(Kind::ConstantValue)}};
  switch (k) {
  case Kind::Program: return program;
  case Kind::GraphModule: return graphModule;
  case Kind::TopGraph: return topGraph;
  case Kind::Graph: return graph;
  case Kind::Node: return node;
  case Kind::NamedArgument: return namedArgument;
  case Kind::TensorMeta: return tensorMeta;
  case Kind::Signature: return signature;
  case Kind::ModuleCallEntry: return moduleCallEntry;
  case Kind::ModuleCallSignature: return moduleCallSignature;
  case Kind::SymExpr: return symExpr;
  case Kind::GraphArgument: return graphArgument;
  case Kind::UserInputSpec:
  case Kind::UserOutputSpec: return argSpec;
  case Kind::ConstantInputSpec: return constantInputSpec;
  default: return {};
  }
}

llvm::ArrayRef<Member> tagsOf(Kind k) {
  static const Member argument[] = {
      {"as_none", scalar},
      {"as_tensor", scalar},
      {"as_tensors", scalar},
      {"as_int", scalar},
      {"as_ints", scalar},
      {"as_float", scalar},
      {"as_floats", scalar},
      {"as_string", scalar},
      {"as_strings", scalar},
      {"as_sym_int", one(Kind::SymIntArgument)},
      {"as_sym_ints", list(Kind::SymIntArgument)},
      {"as_scalar_type", scalar},
      {"as_memory_format", scalar},
      {"as_layout", scalar},
      {"as_device", scalar},
      {"as_bool", scalar},
      {"as_bools", scalar},
      {"as_sym_bool", one(Kind::SymBoolArgument)},
      {"as_sym_bools", list(Kind::SymBoolArgument)},
      {"as_graph", one(Kind::GraphArgument)},
      {"as_optional_tensors", list(Kind::OptionalTensorArgument)},
      {"as_custom_obj", scalar},
      {"as_operator", scalar},
      {"as_sym_float", one(Kind::SymFloatArgument)},
      {"as_sym_floats", list(Kind::SymFloatArgument)},
      {"as_optional_tensor", one(Kind::OptionalTensorArgument)},
      {"as_complex", scalar},
      {"as_nested_tensors", scalar},
      {"as_int_lists", scalar},
      {"as_string_to_argument", map(Kind::Argument)}};
  static const Member symInt[] = {{"as_expr", one(Kind::SymExpr)},
                                  {"as_int", scalar}};
  static const Member symBool[] = {{"as_expr", one(Kind::SymExpr)},
                                   {"as_bool", scalar}};
  static const Member symFloat[] = {{"as_expr", one(Kind::SymExpr)},
                                    {"as_float", scalar}};
  static const Member symIntArgument[] = {{"as_name", scalar},
                                          {"as_int", scalar}};
  static const Member symBoolArgument[] = {{"as_name", scalar},
                                           {"as_bool", scalar}};
  static const Member symFloatArgument[] = {{"as_name", scalar},
                                            {"as_float", scalar}};
  static const Member optionalTensor[] = {{"as_tensor", scalar},
                                          {"as_none", scalar}};
  static const Member symExprHint[] = {
      {"as_int", scalar}, {"as_bool", scalar}, {"as_float", scalar}};
  static const Member inputSpec[] = {
      {"user_input", one(Kind::UserInputSpec)},
      {"parameter", scalar},
      {"buffer", scalar},
      {"tensor_constant", scalar},
      {"custom_obj", scalar},
      {"token", scalar},
      {"constant_input", one(Kind::ConstantInputSpec)}};
  static const Member outputSpec[] = {
      {"user_output", one(Kind::UserOutputSpec)},
      {"loss_output", scalar},
      {"buffer_mutation", scalar},
      {"gradient_to_parameter", scalar},
      {"gradient_to_user_input", scalar},
      {"user_input_mutation", scalar},
      {"token", scalar},
      {"parameter_mutation", scalar}};
  static const Member constantValue[] = {{"as_none", scalar},
                                         {"as_int", scalar},
                                         {"as_float", scalar},
                                         {"as_string", scalar},
                                         {"as_bool", scalar}};
  switch (k) {
  case Kind::Argument: return argument;
  case Kind::SymInt: return symInt;
  case Kind::SymBool: return symBool;
  case Kind::SymFloat: return symFloat;
  case Kind::SymIntArgument: return symIntArgument;
  case Kind::SymBoolArgument: return symBoolArgument;
  case Kind::SymFloatArgument: return symFloatArgument;
  case Kind::OptionalTensorArgument: return optionalTensor;
  case Kind::SymExprHint: return symExprHint;
  case Kind::InputSpec: return inputSpec;
  case Kind::OutputSpec: return outputSpec;
  case Kind::ConstantValue: return constantValue;
  default: return {};
  }
}

const char *unionName(Kind k) {
  switch (k) {
  case Kind::Argument: return "Argument";
  case Kind::SymInt: return "SymInt";
  case Kind::SymBool: return "SymBool";
  case Kind::SymFloat: return "SymFloat";
  case Kind::SymIntArgument: return "SymIntArgument";
  case Kind::SymBoolArgument: return "SymBoolArgument";
  case Kind::SymFloatArgument: return "SymFloatArgument";
  case Kind::OptionalTensorArgument: return "OptionalTensorArgument";
  case Kind::SymExprHint: return "SymExprHint";
  case Kind::InputSpec: return "InputSpec";
  case Kind::OutputSpec: return "OutputSpec";
  case Kind::ConstantValue: return "ConstantValue";
  default: return nullptr;
  }
}

/// A value still to check: where it is, what it must be, and its path.
struct Item {
  const json *value;
  Ref ref;
  std::string path;
};

std::string shortText(const std::string &s) {
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

} // namespace

/// Checks `root`, of kind `kind`, and everything in it.
/// Paths in messages are relative to the root; `where` names the root.
static std::optional<std::string> checkUnions(const json &root, Kind kind,
                                              const std::string &where) {
  auto field = [](const std::string &path, const std::string &name) {
    return path.empty() ? name : path + "." + name;
  };
  std::vector<Item> work;
  work.push_back({&root, one(kind), ""});
  // Children are pushed in reverse so that the first error in document
  // order is the one reported.
  auto pushReversed = [&](std::vector<Item> &items) {
    for (auto it = items.rbegin(); it != items.rend(); ++it)
      work.push_back(std::move(*it));
  };
  while (!work.empty()) {
    Item item = std::move(work.back());
    work.pop_back();
    const json &j = *item.value;
    Kind kind = item.ref.kind;
    if (kind == Kind::Scalar || j.is_null())
      continue; // null: an absent optional
    std::vector<Item> children;
    if (item.ref.many == Many::List) {
      if (!j.is_array())
        continue; // the importer reports misshapen containers itself
      for (size_t i = 0; i < j.size(); ++i)
        children.push_back({&j[i], one(kind),
                            item.path + "[" + std::to_string(i) + "]"});
    } else if (item.ref.many == Many::Map) {
      if (!j.is_object())
        continue;
      for (auto it = j.begin(); it != j.end(); ++it)
        children.push_back(
            {&it.value(), one(kind), field(item.path, shortText(it.key()))});
    } else if (const char *name = unionName(kind)) {
      if (!j.is_object() || j.size() != 1)
        return "malformed " + std::string(name) + " at " + item.path +
               where + ": a union is an object with exactly one key";
      const std::string &tag = j.begin().key();
      const Member *member = nullptr;
      for (const Member &m : tagsOf(kind))
        if (tag == m.name)
          member = &m;
      if (!member)
        return "unknown " + std::string(name) + " tag '" + shortText(tag) +
               "' at " + item.path + where;
      children.push_back(
          {&j.begin().value(), member->ref, field(item.path, member->name)});
    } else {
      if (!j.is_object())
        continue;
      for (const Member &f : fieldsOf(kind))
        if (auto it = j.find(f.name); it != j.end())
          children.push_back({&*it, f.ref, field(item.path, f.name)});
    }
    pushReversed(children);
  }
  return std::nullopt;
}

std::optional<std::string> checkProgramUnions(const json &program) {
  return checkUnions(program, Kind::Program, "");
}

std::optional<std::string> checkNodeUnions(const json &node,
                                           const std::string &name) {
  return checkUnions(node, Kind::Node, " of node '" + name + "'");
}

} // namespace spyre
