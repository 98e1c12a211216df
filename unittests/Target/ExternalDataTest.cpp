//===- ExternalDataTest.cpp - Weight bytes kept outside the IR ------------===//
//
// ExternalData streams weights from their archive. A compressed entry (a
// re-zipped archive) cannot be read in place: it is decompressed once into
// a temporary file shared by every weight in it, and the images are those
// of the stored archive.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/ExternalData.h"
#include "spyre/Dialect/Spyre/SpyreDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace spyre;

namespace {

spy::LayoutMap f16Map(const std::vector<int64_t> &shape) {
  spy::TensorLayout layout;
  spy::LayoutMap map;
  std::string error;
  EXPECT_TRUE(
      spy::TensorLayout::make(isa::DType::F16, shape, 1, 128, layout, error))
      << error;
  EXPECT_TRUE(spy::LayoutMap::create(isa::DType::F16, shape, layout, 128,
                                     /*dl16Storage=*/true, map, error))
      << error;
  return map;
}

/// A weight of legacy_pickled_weights_*.pt2 (both in the entry
/// data/weights/model.pt): where its view starts, its shape and strides.
struct View {
  int64_t offset;
  std::vector<int64_t> shape, strides;
};
const View kViews[] = {
    {640, {1024, 256}, {}},          // fc1.weight
    {527104, {256, 1024}, {}},       // fc2.weight
    {640, {256, 1024}, {1, 256}},    // fc1.weight's storage, transposed
    {640 + 2 * 256, {512, 256}, {}}, // rows 1 to 512 of fc1.weight
};

/// A context with the spyre dialect, an empty module for diagnostics to
/// be emitted at, and the text of every diagnostic.
struct Scope {
  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  std::string diagnostics;
  ScopedDiagnosticHandler handler{&ctx, [this](Diagnostic &d) {
                                    diagnostics += d.str();
                                    return success();
                                  }};
  OwningOpRef<ModuleOp> module;
  Scope() {
    ctx.loadDialect<SpyreDialect>();
    module = ModuleOp::create(UnknownLoc::get(&ctx));
  }
};

/// The device images of kViews read from `archive`, and the number of
/// entries decompressed to make them.
std::vector<std::vector<uint8_t>> images(const std::string &archive,
                                         uint64_t &decompressions) {
  Scope scope;
  MLIRContext &ctx = scope.ctx;
  std::string &diagnostics = scope.diagnostics;
  ModuleOp module = *scope.module;
  ExternalData data;
  // Every image opened first, then read, as the emitter does.
  std::vector<std::unique_ptr<spy::StreamedImage>> opened;
  for (const View &v : kViews) {
    auto ext = ExternalDataAttr::get(&ctx, archive, "data/weights/model.pt",
                                     v.offset, v.strides);
    FailureOr<std::unique_ptr<spy::StreamedImage>> image =
        data.open(module, ext, f16Map(v.shape), /*budgetBytes=*/65536);
    EXPECT_TRUE(succeeded(image)) << diagnostics;
    if (succeeded(image))
      opened.push_back(std::move(*image));
  }
  std::vector<std::vector<uint8_t>> out;
  for (auto &image : opened) {
    std::vector<uint8_t> bytes(image->size());
    std::string error;
    // In pieces, as the writer reads.
    for (uint64_t at = 0; at < bytes.size(); at += 100000)
      EXPECT_TRUE(image->read(at, bytes.data() + at,
                              std::min<uint64_t>(100000, bytes.size() - at),
                              error))
          << error;
    out.push_back(std::move(bytes));
  }
  decompressions = data.decompressions();
  return out;
}

TEST(ExternalData, DeflatedEntryIsDecompressedOnce) {
  const std::string inputs = SPYRE_IMPORT_INPUTS;
  uint64_t storedSpills = 0, deflatedSpills = 0;
  auto stored =
      images(inputs + "/legacy_pickled_weights_2_8.pt2", storedSpills);
  auto deflated =
      images(inputs + "/legacy_pickled_weights_deflated.pt2", deflatedSpills);
  EXPECT_EQ(storedSpills, 0u); // Read in place.
  EXPECT_EQ(deflatedSpills, 1u);
  ASSERT_EQ(stored.size(), std::size(kViews));
  ASSERT_EQ(deflated.size(), std::size(kViews));
  for (size_t i = 0; i < stored.size(); ++i)
    EXPECT_TRUE(stored[i] == deflated[i]) << "view " << i;
}

/// The keys the weights file is reused on (spy/WeightsFile.h): equal for
/// the same view and layout of the same entry wherever its bytes lie (a
/// stored or a deflated archive), different for another view or layout.
TEST(ExternalData, ImageKeysNameTheSourceTheViewAndTheLayout) {
  const std::string inputs = SPYRE_IMPORT_INPUTS;
  Scope scope;
  MLIRContext &ctx = scope.ctx;
  std::string &diagnostics = scope.diagnostics;
  ModuleOp module = *scope.module;
  ExternalData data;
  auto key = [&](const std::string &archive, const std::string &entry,
                 const View &v, const spy::LayoutMap &map) {
    auto ext = ExternalDataAttr::get(&ctx, inputs + "/" + archive, entry,
                                     v.offset, v.strides);
    FailureOr<uint64_t> k = data.imageKey(module, ext, map);
    return succeeded(k) ? *k : uint64_t(0);
  };
  const std::string stored = "legacy_pickled_weights_2_8.pt2";
  const std::string deflated = "legacy_pickled_weights_deflated.pt2";
  const std::string entry = "data/weights/model.pt";
  uint64_t fc1 = key(stored, entry, kViews[0], f16Map(kViews[0].shape));
  EXPECT_NE(fc1, 0u) << diagnostics;
  EXPECT_EQ(fc1, key(stored, entry, kViews[0], f16Map(kViews[0].shape)));
  EXPECT_EQ(fc1, key(deflated, entry, kViews[0], f16Map(kViews[0].shape)));
  // Another view of the same storage, another layout of the same view.
  EXPECT_NE(fc1, key(stored, entry, kViews[3], f16Map(kViews[3].shape)));
  spy::TensorLayout transposed;
  spy::LayoutMap transposedMap;
  std::string error;
  ASSERT_TRUE(spy::TensorLayout::make(isa::DType::F16, kViews[0].shape, 0, 128,
                                      transposed, error, {1, 0}))
      << error;
  ASSERT_TRUE(spy::LayoutMap::create(isa::DType::F16, kViews[0].shape,
                                     transposed, 128, true, transposedMap,
                                     error))
      << error;
  EXPECT_NE(fc1, key(stored, entry, kViews[0], transposedMap));
  // No such entry: an error naming it.
  EXPECT_EQ(
      key(stored, "data/weights/none.pt", kViews[0], f16Map(kViews[0].shape)),
      0u);
  EXPECT_NE(diagnostics.find("has no entry 'data/weights/none.pt'"),
            std::string::npos)
      << diagnostics;
}

} // namespace
