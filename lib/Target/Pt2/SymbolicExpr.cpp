//===- SymbolicExpr.cpp - torch.export SymInt expressions -----------------===//
//
// One grammar covers both spellings torch has written: sympy's srepr
// (`Mul(Integer(32), Symbol('s0', integer=True))`, torch >= 2.6) and str()
// (`32*s0`, older exports):
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '//' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INT | NAME | NAME '(' args ')' | '(' expr ')'
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/SymbolicExpr.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cctype>

using namespace llvm;

namespace spyre {

class SymbolicExprParser {
public:
  SymbolicExprParser(StringRef text, std::string &error)
      : text(text), error(error) {}

  std::unique_ptr<SymbolicExpr> parseAll() {
    std::unique_ptr<SymbolicExpr> e = parseExpr();
    if (e && (skipSpace(), pos != text.size()))
      return fail("unexpected '" + text.substr(pos, 12).str() + "'");
    return e;
  }

private:
  using Expr = std::unique_ptr<SymbolicExpr>;
  using Kind = SymbolicExpr::Kind;
  // Bounds keep hostile text from exhausting the stack (nesting) or from
  // building trees whose recursive evaluation or destruction would (long
  // `a+b+...` chains nest to the left).
  static constexpr int kMaxDepth = 64;
  static constexpr int kMaxNodes = 4096;

  StringRef text;
  std::string &error;
  size_t pos = 0;
  int depth = 0;
  int nodes = 0;

