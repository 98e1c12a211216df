//===- AtenSchema.cpp - The aten op-schema table --------------------------===//

#include "spyre/Dialect/Spyre/AtenSchema.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace spyre {

namespace {

const char *const kSchemaTexts[] = {
#define SPYRE_ATEN_SCHEMA(text) text,
#include "AtenSchemas.inc"
#undef SPYRE_ATEN_SCHEMA
};

/// How `c` changes the nesting depth of brackets and parens.
int nestingDelta(char c) {
  if (c == '(' || c == '[')
    return 1;
  if (c == ')' || c == ']')
    return -1;
  return 0;
}

/// Splits `s` at top-level commas (not inside brackets, parens or quotes).
SmallVector<StringRef> splitTopLevel(StringRef s) {
  SmallVector<StringRef> parts;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '\'')
      quoted = !quoted;
    if (quoted)
      continue;
    if (c == ',' && depth == 0) {
      parts.push_back(s.slice(start, i).trim());
      start = i + 1;
    } else {
      depth += nestingDelta(c);
    }
  }
  StringRef last = s.substr(start).trim();
  if (!last.empty())
    parts.push_back(last);
  return parts;
}

/// Removes alias annotations: "Tensor(a!)" -> "Tensor", "Tensor(a)[]" ->
/// "Tensor[]".
std::string stripAlias(StringRef type) {
  std::string out;
  int depth = 0;
  for (char c : type) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (depth == 0)
      out.push_back(c);
  }
  return out;
}

/// Parses one argument, "Type name" or "Type name=default", or returns
/// std::nullopt when it has no name.
std::optional<AtenArgument> parseArgument(StringRef arg, bool kwargOnly) {
  AtenArgument a;
  a.kwargOnly = kwargOnly;
  auto [decl, def] = arg.split('=');
  if (arg.contains('='))
    a.defaultValue = def.trim().str();
  decl = decl.trim();
  size_t space = decl.rfind(' ');
  if (space == StringRef::npos)
    return std::nullopt;
  a.type = stripAlias(decl.take_front(space));
  a.name = decl.substr(space + 1).str();
  return a;
}

/// Parses the argument list; the arguments after a "*" are keyword-only.
std::optional<SmallVector<AtenArgument>> parseArguments(StringRef args) {
  SmallVector<AtenArgument> arguments;
  bool kwargOnly = false;
  for (StringRef arg : splitTopLevel(args)) {
    if (arg == "*") {
      kwargOnly = true;
      continue;
    }
    std::optional<AtenArgument> a = parseArgument(arg, kwargOnly);
    if (!a)
      return std::nullopt;
    arguments.push_back(std::move(*a));
  }
  return arguments;
}

/// The return types of "Tensor" or "(Tensor values, Tensor indices)".
SmallVector<std::string> parseReturns(StringRef rets) {
  SmallVector<std::string> returns;
  if (rets.starts_with("(") && rets.ends_with(")"))
    rets = rets.drop_front().drop_back();
  for (StringRef r : splitTopLevel(rets)) {
    // "Tensor values" -> "Tensor".
    StringRef type = r.split(' ').first;
    returns.push_back(stripAlias(type));
  }
  return returns;
}

std::optional<AtenSchema> parseSchema(StringRef text) {
  AtenSchema schema;
  schema.text = text.str();
  size_t open = text.find('(');
  size_t arrow = text.rfind(" -> ");
  if (open == StringRef::npos || arrow == StringRef::npos)
    return std::nullopt;
  StringRef head = text.take_front(open);
  if (!head.consume_front("aten::"))
    return std::nullopt;
  auto [name, overload] = head.split('.');
  schema.name = name.str();
  schema.overload = overload.str();
  size_t close = text.rfind(')', arrow);
  std::optional<SmallVector<AtenArgument>> arguments =
      parseArguments(text.slice(open + 1, close));
  if (!arguments)
    return std::nullopt;
  schema.arguments = std::move(*arguments);
  schema.returns = parseReturns(text.substr(arrow + 4).trim());
  return schema;
}

const llvm::StringMap<AtenSchema> &schemaTable() {
  static const llvm::StringMap<AtenSchema> table = [] {
    llvm::StringMap<AtenSchema> t;
    for (const char *text : kSchemaTexts) {
      std::optional<AtenSchema> s = parseSchema(text);
      if (!s)
        continue; // The generator only writes well-formed schemas.
      std::string key =
          s->name + "." + (s->overload.empty() ? "default" : s->overload);
      t.try_emplace(key, std::move(*s));
    }
    return t;
  }();
  return table;
}

