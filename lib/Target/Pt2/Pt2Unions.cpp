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

// The fields of each struct that lead to a union.
constexpr Member kProgramFields[] = {{"graph_module", one(Kind::GraphModule)}};
constexpr Member kGraphModuleFields[] = {
    {"graph", one(Kind::TopGraph)},
    {"signature", one(Kind::Signature)},
    {"module_call_graph", list(Kind::ModuleCallEntry)}};
constexpr Member kGraphFields[] = {{"inputs", list(Kind::Argument)},
                                   {"outputs", list(Kind::Argument)},
                                   {"nodes", list(Kind::Node)},
                                   {"tensor_values", map(Kind::TensorMeta)},
                                   {"sym_int_values", map(Kind::SymInt)},
                                   {"sym_bool_values", map(Kind::SymBool)},
                                   {"sym_float_values", map(Kind::SymFloat)}};
constexpr Member kTopGraphFields[] = {
    {"inputs", list(Kind::Argument)},
    {"outputs", list(Kind::Argument)},
    {"tensor_values", map(Kind::TensorMeta)},
    {"sym_int_values", map(Kind::SymInt)},
    {"sym_bool_values", map(Kind::SymBool)},
    {"sym_float_values", map(Kind::SymFloat)}};
constexpr Member kNodeFields[] = {{"inputs", list(Kind::NamedArgument)},
                                  {"outputs", list(Kind::Argument)}};
constexpr Member kNamedArgumentFields[] = {{"arg", one(Kind::Argument)}};
constexpr Member kTensorMetaFields[] = {{"sizes", list(Kind::SymInt)},
                                        {"strides", list(Kind::SymInt)},
                                        {"storage_offset", one(Kind::SymInt)}};
constexpr Member kSignatureFields[] = {
    {"input_specs", list(Kind::InputSpec)},
    {"output_specs", list(Kind::OutputSpec)}};
constexpr Member kModuleCallEntryFields[] = {
    {"signature", one(Kind::ModuleCallSignature)}};
constexpr Member kModuleCallSignatureFields[] = {
    {"inputs", list(Kind::Argument)}, {"outputs", list(Kind::Argument)}};
constexpr Member kSymExprFields[] = {{"hint", one(Kind::SymExprHint)}};
constexpr Member kGraphArgumentFields[] = {{"graph", one(Kind::Graph)}};
constexpr Member kArgSpecFields[] = {{"arg", one(Kind::Argument)}};
constexpr Member kConstantInputSpecFields[] = {
    {"value", one(Kind::ConstantValue)}};

/// A struct and its fields that lead to a union.
struct StructSchema {
  Kind kind;
  llvm::ArrayRef<Member> fields;
};
const StructSchema kStructs[] = {
    {Kind::Program, kProgramFields},
    {Kind::GraphModule, kGraphModuleFields},
    {Kind::TopGraph, kTopGraphFields},
    {Kind::Graph, kGraphFields},
    {Kind::Node, kNodeFields},
    {Kind::NamedArgument, kNamedArgumentFields},
    {Kind::TensorMeta, kTensorMetaFields},
    {Kind::Signature, kSignatureFields},
    {Kind::ModuleCallEntry, kModuleCallEntryFields},
    {Kind::ModuleCallSignature, kModuleCallSignatureFields},
    {Kind::SymExpr, kSymExprFields},
    {Kind::GraphArgument, kGraphArgumentFields},
    {Kind::UserInputSpec, kArgSpecFields},
    {Kind::UserOutputSpec, kArgSpecFields},
    {Kind::ConstantInputSpec, kConstantInputSpecFields},
};

