//===- ImportSymbols.cpp - Tensor types and symbolic sizes ----------------===//
//
// The types of the exported program's tensors, its symbolic sizes (SymInts,
// resolved with --bind-dims or kept as expressions) and its range
// constraints.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "spyre/Target/Pt2/StridedView.h"
#include "spyre/Target/Pt2/SymbolicExpr.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace spyre::pt2import {

namespace {

/// The ScalarType codes of the schema (docs/pt2-format.md section 3.6).
struct DTypeEntry {
  int64_t code;
  DTypeInfo info;
};
constexpr DTypeEntry kDTypes[] = {
    {1, {"uint8", 1}},
    {2, {"int8", 1}},
    {3, {"int16", 2}},
    {4, {"int32", 4}},
    {5, {"int64", 8}},
    {6, {"float16", 2}},
    {7, {"float32", 4}},
    {8, {"float64", 8}},
    {9, {"complex32", 4}},
    {10, {"complex64", 8}},
    {11, {"complex128", 16}},
    {12, {"bool", 1}},
    {13, {"bfloat16", 2}},
    {28, {"uint16", 2}},
    {29, {"float8_e4m3fn", 1}},
    {30, {"float8_e5m2", 1}},
    {31, {"float8_e4m3fnuz", 1}},
    {32, {"float8_e5m2fnuz", 1}},
};

/// Whether every output of a node is a SymInt or SymBool (and it has one).
bool hasOnlySymbolicOutputs(const json &outs) {
  if (outs.empty())
    return false;
  for (const json &out : outs)
    if (unionTag(out).first != "as_sym_int" &&
        unionTag(out).first != "as_sym_bool")
      return false;
  return true;
}

/// A bound of a range constraint; nullopt when unbounded (null or
/// "Infinity").
std::optional<int64_t> rangeBound(const json &range, const char *key) {
  if (range.contains(key) && range[key].is_number_integer())
    return range[key].get<int64_t>();
  return std::nullopt;
}

} // namespace

std::optional<DTypeInfo> dtypeInfo(int64_t code) {
  for (const DTypeEntry &entry : kDTypes)
    if (entry.code == code)
      return entry.info;
  return std::nullopt;
}

Type elementType(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  switch (code) {
  case 1:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 2:
    return b.getIntegerType(8);
  case 3:
    return b.getIntegerType(16);
  case 4:
    return b.getI32Type();
  case 5:
    return b.getI64Type();
  case 6:
    return b.getF16Type();
  case 7:
    return b.getF32Type();
  case 8:
    return b.getF64Type();
  case 12:
    return b.getI1Type();
  case 13:
    return b.getBF16Type();
  default:
    return nullptr;
  }
}

std::optional<int64_t> Importer::symInt(const json &j, Location loc,
                                        std::string *symbol) {
  auto [tag, value] = unionTag(j);
  if (tag == "as_int")
    return value->get<int64_t>();
  if (tag == "as_expr")
    return symExpr((*value)["expr_str"].get<std::string>(), loc, symbol);
  fail(loc, "malformed SymInt (tag '" + tag + "')");
}

std::optional<int64_t> Importer::symExpr(const std::string &text, Location loc,
                                         std::string *symbol) {
  std::string error;
  std::unique_ptr<SymbolicExpr> expr = SymbolicExpr::parse(text, error);
  if (!expr)
    fail(loc, "cannot read symbolic size '" + text + "': " + error);
  if (std::optional<int64_t> v = expr->evaluate(options.boundDims))
    return v;
  SmallVector<std::string> symbols;
  expr->collectSymbols(symbols);
  if (llvm::all_of(symbols, [&](const std::string &s) {
        return options.boundDims.count(s);
      }))
    fail(loc, "symbolic size '" + expr->str() +
                  "' cannot be evaluated "
                  "with the --bind-dims values (overflow or division by zero)");
  if (symbol)
    *symbol = expr->str();
  return std::nullopt;
}

