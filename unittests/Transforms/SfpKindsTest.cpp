//===- SfpKindsTest.cpp - Compute-level kinds are the SFP's functions -----===//
//
// The compute-level kinds (SpyreEnums.td) carry SFP op codes as their values
// and SFP names as their spellings: the encoder and the constant folder rely
// on both. This checks them against the one SFP table (SfpOps.def).
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreAttrs.h"
#include "spyre/ISA/ISA.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace spyre;

/// The SFP's spelling of a compute-level unary kind ("gelu" is the exact,
/// erf form).
std::string sfpSpelling(UnaryKind kind) {
  std::string name = stringifyUnaryKind(kind).str();
  return name == "gelu" ? "gelu_erf" : name;
}

TEST(SfpKinds, EveryUnaryKindIsTheSfpFunctionOfItsCode) {
  for (uint32_t v = 0; v <= getMaxEnumValForUnaryKind(); ++v)
    if (auto kind = symbolizeUnaryKind(v)) {
      EXPECT_EQ(sfpSpelling(*kind), isa::unaryOpName(uint16_t(v)))
          << "UnaryKind value " << v;
    }
}

TEST(SfpKinds, EveryUnarySfpFunctionButCopyHasAKind) {
  for (uint16_t v = 1; v <= uint16_t(isa::UnaryOp::LastUnaryOp); ++v)
    EXPECT_TRUE(symbolizeUnaryKind(v).has_value())
        << "SFP unary function '" << isa::unaryOpName(v)
        << "' has no UnaryKind in SpyreEnums.td";
}

TEST(SfpKinds, BinaryKindsAndPredicatesCoverEveryBinarySfpFunction) {
  for (uint16_t v = 0; v <= uint16_t(isa::BinaryOp::LastBinaryOp); ++v) {
    std::string sfp = isa::binaryOpName(v);
    if (auto kind = symbolizeBinaryKind(v)) {
      EXPECT_EQ(stringifyBinaryKind(*kind).str(), sfp);
    } else if (auto pred = symbolizeComparePredicate(v)) {
      EXPECT_EQ(stringifyComparePredicate(*pred).str(), sfp);
    } else {
      ADD_FAILURE() << "SFP binary function '" << sfp
                    << "' has no BinaryKind or ComparePredicate";
    }
  }
}

TEST(SfpKinds, ReduceNamesFollowTheTable) {
  EXPECT_STREQ(isa::reduceOpName(uint16_t(isa::ReduceOp::Sum)), "sum");
  EXPECT_STREQ(isa::reduceOpName(uint16_t(isa::ReduceOp::Prod)), "prod");
  EXPECT_STREQ(isa::reduceOpName(uint16_t(isa::ReduceOp::LastReduceOp) + 1),
               "?");
}

TEST(SfpKinds, ComplexPathAndIntegerFormFollowTheTable) {
  EXPECT_TRUE(isa::takesComplexPath(isa::UnaryOp::Exp));
  EXPECT_FALSE(isa::takesComplexPath(isa::UnaryOp::Relu));
  EXPECT_TRUE(isa::takesComplexPath(isa::BinaryOp::Div));
  EXPECT_FALSE(isa::hasIntegerForm(isa::BinaryOp::Div));
  EXPECT_TRUE(isa::hasIntegerForm(isa::UnaryOp::Round));
  EXPECT_FALSE(isa::hasIntegerForm(isa::UnaryOp::Sqrt));
}

} // namespace
