//===- TestUtil.cpp - Helpers for the runtime unit tests ------------------===//

#include "TestUtil.h"

namespace spyre::test {

spy::TensorDesc makeTensor(const std::string &name, spy::Role role,
                           int32_t ioIndex, DType dtype,
                           std::vector<int64_t> shape, int32_t stickDim,
                           std::vector<int32_t> dimOrder) {
  spy::TensorDesc t;
  t.name = name;
  t.role = role;
  t.ioIndex = ioIndex;
  t.dtype = dtype;
  t.shape = shape;
  if (stickDim == -2)
    stickDim = shape.empty() ? -1 : int32_t(shape.size() - 1);
  std::string error;
  EXPECT_TRUE(spy::TensorLayout::make(dtype, shape, stickDim, arch().stickBytes,
                                      t.layout, error, dimOrder))
      << error;
  return t;
}

static Inst dmaBox(Opcode op, uint32_t lx, std::array<uint32_t, 3> counts,
                   uint32_t bytes, std::array<int32_t, 3> pitch) {
  Inst i = isa::makeInst(op);
  i.lx[op == Opcode::DmaStore ? 1 : 0] = lx;
  for (unsigned d = 0; d < 3; ++d) {
    i.arg[d] = counts[d];
    i.pitch[d] = pitch[d];
  }
  i.arg[3] = bytes;
  return i;
}

Inst dmaLoad(uint32_t lx, std::array<uint32_t, 3> counts, uint32_t bytes,
             std::array<int32_t, 3> pitch) {
  return dmaBox(Opcode::DmaLoad, lx, counts, bytes, pitch);
}

Inst dmaStore(uint32_t lx, std::array<uint32_t, 3> counts, uint32_t bytes,
              std::array<int32_t, 3> pitch) {
  return dmaBox(Opcode::DmaStore, lx, counts, bytes, pitch);
}

Inst ptMatmul(uint32_t c, uint32_t a, uint32_t b, uint32_t m, uint32_t k,
              uint32_t n, std::array<int32_t, 3> pitch, DType in, DType acc) {
  Inst i = isa::makeInst(Opcode::PtMatmul);
  i.dtype[0] = uint8_t(acc);
  i.dtype[1] = i.dtype[2] = uint8_t(in);
  i.lx[0] = c;
  i.lx[1] = a;
  i.lx[2] = b;
  i.arg[0] = m;
  i.arg[1] = k;
  i.arg[2] = n;
  i.arg[3] = isa::kNone;
  for (unsigned o = 0; o < 3; ++o)
    i.pitch[o] = pitch[o];
  return i;
}

Inst sfpUnary(isa::UnaryOp op, uint32_t dst, uint32_t src, uint32_t rows,
              uint32_t cols, int32_t pitchDst, int32_t pitchSrc, DType dstType,
              DType srcType) {
  Inst i = isa::makeInst(Opcode::SfpUnary);
  i.op = uint16_t(op);
  i.dtype[0] = uint8_t(dstType);
  i.dtype[1] = uint8_t(srcType);
  i.lx[0] = dst;
  i.lx[1] = src;
  i.arg[0] = rows;
  i.arg[1] = cols;
  i.pitch[0] = pitchDst;
  i.pitch[1] = pitchSrc;
  return i;
}

Inst sfpBinary(isa::BinaryOp op, uint32_t dst, uint32_t a, uint32_t b,
               uint32_t rows, uint32_t cols, std::array<int32_t, 3> pitch,
               std::array<DType, 3> types) {
  Inst i = isa::makeInst(Opcode::SfpBinary);
  i.op = uint16_t(op);
  for (unsigned o = 0; o < 3; ++o) {
    i.dtype[o] = uint8_t(types[o]);
    i.pitch[o] = pitch[o];
  }
  i.lx[0] = dst;
  i.lx[1] = a;
  i.lx[2] = b;
  i.arg[0] = rows;
  i.arg[1] = cols;
  return i;
}

Inst loop(uint32_t count, uint8_t countParam) {
  Inst i = isa::makeInst(Opcode::Loop);
  i.arg[0] = count;
  i.countParam = countParam;
  return i;
}

Inst endLoop() { return isa::makeInst(Opcode::EndLoop); }

rt::Status SimHarness::run(const std::vector<Inst> &insts, uint32_t numCores,
                           uint32_t numParams, std::vector<int64_t> params,
                           const char *name) {
  rt::DeviceAddr code = 0;
  uint64_t bytes = insts.size() * isa::kInstBytes;
  rt::Status s = device.allocate(bytes ? bytes : 1, isa::kInstBytes,
                                 rt::MemoryKind::Code, code);
  if (!s.ok())
    return s;
  s = device.write(code, insts.data(), bytes);
  if (!s.ok())
    return s;
  rt::StepRequest step;
  step.name = name;
  step.code = code;
  step.numInsts = uint32_t(insts.size());
  step.numCores = numCores;
  step.numParams = numParams;
  step.params = params.data();
  s = device.launch(&step, 1);
  (void)device.free(code);
  return s;
}

rt::Status SimHarness::runSteps(const std::vector<std::vector<Inst>> &programs,
                                uint32_t numCores) {
  std::vector<rt::StepRequest> steps;
  std::vector<rt::DeviceAddr> codes;
  for (const auto &insts : programs) {
    rt::DeviceAddr code = 0;
    uint64_t bytes = insts.size() * isa::kInstBytes;
    rt::Status s = device.allocate(bytes ? bytes : 1, isa::kInstBytes,
                                   rt::MemoryKind::Code, code);
    if (!s.ok())
      return s;
    s = device.write(code, insts.data(), bytes);
    if (!s.ok())
      return s;
    codes.push_back(code);
    rt::StepRequest step;
    step.name = "step";
    step.code = code;
    step.numInsts = uint32_t(insts.size());
    step.numCores = numCores;
    steps.push_back(step);
  }
  rt::Status s = device.launch(steps.data(), steps.size());
  for (rt::DeviceAddr c : codes)
    (void)device.free(c);
  return s;
}

rt::DeviceAddr SimHarness::upload(const std::vector<uint8_t> &bytes,
                                  uint64_t alignment) {
  rt::DeviceAddr addr = 0;
  EXPECT_TRUE(device
                  .allocate(bytes.empty() ? 1 : bytes.size(), alignment,
                            rt::MemoryKind::Data, addr)
                  .ok());
  EXPECT_TRUE(device.write(addr, bytes.data(), bytes.size()).ok());
  return addr;
}

std::vector<uint8_t> SimHarness::download(rt::DeviceAddr addr, uint64_t size) {
  std::vector<uint8_t> out(size);
  EXPECT_TRUE(device.read(addr, out.data(), size).ok());
  return out;
}

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &f : v)
    f = dist(rng);
  return v;
}

std::vector<uint16_t> toDL16(const std::vector<float> &v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = spy::floatToDL16(v[i]);
  return out;
}

std::vector<float> fromDL16(const std::vector<uint16_t> &v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = spy::dl16ToFloat(v[i]);
  return out;
}

std::vector<uint8_t> writeSpy(spy::SpyWriter &writer) {
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_TRUE(writer.writeToBuffer(out, error)) << error;
  return out;
}

} // namespace spyre::test
