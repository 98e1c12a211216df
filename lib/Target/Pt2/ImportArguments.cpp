//===- ImportArguments.cpp - The arguments of a node ----------------------===//
//
// Each argument of a node becomes an operand (tensors) or a named attribute
// (everything else) of its `spyre.aten` op.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;

namespace spyre::pt2import {

Value Importer::tensorValue(const json &ref, Location loc) {
  std::string name = ref["name"].get<std::string>();
  if (auto stale = staleViews.find(name); stale != staleViews.end())
    fail(loc, "tensor '" + name + "' is a view of '" + stale->second +
                  "', which an in-place op has changed since through "
                  "another view; reading it afterwards is not supported");
  auto it = values.find(name);
  if (it == values.end())
    fail(loc, "tensor '" + name + "' is used but never defined");
  return it->second;
}

Attribute Importer::floatAttr(const json &v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    double d = s == "Infinity"    ? std::numeric_limits<double>::infinity()
               : s == "-Infinity" ? -std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::quiet_NaN();
    return b.getF64FloatAttr(d);
  }
  return b.getF64FloatAttr(v.get<double>());
}

namespace {

/// The kind of the elements of a list argument kind (`as_ints`: `as_int`);
/// empty for other kinds.
StringRef listElementTag(StringRef tag) {
  if (tag == "as_ints")
    return "as_int";
  if (tag == "as_floats")
    return "as_float";
  if (tag == "as_bools")
    return "as_bool";
  if (tag == "as_strings")
    return "as_string";
  if (tag == "as_sym_ints")
    return "as_sym_int";
  return "";
}

/// Argument kinds of the schema that Spyre does not import.
constexpr StringLiteral kUnsupportedArgumentKinds[] = {
    "as_sym_bools",      "as_sym_floats", "as_complex",
    "as_graph",          "as_custom_obj", "as_operator",
    "as_nested_tensors", "as_int_lists",  "as_string_to_argument"};

} // namespace

void Importer::addArgument(const std::string &name, const json &arg,
                           Location loc, NodeArguments &args) {
  auto [tag, value] = unionTag(arg);
  if (addTensorArgument(name, tag, *value, loc, args))
    return;
  Attribute attr = valueArgumentAttr(name, tag, *value, loc);
  if (!attr)
    attr = listArgumentAttr(name, tag, *value, loc);
  if (!attr)
    failUnsupportedArgument(name, tag, loc);
  args.attrs.push_back(b.getNamedAttr(name, attr));
}

void Importer::addTensorOperand(const std::string &name, const json &ref,
                                Location loc, NodeArguments &args) {
  args.operands.push_back(tensorValue(ref, loc));
  args.tensorArgs.push_back(b.getStringAttr(name));
}

bool Importer::addTensorArgument(const std::string &name,
                                 const std::string &tag, const json &value,
                                 Location loc, NodeArguments &args) {
  if (tag == "as_tensor") {
    addTensorOperand(name, value, loc, args);
  } else if (tag == "as_tensors") {
    for (const json &t : value)
      addTensorOperand(name, t, loc, args);
  } else if (tag == "as_optional_tensors") {
    ArrayAttr mask = addOptionalTensors(name, value, loc, args);
    args.attrs.push_back(b.getNamedAttr(name, mask));
  } else if (tag == "as_optional_tensor") {
    auto [ot, ov] = unionTag(value);
    if (ot == "as_tensor")
      addTensorOperand(name, *ov, loc, args);
    else
      args.attrs.push_back(b.getNamedAttr(name, b.getUnitAttr()));
  } else {
    return false;
  }
  return true;
}

ArrayAttr Importer::addOptionalTensors(const std::string &name,
                                       const json &list, Location loc,
                                       NodeArguments &args) {
  SmallVector<Attribute> mask;
  for (const json &t : list) {
    auto [ot, ov] = unionTag(t);
    if (ot == "as_tensor")
      addTensorOperand(name, *ov, loc, args);
    else if (ot != "as_none")
      fail(loc, "malformed optional tensor in argument '" + name + "'");
    mask.push_back(b.getBoolAttr(ot == "as_tensor"));
  }
  return b.getArrayAttr(mask);
}