// The tags of each union.
constexpr Member kArgumentTags[] = {
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
constexpr Member kSymIntTags[] = {{"as_expr", one(Kind::SymExpr)},
                                  {"as_int", scalar}};
constexpr Member kSymBoolTags[] = {{"as_expr", one(Kind::SymExpr)},
                                   {"as_bool", scalar}};
constexpr Member kSymFloatTags[] = {{"as_expr", one(Kind::SymExpr)},
                                    {"as_float", scalar}};
constexpr Member kSymIntArgumentTags[] = {{"as_name", scalar},
                                          {"as_int", scalar}};
constexpr Member kSymBoolArgumentTags[] = {{"as_name", scalar},
                                           {"as_bool", scalar}};
constexpr Member kSymFloatArgumentTags[] = {{"as_name", scalar},
                                            {"as_float", scalar}};
constexpr Member kOptionalTensorTags[] = {{"as_tensor", scalar},
                                          {"as_none", scalar}};
constexpr Member kSymExprHintTags[] = {
    {"as_int", scalar}, {"as_bool", scalar}, {"as_float", scalar}};
constexpr Member kInputSpecTags[] = {
    {"user_input", one(Kind::UserInputSpec)},
    {"parameter", scalar},
    {"buffer", scalar},
    {"tensor_constant", scalar},
    {"custom_obj", scalar},
    {"token", scalar},
    {"constant_input", one(Kind::ConstantInputSpec)}};
constexpr Member kOutputSpecTags[] = {
    {"user_output", one(Kind::UserOutputSpec)},
    {"loss_output", scalar},
    {"buffer_mutation", scalar},
    {"gradient_to_parameter", scalar},
    {"gradient_to_user_input", scalar},
    {"user_input_mutation", scalar},
    {"token", scalar},
    {"parameter_mutation", scalar}};
constexpr Member kConstantValueTags[] = {{"as_none", scalar},
                                         {"as_int", scalar},
                                         {"as_float", scalar},
                                         {"as_string", scalar},
                                         {"as_bool", scalar}};

/// A union, its name in messages and its tags.
struct UnionSchema {
  Kind kind;
  const char *name;
  llvm::ArrayRef<Member> tags;
};
const UnionSchema kUnions[] = {
    {Kind::Argument, "Argument", kArgumentTags},
    {Kind::SymInt, "SymInt", kSymIntTags},
    {Kind::SymBool, "SymBool", kSymBoolTags},
    {Kind::SymFloat, "SymFloat", kSymFloatTags},
    {Kind::SymIntArgument, "SymIntArgument", kSymIntArgumentTags},
    {Kind::SymBoolArgument, "SymBoolArgument", kSymBoolArgumentTags},
    {Kind::SymFloatArgument, "SymFloatArgument", kSymFloatArgumentTags},
    {Kind::OptionalTensorArgument, "OptionalTensorArgument",
     kOptionalTensorTags},
    {Kind::SymExprHint, "SymExprHint", kSymExprHintTags},
    {Kind::InputSpec, "InputSpec", kInputSpecTags},
    {Kind::OutputSpec, "OutputSpec", kOutputSpecTags},
    {Kind::ConstantValue, "ConstantValue", kConstantValueTags},
};

/// The fields of struct `k` that lead to a union (none for other kinds).
llvm::ArrayRef<Member> fieldsOf(Kind k) {
  for (const StructSchema &s : kStructs)
    if (s.kind == k)
      return s.fields;
  return {};
}

/// The union `k`; null when `k` is not a union.
const UnionSchema *unionOf(Kind k) {
  for (const UnionSchema &u : kUnions)
    if (u.kind == k)
      return &u;
  return nullptr;
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

/// The path of field or key `name` of the value at `path`.
std::string fieldPath(const std::string &path, const std::string &name) {
  return path.empty() ? name : path + "." + name;
}

/// The elements of list `item`; none when it is not an array (the importer
/// reports misshapen containers itself).
void appendListChildren(const Item &item, std::vector<Item> &children) {
  const json &j = *item.value;
  if (!j.is_array())
    return;
  for (size_t i = 0; i < j.size(); ++i)
    children.push_back(
        {&j[i], one(item.ref.kind), item.path + "[" + std::to_string(i) + "]"});
}

/// The values of map `item`; none when it is not an object.
void appendMapChildren(const Item &item, std::vector<Item> &children) {
  const json &j = *item.value;
  if (!j.is_object())
    return;
  for (auto it = j.begin(); it != j.end(); ++it)
    children.push_back({&it.value(), one(item.ref.kind),
                        fieldPath(item.path, shortText(it.key()))});
}

/// The payload of union `item`, whose one key must be a tag of `u`; the
/// message of a malformed or unknown one.
std::optional<std::string> appendUnionChild(const Item &item,
                                            const UnionSchema &u,
                                            const std::string &where,
                                            std::vector<Item> &children) {
  const json &j = *item.value;
  if (!j.is_object() || j.size() != 1)
    return "malformed " + std::string(u.name) + " at " + item.path + where +
           ": a union is an object with exactly one key";
  const std::string &tag = j.begin().key();
  const Member *member = nullptr;
  for (const Member &m : u.tags)
    if (tag == m.name)
      member = &m;
  if (!member)
    return "unknown " + std::string(u.name) + " tag '" + shortText(tag) +
           "' at " + item.path + where;
  children.push_back(
      {&j.begin().value(), member->ref, fieldPath(item.path, member->name)});
  return std::nullopt;
}

/// The fields of struct `item` that lead to a union; none when it is not an
/// object.
void appendStructChildren(const Item &item, std::vector<Item> &children) {
  const json &j = *item.value;
  if (!j.is_object())
    return;
  for (const Member &f : fieldsOf(item.ref.kind))
    if (auto it = j.find(f.name); it != j.end())
      children.push_back({&*it, f.ref, fieldPath(item.path, f.name)});
}

/// The values in `item` still to check, in document order; the message of
/// a malformed union.
std::optional<std::string> appendChildren(const Item &item,
                                          const std::string &where,
                                          std::vector<Item> &children) {
  if (item.ref.many == Many::List)
    appendListChildren(item, children);
  else if (item.ref.many == Many::Map)
    appendMapChildren(item, children);
  else if (const UnionSchema *u = unionOf(item.ref.kind))
    return appendUnionChild(item, *u, where, children);
  else
    appendStructChildren(item, children);
  return std::nullopt;
}

/// Pushes `items` onto `work` in reverse, so that the first of them is
/// checked first (and the first error in document order is reported).
void pushReversed(std::vector<Item> &work, std::vector<Item> &items) {
  for (auto it = items.rbegin(); it != items.rend(); ++it)
    work.push_back(std::move(*it));
}

} // namespace

/// Checks `root`, of kind `kind`, and everything in it.
/// Paths in messages are relative to the root; `where` names the root.
static std::optional<std::string> checkUnions(const json &root, Kind kind,
                                              const std::string &where) {
  std::vector<Item> work;
  work.push_back({&root, one(kind), ""});
  while (!work.empty()) {
    Item item = std::move(work.back());
    work.pop_back();
    if (item.ref.kind == Kind::Scalar || item.value->is_null())
      continue; // null: an absent optional
    std::vector<Item> children;
    if (std::optional<std::string> error =
            appendChildren(item, where, children))
      return error;
    pushReversed(work, children);
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
