//===- SymbolicExprTest.cpp - torch.export SymInt expressions -------------===//

#include "spyre/Target/Pt2/SymbolicExpr.h"

#include <gtest/gtest.h>

using spyre::SymbolicExpr;

namespace {

std::optional<int64_t> eval(const std::string &text,
                            const std::map<std::string, int64_t> &bindings) {
  std::string error;
  auto e = SymbolicExpr::parse(text, error);
  EXPECT_TRUE(e) << text << ": " << error;
  return e ? e->evaluate(bindings) : std::nullopt;
}

std::string parseError(const std::string &text) {
  std::string error;
  EXPECT_FALSE(SymbolicExpr::parse(text, error)) << text;
  return error;
}

TEST(SymbolicExpr, SreprForms) {
  std::map<std::string, int64_t> b{{"s0", 4}, {"s1", 7}};
  EXPECT_EQ(eval("Symbol('s0', integer=True, positive=True)", b), 4);
  EXPECT_EQ(eval("Integer(-3)", b), -3);
  EXPECT_EQ(
      eval("Mul(Integer(32), Symbol('s0', integer=True, positive=True))", b),
      128);
  EXPECT_EQ(eval("Add(Symbol('s0'), Symbol('s1'), Integer(1))", b), 12);
  EXPECT_EQ(eval("FloorDiv(Symbol('s1'), Integer(2))", b), 3);
  EXPECT_EQ(eval("PythonMod(Integer(-1), Integer(3))", b), 2);
  EXPECT_EQ(eval("Pow(Symbol('s0'), Integer(3))", b), 64);
  EXPECT_EQ(eval("Max(Symbol('s0'), Symbol('s1'))", b), 7);
  EXPECT_EQ(eval("Min(Symbol('s0'), Integer(2), Symbol('s1'))", b), 2);
}

TEST(SymbolicExpr, StrForms) {
  std::map<std::string, int64_t> b{{"s0", 4}, {"s1", 7}};
  EXPECT_EQ(eval("32*s0", b), 128);
  EXPECT_EQ(eval("s0 + s1 - 1", b), 10);
  EXPECT_EQ(eval("(s1 + 1)//2", b), 4);
  EXPECT_EQ(eval("-s0 % 3", b), 2);
  EXPECT_EQ(eval("42", b), 42);
}

TEST(SymbolicExpr, UnboundAndUndefined) {
  EXPECT_EQ(eval("Mul(Integer(2), Symbol('s9'))", {{"s0", 1}}), std::nullopt);
  EXPECT_EQ(eval("FloorDiv(Integer(1), Symbol('s0'))", {{"s0", 0}}),
            std::nullopt);
  EXPECT_EQ(eval("Mul(Integer(4611686018427387904), Integer(4))", {}),
            std::nullopt);
}

TEST(SymbolicExpr, ArithmeticEdges) {
  // Huge exponents: square and multiply (no 2^63-step loop), overflow is
  // "cannot evaluate", 1 and -1 stay exact.
  EXPECT_EQ(eval("Pow(Integer(1), Integer(9223372036854775807))", {}), 1);
  EXPECT_EQ(eval("Pow(Integer(-1), Integer(9223372036854775807))", {}), -1);
  EXPECT_EQ(eval("Pow(Integer(2), Integer(62))", {}), int64_t(1) << 62);
  EXPECT_EQ(eval("Pow(Integer(2), Integer(63))", {}), std::nullopt);
  EXPECT_EQ(eval("Pow(Integer(3), Integer(-1))", {}), std::nullopt);
  // INT64_MIN // -1 overflows.
  EXPECT_EQ(eval("FloorDiv(Integer(-9223372036854775808), Integer(-1))", {}),
            std::nullopt);
  EXPECT_EQ(eval("Mod(Integer(-9223372036854775808), Integer(-1))", {}),
            std::nullopt);
  EXPECT_EQ(eval("FloorDiv(Integer(-7), Integer(2))", {}), -4);
  // Python's modulo where floor(a / b) * b is not representable:
  // -2^63 = -3074457345618258603 * 3 + 1 (UBSan caught q * b overflowing).
  EXPECT_EQ(eval("Mod(Integer(-9223372036854775808), Integer(3))", {}), 1);
  EXPECT_EQ(eval("Mod(Integer(-9223372036854775808), Integer(-3))", {}), -2);
  EXPECT_EQ(eval("Mod(Integer(9223372036854775807), Integer(-2))", {}), -1);
  EXPECT_EQ(eval("FloorDiv(Integer(-9223372036854775808), Integer(3))", {}),
            -3074457345618258603);
}

TEST(SymbolicExpr, SymbolsAndText) {
  std::string error;
  auto e = SymbolicExpr::parse(
      "Add(Mul(Integer(32), Symbol('s0')), Symbol('s1'), Symbol('s0'))", error);
  ASSERT_TRUE(e) << error;
  llvm::SmallVector<std::string> symbols;
  e->collectSymbols(symbols);
  ASSERT_EQ(symbols.size(), 2u);
  EXPECT_EQ(symbols[0], "s0");
  EXPECT_EQ(symbols[1], "s1");
  EXPECT_EQ(e->str(), "(32*s0) + s1 + s0");
}

TEST(SymbolicExpr, Malformed) {
  EXPECT_NE(
      parseError("Sqrt(Symbol('s0'))").find("unsupported function 'Sqrt'"),
      std::string::npos);
  EXPECT_NE(parseError("Symbol('s0").find("unterminated"), std::string::npos);
  EXPECT_NE(parseError("Mul(Integer(2),").find("expected"), std::string::npos);
  EXPECT_NE(parseError("FloorDiv(Integer(2))").find("wrong number"),
            std::string::npos);
  EXPECT_NE(parseError("s0 $ 2").find("unexpected"), std::string::npos);
  EXPECT_NE(parseError("99999999999999999999").find("out of range"),
            std::string::npos);
  EXPECT_NE(parseError("").find("expected"), std::string::npos);
  // Hostile text: refused, never a stack overflow or a hang.
  std::string integers;
  for (int i = 0; i < 10000; ++i)
    integers += "Integer(";
  EXPECT_NE(parseError(integers).find("malformed Integer"), std::string::npos);
  std::string chain = "s0";
  for (int i = 0; i < 100000; ++i)
    chain += "+1";
  EXPECT_NE(parseError(chain).find("expression too long"), std::string::npos);
  // Deep nesting is refused, not a stack overflow.
  EXPECT_NE(parseError(std::string(10000, '(') + "1" + std::string(10000, ')'))
                .find("nested too deeply"),
            std::string::npos);
}

} // namespace