RankedTensorType
Importer::tensorType(const std::string &name, Location loc,
                     SmallVectorImpl<std::string> *dimSymbols) {
  if (!tensorValues.contains(name))
    fail(loc, "tensor '" + name + "' has no entry in tensor_values");
  const json &meta = tensorValues[name];
  return metaType(meta, name, loc, dimSymbols);
}

ArrayAttr Importer::dimSymbolsAttr(ArrayRef<std::string> dimSymbols) {
  if (llvm::all_of(dimSymbols, [](const std::string &s) { return s.empty(); }))
    return nullptr;
  SmallVector<Attribute> elems;
  for (const std::string &s : dimSymbols)
    elems.push_back(b.getStringAttr(s));
  return b.getArrayAttr(elems);
}

void Importer::checkTensorSize(ArrayRef<int64_t> shape, int64_t elementBytes,
                               const std::string &name, Location loc) {
  if (!denseTensorBytes(shape, uint64_t(elementBytes)))
    fail(loc, "tensor '" + name + "' of shape [" +
                  llvm::join(llvm::map_range(shape,
                                             [](int64_t d) {
                                               return d < 0 ? std::string("?")
                                                            : std::to_string(d);
                                             }),
                             ", ") +
                  "] has more than 2^48 bytes");
}

RankedTensorType Importer::metaType(const json &meta, const std::string &name,
                                    Location loc,
                                    SmallVectorImpl<std::string> *dimSymbols) {
  int64_t code = meta["dtype"].get<int64_t>();
  std::optional<DTypeInfo> info = dtypeInfo(code);
  if (!info)
    fail(loc, "tensor '" + name + "' has an invalid dtype code " +
                  std::to_string(code));
  Type et = elementType(ctx, code);
  if (!et)
    fail(loc, "tensor '" + name + "' has dtype " + info->name +
                  ", which Spyre cannot represent");
  SmallVector<int64_t> shape;
  for (const json &s : meta["sizes"]) {
    std::string symbol;
    std::optional<int64_t> v = symInt(s, loc, &symbol);
    if (v && *v < 0)
      fail(loc, "tensor '" + name + "' has a negative size");
    shape.push_back(v ? *v : ShapedType::kDynamic);
    if (dimSymbols)
      dimSymbols->push_back(v ? "" : symbol);
  }
  checkTensorSize(shape, info->bytes, name, loc);
  return RankedTensorType::get(shape, et);
}

Attribute Importer::symbolic(const std::string &name, Location loc) {
  auto it = symbolValues.find(name);
  if (it == symbolValues.end())
    fail(loc, "symbolic value '" + name + "' is used but never defined");
  return it->second;
}

bool Importer::importSymIntNode(const json &node, const std::string &op,
                                Location loc) {
  const json &outs = node["outputs"];
  if (!hasOnlySymbolicOutputs(outs))
    return false;
  for (const json &out : outs) {
    auto [kind, arg] = unionTag(out);
    defineSymbolicOutput(node, op, kind, *arg, loc);
  }
  return true;
}

void Importer::defineSymbolicOutput(const json &node, const std::string &op,
                                    const std::string &kind, const json &arg,
                                    Location loc) {
  auto [tag, ref] = unionTag(arg);
  if (tag != "as_name")
    return;
  std::string name = ref->get<std::string>();
  // A guard's condition (sym_size(x, 0) == 4): only shape asserts,
  // which are skipped, read it.
  if (kind == "as_sym_bool") {
    symbolValues[name] = b.getStringAttr("<symbolic bool>");
    return;
  }
  std::string expr;
  std::optional<int64_t> v = symIntNodeValue(node, op, name, loc, expr);
  if (values.count(name) || symbolValues.count(name))
    fail(loc, "value '" + name + "' is defined twice");
  symbolValues[name] =
      v ? Attribute(b.getI64IntegerAttr(*v)) : Attribute(b.getStringAttr(expr));
}

std::optional<int64_t> Importer::symIntNodeValue(const json &node,
                                                 const std::string &op,
                                                 const std::string &name,
                                                 Location loc,
                                                 std::string &expr) {
  std::optional<int64_t> v;
  // sym_size of a tensor whose dim is static (after --bind-dims).
  if (op == "aten.sym_size.int")
    v = staticSymSize(node, loc);
  if (v)
    return v;
  if (!symIntValues.contains(name))
    fail(loc, "symbolic op '" + op + "' computes '" + name +
                  "', which has no entry in sym_int_values");
  return symInt(symIntValues[name], loc, &expr);
}