  Expr fail(const std::string &message) {
    if (error.empty())
      error = message + " at offset " + std::to_string(pos);
    return nullptr;
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool consume(StringRef token) {
    skipSpace();
    if (!text.substr(pos).starts_with(token))
      return false;
    pos += token.size();
    return true;
  }
  Expr make(Kind kind) {
    ++nodes;
    auto e = std::make_unique<SymbolicExpr>();
    e->kind = kind;
    return e;
  }
  Expr node(Kind kind, Expr lhs, Expr rhs) {
    Expr e = make(kind);
    e->operands.push_back(std::move(lhs));
    e->operands.push_back(std::move(rhs));
    return e;
  }
  Expr integer(int64_t v) {
    Expr e = make(Kind::Integer);
    e->value = v;
    return e;
  }
  bool tooLarge() { return nodes > kMaxNodes; }

  Expr parseExpr() {
    Expr lhs = parseTerm();
    while (lhs) {
      if (tooLarge())
        return fail("expression too long");
      bool minus;
      if (consume("+"))
        minus = false;
      else if (consume("-"))
        minus = true;
      else
        break;
      Expr rhs = parseTerm();
      if (!rhs)
        return nullptr;
      if (minus)
        rhs = node(Kind::Mul, integer(-1), std::move(rhs));
      lhs = node(Kind::Add, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  Expr parseTerm() {
    Expr lhs = parseUnary();
    while (lhs) {
      if (tooLarge())
        return fail("expression too long");
      Kind kind;
      if (consume("//"))
        kind = Kind::FloorDiv;
      else if (consume("*"))
        kind = Kind::Mul;
      else if (consume("%"))
        kind = Kind::Mod;
      else
        break;
      Expr rhs = parseUnary();
      if (!rhs)
        return nullptr;
      lhs = node(kind, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  Expr parseUnary() {
    if (consume("-")) {
      if (++depth > kMaxDepth)
        return fail("expression nested too deeply");
      Expr e = parseUnary();
      --depth;
      return e ? node(Kind::Mul, integer(-1), std::move(e)) : nullptr;
    }
    return parsePrimary();
  }

  Expr parsePrimary() {
    if (++depth > kMaxDepth)
      return fail("expression nested too deeply");
    Expr e = parsePrimaryNested();
    --depth;
    return e;
  }

  Expr parsePrimaryNested() {
    skipSpace();
    if (consume("("))
      return parseParenthesized();
    if (atDigit())
      return parseDecimal();
    return parseNamed();
  }

  bool atDigit() const {
    return pos < text.size() && std::isdigit((unsigned char)text[pos]);
  }
  void skipDigits() {
    while (atDigit())
      ++pos;
  }

  /// `( expr )`, after the '('.
  Expr parseParenthesized() {
    Expr e = parseExpr();
    if (e && !consume(")"))
      return fail("expected ')'");
    return e;
  }

  /// An unsigned decimal integer (str() spelling).
  Expr parseDecimal() {
    size_t start = pos;
    skipDigits();
    int64_t v;
    if (text.substr(start, pos - start).getAsInteger(10, v))
      return fail("integer out of range");
    return integer(v);
  }

  /// Advances over a name made of letters, digits and '_'; returns it.
  StringRef scanName() {
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum((unsigned char)text[pos]) || text[pos] == '_'))
      ++pos;
    return text.substr(start, pos - start);
  }

  /// A bare symbol (str() spelling) or a call `NAME(...)`.
  Expr parseNamed() {
    StringRef name = scanName();
    if (name.empty())
      return fail("expected an integer, a symbol or a function");
    if (!consume("(")) { // A bare symbol (str() spelling).
      Expr e = make(Kind::Symbol);
      e->symbol = name.str();
      return e;
    }
    return parseCall(name);
  }

  /// `Integer(n)`, `Symbol('s0', assumptions...)` or an operator applied to
  /// argument expressions.
  Expr parseCall(StringRef name) {
    if (name == "Integer")
      return parseIntegerCall();
    if (name == "Symbol")
      return parseSymbolCall();
    return parseOperatorCall(name);
  }

  /// `Integer(n)`, after the '('.
  Expr parseIntegerCall() {
    skipSpace();
    size_t start = pos;
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    skipDigits();
    int64_t v;
    if (text.substr(start, pos - start).getAsInteger(10, v) || !consume(")"))
      return fail("malformed Integer(...)");
    return integer(v);
  }

  /// `Symbol('s0', assumptions...)`, after the '('.
  Expr parseSymbolCall() {
    skipSpace();
    char quote = pos < text.size() ? text[pos] : 0;
    if (quote != '\'' && quote != '"')
      return fail("expected a quoted symbol name");
    size_t end = text.find(quote, pos + 1);
    if (end == StringRef::npos)
      return fail("unterminated symbol name");
    Expr e = make(Kind::Symbol);
    e->symbol = text.substr(pos + 1, end - pos - 1).str();
    pos = end + 1;
    skipAssumptions();
    if (!consume(")"))
      return fail("unterminated Symbol(...)");
    return e;
  }

  /// Advances to the ')' closing a Symbol(...): its assumptions
  /// (integer=True, positive=True) do not change the value.
  void skipAssumptions() {
    int nesting = 0;
    while (pos < text.size() && (nesting > 0 || text[pos] != ')'))
      nesting += text[pos] == '(' ? 1 : text[pos] == ')' ? -1 : 0, ++pos;
  }

  /// The operator a function name of either spelling denotes.
  static std::optional<Kind> operatorKind(StringRef name) {
    return StringSwitch<std::optional<Kind>>(name)
        .Case("Add", Kind::Add)
        .Case("Mul", Kind::Mul)
        .Cases({"FloorDiv", "CleanDiv"}, Kind::FloorDiv)
        .Cases({"Mod", "PythonMod"}, Kind::Mod)
        .Cases({"Pow", "PowByNatural"}, Kind::Pow)
        .Cases({"Max", "max"}, Kind::Max)
        .Cases({"Min", "min"}, Kind::Min)
        .Default(std::nullopt);
  }

  /// Whether operator `kind` takes `count` arguments: two for the binary
  /// ones, at least one for the others.
  static bool hasArity(Kind kind, size_t count) {
    bool binary =
        kind == Kind::FloorDiv || kind == Kind::Mod || kind == Kind::Pow;
    return binary ? count == 2 : count != 0;
  }

  /// An operator applied to argument expressions, after the '('.
  Expr parseOperatorCall(StringRef name) {
    std::optional<Kind> kind = operatorKind(name);
    if (!kind)
      return fail("unsupported function '" + name.str() + "'");
    Expr e = make(*kind);
    do {
      Expr arg = parseExpr();
      if (!arg)
        return nullptr;
      e->operands.push_back(std::move(arg));
    } while (consume(","));
    if (!consume(")"))
      return fail("expected ')' after the arguments of " + name.str());
    if (!hasArity(*kind, e->operands.size()))
      return fail(name.str() + " has the wrong number of arguments");
    return e;
  }
};

std::unique_ptr<SymbolicExpr> SymbolicExpr::parse(StringRef text,
                                                  std::string &error) {
  error.clear();
  return SymbolicExprParser(text, error).parseAll();
}

namespace {

/// Python's `acc // rhs` or `acc % rhs` (floor division, the remainder
/// with the sign of the divisor); nullopt where undefined or overflowing.
std::optional<int64_t> floorDivOrMod(SymbolicExpr::Kind kind, int64_t acc,
                                     int64_t rhs) {
  if (rhs == 0 || divideSignedWouldOverflow(acc, rhs))
    return std::nullopt;
  // The remainder from `%` (never overflows once INT64_MIN / -1 is
  // excluded), moved to the divisor's sign: q * rhs could overflow.
  int64_t r = acc % rhs;
  if (r != 0 && (r < 0) != (rhs < 0))
    r += rhs;
  return kind == SymbolicExpr::Kind::FloorDiv ? divideFloorSigned(acc, rhs) : r;
}

/// `base ** exponent`; nullopt for a negative exponent or on overflow.
std::optional<int64_t> checkedPow(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return std::nullopt;
  // Square and multiply: at most 63 steps for any exponent.
  int64_t e = exponent, out = 1;
  while (e) {
    if ((e & 1) && MulOverflow(out, base, out))
      return std::nullopt;
    e >>= 1;
    if (e && MulOverflow(base, base, base))
      return std::nullopt;
  }
  return out;
}

/// `acc <kind> rhs`; nullopt where undefined or overflowing.
std::optional<int64_t> applyOperator(SymbolicExpr::Kind kind, int64_t acc,
                                     int64_t rhs) {
  using Kind = SymbolicExpr::Kind;
  int64_t out;
  switch (kind) {
  case Kind::Add:
    if (AddOverflow(acc, rhs, out))
      return std::nullopt;
    return out;
  case Kind::Mul:
    if (MulOverflow(acc, rhs, out))
      return std::nullopt;
    return out;
  case Kind::FloorDiv:
  case Kind::Mod:
    return floorDivOrMod(kind, acc, rhs);
  case Kind::Pow:
    return checkedPow(acc, rhs);
  case Kind::Max:
    return std::max(acc, rhs);
  case Kind::Min:
    return std::min(acc, rhs);
  default:
    return std::nullopt;
  }
}

/// The values of `operands` under `bindings`, appended to `values`; false
/// where one has none.
bool evaluateOperands(ArrayRef<std::unique_ptr<SymbolicExpr>> operands,
                      const std::map<std::string, int64_t> &bindings,
                      SmallVectorImpl<int64_t> &values) {
  for (const auto &op : operands) {
    std::optional<int64_t> v = op->evaluate(bindings);
    if (!v)
      return false;
    values.push_back(*v);
  }
  return true;
}

} // namespace

std::optional<int64_t>
SymbolicExpr::evaluate(const std::map<std::string, int64_t> &bindings) const {
  if (kind == Kind::Integer)
    return value;
  if (kind == Kind::Symbol) {
    auto it = bindings.find(symbol);
    if (it == bindings.end())
      return std::nullopt;
    return it->second;
  }
  SmallVector<int64_t, 2> args;
  if (!evaluateOperands(operands, bindings, args))
    return std::nullopt;
  int64_t acc = args[0];
  for (int64_t rhs : ArrayRef<int64_t>(args).drop_front()) {
    std::optional<int64_t> out = applyOperator(kind, acc, rhs);
    if (!out)
      return std::nullopt;
    acc = *out;
  }
  return acc;
}

void SymbolicExpr::collectSymbols(SmallVectorImpl<std::string> &out) const {
  if (kind == Kind::Symbol && !llvm::is_contained(out, symbol))
    out.push_back(symbol);
  for (const auto &op : operands)
    op->collectSymbols(out);
}

namespace {

/// How an infix operator is written; none for the other kinds (a pure
/// table, one case per operator).
std::optional<StringRef> infixSpelling(SymbolicExpr::Kind kind) {
  using Kind = SymbolicExpr::Kind;
  switch (kind) {
  case Kind::Add:
    return StringRef(" + ");
  case Kind::Mul:
    return StringRef("*");
  case Kind::FloorDiv:
    return StringRef("//");
  case Kind::Mod:
    return StringRef(" % ");
  case Kind::Pow:
    return StringRef("**");
  default:
    return std::nullopt;
  }
}

} // namespace

std::string SymbolicExpr::joinOperands(StringRef sep) const {
  std::string s;
  for (const auto &op : operands) {
    if (!s.empty())
      s += sep.str();
    bool leaf = op->operands.empty();
    s += leaf ? op->str() : "(" + op->str() + ")";
  }
  return s;
}

std::string SymbolicExpr::str() const {
  switch (kind) {
  case Kind::Integer:
    return std::to_string(value);
  case Kind::Symbol:
    return symbol;
  case Kind::Max:
    return "max(" + joinOperands(", ") + ")";
  case Kind::Min:
    return "min(" + joinOperands(", ") + ")";
  default:
    break;
  }
  if (std::optional<StringRef> sep = infixSpelling(kind))
    return joinOperands(*sep);
  return "?";
}

} // namespace spyre
