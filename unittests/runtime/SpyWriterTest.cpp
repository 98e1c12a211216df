//===- SpyWriterTest.cpp - Writing .spy files -----------------------------===//

#include "TestModels.h"

#include "spyre/Runtime/Model.h"

#include <fstream>
#include <iterator>

using namespace spyre;
using namespace spyre::test;

namespace {

TEST(SpyWriter, OutputIsDeterministic) {
  EXPECT_EQ(basicModel(), basicModel());
}

TEST(SpyWriter, HeaderAndSegmentLayout) {
  std::vector<uint8_t> bytes = basicModel();
  spy::FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  EXPECT_EQ(std::memcmp(h.magic, spy::kMagic, 8), 0);
  EXPECT_EQ(h.formatMajor, spy::kFormatMajor);
  EXPECT_EQ(h.formatMinor, spy::kFormatMinor);
  EXPECT_EQ(h.archHash, arch().hash());
  EXPECT_EQ(h.flatbufferOffset % spy::kFileAlignment, 0u);
  EXPECT_EQ(h.dataOffset % spy::kFileAlignment, 0u);
  EXPECT_EQ(h.dataOffset + h.dataSize, bytes.size());
  EXPECT_EQ(h.checksum,
            spy::headerChecksum(h, bytes.data() + h.flatbufferOffset));
  const spy::Model *m = spy::GetModel(bytes.data() + h.flatbufferOffset);
  // Code, the weight, then the digests of all three.
  ASSERT_EQ(m->segments()->size(), 3u);
  const spy::Segment *code = m->segments()->Get(0);
  const spy::Segment *weight = m->segments()->Get(1);
  const spy::Segment *digests = m->segments()->Get(2);
  ASSERT_EQ(m->digest_segment(), 2);
  ASSERT_EQ(digests->size(), 3u * 8);
  const uint8_t *data = bytes.data() + h.dataOffset;
  for (uint32_t i = 0; i < 3; ++i) {
    uint64_t stored = 0;
    std::memcpy(&stored, data + digests->offset() + 8 * i, 8);
    const spy::Segment *s = m->segments()->Get(i);
    EXPECT_EQ(stored,
              i == 2 ? 0
                     : spy::SegmentDigest::of(data + s->offset(), s->size()))
        << "segment " << i;
  }
  EXPECT_EQ(code->size(), 6u * isa::kInstBytes);
  EXPECT_EQ(weight->offset() % spy::kFileAlignment, 0u);
  EXPECT_EQ(weight->size(), 32u * 32 * 4);
  EXPECT_EQ(std::memcmp(bytes.data() + h.dataOffset + weight->offset(),
                        basicWeight().data(), weight->size()),
            0);
  EXPECT_EQ(m->tensors()->Get(1)->segment(), 1);
  // The relocation records the tensor's phase.
  EXPECT_EQ(m->relocations()->Get(0)->phase(), spy::Phase::Launch);
  EXPECT_EQ(m->relocations()->Get(1)->phase(), spy::Phase::Load);
  EXPECT_EQ(m->relocations()->Get(2)->phase(), spy::Phase::Bind);
  EXPECT_EQ(m->relocations()->Get(2)->offset(), 3u * 128 + 8);
  EXPECT_EQ(m->arch_json()->str(), arch().canonicalJson());
}

TEST(SpyWriter, StreamedDataEqualsHeldData) {
  auto build = [](bool streamed) {
    spy::SpyWriter w(arch());
    spy::TensorDesc t =
        makeTensor("c", spy::Role::Constant, -1, DType::I8, {3, 1000});
    uint32_t c = w.addTensor(t);
    uint64_t size = t.layout.deviceBytes(DType::I8);
    std::vector<uint8_t> data(size);
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = uint8_t(i * 31);
    if (streamed)
      w.setTensorData(
          c, size, [data](uint64_t off, void *buf, uint64_t n, std::string &) {
            std::memcpy(buf, data.data() + off, n);
            return true;
          });
    else
      w.setTensorData(c, data);
    return writeSpy(w);
  };
  std::vector<uint8_t> held = build(false);
  EXPECT_EQ(build(true), held);
  std::unique_ptr<rt::Model> m;
  ASSERT_OK(rt::Model::fromBuffer(held, &arch(), m));
  EXPECT_EQ(m->tensors()[0].size, 3u * 1024);
}

TEST(SpyWriter, WritesFilesAndReportsSourceErrors) {
  spy::SpyWriter w(arch());
  uint32_t c =
      w.addTensor(makeTensor("c", spy::Role::Constant, -1, DType::F32, {4}));
  w.setTensorData(c, 128, [](uint64_t, void *, uint64_t, std::string &error) {
    error = "disk on fire";
    return false;
  });
  std::string path = tempPath("writer_fail.spy"), error;
  EXPECT_FALSE(w.write(path, error));
  EXPECT_NE(error.find("disk on fire"), std::string::npos);
  std::ifstream gone(path);
  EXPECT_FALSE(gone.good());
  EXPECT_FALSE(w.write("/nonexistent-dir/x.spy", error));

  spy::SpyWriter ok(arch());
  ok.addStep(ok.addProgram(spy::ProgramDesc{"p", "", {}, 1, 0, {}}));
  path = tempPath("writer_ok.spy");
  ASSERT_TRUE(ok.write(path, error)) << error;
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, writeSpy(ok));
}

} // namespace
