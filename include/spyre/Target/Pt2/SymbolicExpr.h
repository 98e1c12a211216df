//===- SymbolicExpr.h - torch.export SymInt expressions ---------*- C++ -*-===//
//
// torch.export writes a symbolic size as `sympy.srepr` of its expression:
// `Symbol('s0', integer=True, positive=True)`,
// `Mul(Integer(32), Symbol('s0', ...))`, `FloorDiv(...)`. This parses that
// text (only the integer arithmetic shape expressions use) and evaluates it
// once `--bind-dims` gives its symbols values.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_SYMBOLICEXPR_H
#define SPYRE_TARGET_PT2_SYMBOLICEXPR_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace spyre {

class SymbolicExpr {
public:
  enum class Kind { Integer, Symbol, Add, Mul, FloorDiv, Mod, Pow, Max, Min };

  /// Parses srepr text; nullptr (with `error`) on anything else.
  static std::unique_ptr<SymbolicExpr> parse(llvm::StringRef text,
                                             std::string &error);

  /// The value under `bindings`; nullopt when a symbol is unbound or the
  /// arithmetic is undefined (division by zero, overflow).
  std::optional<int64_t>
  evaluate(const std::map<std::string, int64_t> &bindings) const;

  /// Symbol names in first-appearance order.
  void collectSymbols(llvm::SmallVectorImpl<std::string> &out) const;

  /// Readable form: `32*s0`, `(s0 + 1)//2`.
  std::string str() const;

private:
  Kind kind = Kind::Integer;
  int64_t value = 0;
  std::string symbol;
  llvm::SmallVector<std::unique_ptr<SymbolicExpr>, 2> operands;

  /// The str() of the operands separated by `sep`, those that are not
  /// leaves parenthesized.
  std::string joinOperands(llvm::StringRef sep) const;

  friend class SymbolicExprParser;
};

} // namespace spyre

#endif // SPYRE_TARGET_PT2_SYMBOLICEXPR_H