std::optional<int64_t> Importer::staticSymSize(const json &node, Location loc) {
  Value self;
  std::optional<int64_t> dim;
  readSymSizeArgs(node, loc, self, dim);
  if (!self || !dim)
    return std::nullopt;
  auto type = cast<RankedTensorType>(self.getType());
  int64_t d = *dim < 0 ? *dim + type.getRank() : *dim;
  if (d < 0 || d >= type.getRank() || type.isDynamicDim(d))
    return std::nullopt;
  return type.getDimSize(d);
}

void Importer::readSymSizeArgs(const json &node, Location loc, Value &self,
                               std::optional<int64_t> &dim) {
  for (const json &in : node["inputs"]) {
    auto [tag, value] = unionTag(in["arg"]);
    if (in["name"] == "self" && tag == "as_tensor")
      self = tensorValue(*value, loc);
    else if (in["name"] == "dim" && tag == "as_int")
      dim = value->get<int64_t>();
  }
}

void Importer::readRangeConstraints(const json &program) {
  if (program.contains("range_constraints") &&
      program["range_constraints"].is_object())
    for (auto &[symbol, range] : program["range_constraints"].items())
      ranges[symbol] = {rangeBound(range, "min_val").value_or(0),
                        rangeBound(range, "max_val")};
  std::set<std::string> symbols = programSymbols();
  for (auto &[symbol, value] : options.boundDims)
    checkBoundDim(symbol, value, symbols);
}

void Importer::checkBoundDim(const std::string &symbol, int64_t value,
                             const std::set<std::string> &symbols) {
  if (!symbols.count(symbol)) {
    std::string known;
    for (const std::string &s : symbols)
      known += (known.empty() ? "" : ", ") + s;
    fail(fileLoc, "--bind-dims names '" + symbol +
                      "', which is not a symbol of this program" +
                      (known.empty() ? std::string(" (it has none)")
                                     : " (its symbols: " + known + ")"));
  }
  auto it = ranges.find(symbol);
  if (it == ranges.end())
    return; // No exported range to check against.
  auto [lo, hi] = it->second;
  if (value < lo || (hi && value > *hi))
    fail(fileLoc, "--bind-dims " + symbol + "=" + std::to_string(value) +
                      " is outside the exported range " + rangeText(symbol));
}

std::set<std::string> Importer::programSymbols() {
  std::set<std::string> out;
  for (auto &[symbol, range] : ranges)
    out.insert(symbol);
  for (auto &[name, meta] : tensorValues.items()) {
    if (!meta.is_object() || !meta.contains("sizes"))
      continue;
    for (const json &size : meta["sizes"]) {
      if (!size.is_object() || !size.contains("as_expr"))
        continue;
      std::string error;
      if (auto e = SymbolicExpr::parse(
              size["as_expr"].value("expr_str", std::string()), error)) {
        SmallVector<std::string> found;
        e->collectSymbols(found);
        out.insert(found.begin(), found.end());
      }
    }
  }
  return out;
}

std::string Importer::rangeText(const std::string &symbol) {
  auto [lo, hi] = ranges.at(symbol);
  return "[" + std::to_string(lo) + ", " +
         (hi ? std::to_string(*hi) : std::string("inf")) + "]";
}

DictionaryAttr Importer::rangeConstraintsAttr() {
  if (ranges.empty())
    return nullptr;
  SmallVector<NamedAttribute> entries;
  for (auto &[symbol, range] : ranges) {
    Attribute hi = range.second ? Attribute(b.getI64IntegerAttr(*range.second))
                                : Attribute(b.getStringAttr("inf"));
    entries.push_back(b.getNamedAttr(
        symbol, b.getArrayAttr({b.getI64IntegerAttr(range.first), hi})));
  }
  return b.getDictionaryAttr(entries);
}

} // namespace spyre::pt2import
