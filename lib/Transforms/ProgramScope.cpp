//===- ProgramScope.cpp - Building one per-core program -------------------===//

#include "ProgramScope.h"

using namespace mlir;

namespace spyre {

int64_t ParamTable::slot(ArrayRef<int64_t> values) {
  if (llvm::all_of(values, [](int64_t v) { return v == 0; }))
    return -1;
  for (auto [i, col] : llvm::enumerate(columns))
    if (ArrayRef<int64_t>(col) == values)
      return i;
  columns.emplace_back(values.begin(), values.end());
  return columns.size() - 1;
}

SmallVector<int64_t> ParamTable::flatten() const {
  SmallVector<int64_t> flat;
  for (int64_t c = 0; c < cores; ++c)
    for (const auto &col : columns)
      flat.push_back(col[c]);
  return flat;
}

ProgramOp ProgramScope::begin(StringRef name, StringRef kernel) {
  program = ProgramOp::create(
      b, loc, b.getStringAttr(name), b.getStringAttr(kernel),
      b.getI64IntegerAttr(params.numCores()), b.getI64IntegerAttr(0),
      b.getDenseI64ArrayAttr({}), IntegerAttr(), IntegerAttr(), IntegerAttr(),
      IntegerAttr(), ScheduleAttr(), IntegerAttr());
  program.getBody().push_back(new Block());
  outside = b.saveInsertionPoint();
  b.setInsertionPointToStart(&program.getBody().front());
  return program;
}

void ProgramScope::finish() {
  assert(open.empty() && "loops left open");
  program.setNumParams(params.numParams());
  program.setParams(params.flatten());
  b.restoreInsertionPoint(outside);
}

void ProgramScope::openLoop(ArrayRef<int64_t> counts, int64_t tag) {
  auto loop = LoopOp::create(b, loc, counts.front(), nullptr, nullptr, nullptr);
  if (!llvm::all_equal(counts))
    loop.setCountParam(params.slot(counts));
  loop.getBody().push_back(new Block());
  saved.push_back(b.saveInsertionPoint());
  b.setInsertionPointToStart(&loop.getBody().front());
  open.push_back(tag);
}

void ProgramScope::openGrowingLoop(ArrayRef<int64_t> counts, int64_t tag,
                                   int64_t growsWith, int64_t step) {
  int64_t level = levelOf(growsWith);
  openLoop(counts, tag);
  if (level < 0)
    return;
  auto loop = cast<LoopOp>(b.getInsertionBlock()->getParentOp());
  loop.setCountStep(step);
  loop.setCountLevel(level);
}

void ProgramScope::closeLoop() {
  b.restoreInsertionPoint(saved.pop_back_val());
  open.pop_back();
}

int64_t ProgramScope::levelOf(int64_t tag) const {
  if (tag == kGuard)
    return -1;
  for (auto [i, o] : llvm::enumerate(open))
    if (o == tag)
      return i;
  return -1;
}

LxAddressAttr ProgramScope::lx(int64_t offset, int64_t bytes, int64_t copies,
                               std::optional<int64_t> level) {
  int64_t at = level.value_or(int64_t(open.size()) - 1);
  if (copies <= 1 || at < 0)
    return LxAddressAttr::get(ctx, offset, {}, 0);
  SmallVector<int64_t> strides(at + 1, 0);
  strides.back() = bytes;
  return LxAddressAttr::get(ctx, offset, strides, bytes * copies);
}

SmallVector<int64_t>
ProgramScope::memStrides(function_ref<int64_t(int64_t)> bytesPerIteration) {
  SmallVector<int64_t> strides;
  for (int64_t tag : open)
    strides.push_back(tag == kGuard ? 0 : bytesPerIteration(tag));
  return strides;
}

ClampAttr ProgramScope::clamp(int64_t tag, int64_t argIndex, int64_t step,
                              int64_t total, ArrayRef<int64_t> starts) {
  bool edge = total % step != 0 ||
              llvm::any_of(starts, [&](int64_t s) { return s % step != 0; });
  if (!edge)
    return nullptr;
  // Not looping: level -1 reads iteration 0. (A level deeper than the open
  // loops would not do: with every hardware level open there is none, and
  // the clamp would follow an unrelated loop.)
  return ClampAttr::get(ctx, levelOf(tag), argIndex, step, total,
                        params.slot(starts));
}

} // namespace spyre