/// The attribute of a None, True or False literal, or null.
Attribute parseLiteral(Builder &b, StringRef text) {
  if (text == "None")
    return b.getUnitAttr();
  if (text == "True")
    return b.getBoolAttr(true);
  if (text == "False")
    return b.getBoolAttr(false);
  return nullptr;
}

/// The attribute of an integer, a float or +-inf, or null.
Attribute parseNumber(Builder &b, StringRef text) {
  int64_t i;
  if (!text.getAsInteger(10, i))
    return b.getI64IntegerAttr(i);
  double d;
  if (!text.getAsDouble(d))
    return b.getF64FloatAttr(d);
  if (text == "inf")
    return b.getF64FloatAttr(std::numeric_limits<double>::infinity());
  if (text == "-inf")
    return b.getF64FloatAttr(-std::numeric_limits<double>::infinity());
  return nullptr;
}

Attribute parseScalar(Builder &b, StringRef text) {
  text = text.trim();
  if (Attribute literal = parseLiteral(b, text))
    return literal;
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\''))
    return b.getStringAttr(text.drop_front().drop_back());
  if (Attribute number = parseNumber(b, text))
    return number;
  // Enumerators such as "contiguous_format" or "long": keep as a string.
  return b.getStringAttr(text);
}

} // namespace

bool AtenArgument::isTensor() const {
  return type == "Tensor" || type == "Tensor?";
}
bool AtenArgument::isTensorList() const {
  return type == "Tensor[]" || type == "Tensor?[]";
}
bool AtenArgument::isOptional() const {
  return !type.empty() && type.back() == '?';
}

bool AtenSchema::returnsView() const {
  StringRef returns = StringRef(text).rsplit("->").second;
  // An alias set in parentheses, "Tensor(a)", without the "!" of a write
  // (a tuple of returns is parenthesized too, with spaces inside).
  size_t open = returns.find('(');
  while (open != StringRef::npos) {
    size_t close = returns.find(')', open);
    if (close == StringRef::npos)
      return false;
    StringRef alias = returns.slice(open + 1, close);
    if (!alias.empty() && !alias.contains('!') && !alias.contains(' '))
      return true;
    open = returns.find('(', open + 1);
  }
  return false;
}

int AtenSchema::findArgument(StringRef argName) const {
  for (auto [i, a] : llvm::enumerate(arguments))
    if (a.name == argName)
      return int(i);
  return -1;
}

const AtenSchema *lookupAtenSchema(StringRef target) {
  target.consume_front("torch.ops.");
  if (!target.consume_front("aten."))
    return nullptr;
  if (!target.contains('.'))
    return nullptr;
  const auto &table = schemaTable();
  auto it = table.find(target);
  if (it != table.end())
    return &it->second;
  // An in-place variant has the functional op's arguments.
  auto [name, overload] = target.rsplit('.');
  if (name.ends_with("_") && !name.ends_with("__")) {
    it = table.find((name.drop_back() + "." + overload).str());
    if (it != table.end())
      return &it->second;
  }
  return nullptr;
}

Attribute parseAtenDefault(MLIRContext *ctx, const AtenArgument &argument) {
  if (!argument.defaultValue)
    return nullptr;
  Builder b(ctx);
  StringRef text = *argument.defaultValue;
  if (text.starts_with("[")) {
    SmallVector<Attribute> elems;
    for (StringRef e : splitTopLevel(text.drop_front().drop_back()))
      elems.push_back(parseScalar(b, e));
    return b.getArrayAttr(elems);
  }
  StringRef type = argument.type;
  // A scalar default of a list type ("int[2] stride=1") repeats the scalar.
  size_t bracket = type.find('[');
  if (bracket != StringRef::npos && text != "None") {
    int64_t n = 1;
    StringRef count =
        type.substr(bracket + 1).take_until([](char c) { return c == ']'; });
    if (!count.empty())
      (void)count.getAsInteger(10, n);
    SmallVector<Attribute> elems(n, parseScalar(b, text));
    return b.getArrayAttr(elems);
  }
  Attribute a = parseScalar(b, text);
  // Float-typed arguments with integer-looking defaults ("float alpha=1").
  if (auto i = dyn_cast<IntegerAttr>(a);
      i && (type == "float" || type == "float?"))
    return b.getF64FloatAttr(double(i.getInt()));
  return a;
}

} // namespace spyre