Attribute Importer::valueArgumentAttr(const std::string &name,
                                      const std::string &tag, const json &value,
                                      Location loc) {
  if (Attribute attr = scalarArgumentAttr(tag, value))
    return attr;
  if (Attribute attr = tensorOptionArgumentAttr(name, tag, value, loc))
    return attr;
  return symbolicArgumentAttr(name, tag, value, loc);
}

Attribute Importer::scalarArgumentAttr(const std::string &tag,
                                       const json &value) {
  if (tag == "as_none")
    return b.getUnitAttr();
  if (tag == "as_int")
    return b.getI64IntegerAttr(value.get<int64_t>());
  if (tag == "as_float")
    return floatAttr(value);
  if (tag == "as_bool")
    return b.getBoolAttr(value.get<bool>());
  if (tag == "as_string")
    return b.getStringAttr(value.get<std::string>());
  return nullptr;
}

Attribute Importer::tensorOptionArgumentAttr(const std::string &name,
                                             const std::string &tag,
                                             const json &value, Location loc) {
  if (tag == "as_scalar_type")
    return scalarTypeAttr(name, value.get<int64_t>(), loc);
  if (tag == "as_memory_format" || tag == "as_layout")
    return b.getI64IntegerAttr(value.get<int64_t>());
  if (tag == "as_device")
    return b.getStringAttr(value["type"].get<std::string>());
  return nullptr;
}

Attribute Importer::scalarTypeAttr(const std::string &name, int64_t code,
                                   Location loc) {
  Type t = elementType(ctx, code);
  std::optional<DTypeInfo> info = dtypeInfo(code);
  if (!t)
    fail(loc,
         "argument '" + name + "' names dtype " +
             (info ? std::string(info->name) : "code " + std::to_string(code)) +
             ", which Spyre cannot represent");
  return b.getStringAttr(typeName(t));
}

Attribute Importer::symbolicArgumentAttr(const std::string &name,
                                         const std::string &tag,
                                         const json &value, Location loc) {
  if (tag == "as_sym_int")
    return symIntArgumentAttr(name, value, loc);
  if (tag == "as_sym_float") {
    auto [t, v] = unionTag(value);
    if (t != "as_float")
      fail(loc, "symbolic float argument '" + name + "' is not supported");
    return floatAttr(*v);
  }
  if (tag == "as_sym_bool") {
    auto [t, v] = unionTag(value);
    if (t != "as_bool")
      fail(loc, "symbolic bool argument '" + name + "' is not supported");
    return b.getBoolAttr(v->get<bool>());
  }
  return nullptr;
}

Attribute Importer::symIntArgumentAttr(const std::string &name,
                                       const json &symInt, Location loc) {
  auto [t, v] = unionTag(symInt);
  if (t == "as_int")
    return b.getI64IntegerAttr(v->get<int64_t>());
  if (t == "as_name")
    return symbolic(v->get<std::string>(), loc);
  fail(loc, "malformed SymIntArgument in argument '" + name + "'");
}

Attribute Importer::listArgumentAttr(const std::string &name,
                                     const std::string &tag, const json &list,
                                     Location loc) {
  std::string elementTag = listElementTag(tag).str();
  if (elementTag.empty())
    return nullptr;
  SmallVector<Attribute> elems;
  for (const json &e : list)
    elems.push_back(valueArgumentAttr(name, elementTag, e, loc));
  return b.getArrayAttr(elems);
}

void Importer::failUnsupportedArgument(const std::string &name,
                                       const std::string &tag, Location loc) {
  if (llvm::is_contained(kUnsupportedArgumentKinds, tag))
    fail(loc, "argument '" + name + "' of kind '" + tag + "' is not supported");
  fail(loc, "unknown Argument tag '" + tag + "' in argument '" + name +
                "' (schema 8." + std::to_string(schemaMinor) + ")");
}

} // namespace spyre::pt2import
