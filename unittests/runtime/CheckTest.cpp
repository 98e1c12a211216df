//===- CheckTest.cpp - Kernel-by-kernel golden comparison -----------------===//

#include "TestModels.h"

#include "spyre/Runtime/Check.h"
#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/SimulatorDevice.h"

using namespace spyre;
using namespace spyre::test;

namespace {

/// basicModel (t = x @ w; y = t) with the reference of its one program:
/// t and y are the matmul of its inputs x and w, from "basic.py:3 (mm)".
std::vector<uint8_t> checkedModel(uint32_t operand = 1) {
  return editModel(basicModel(), [&](spy::ModelT &m) {
    auto ref = std::make_unique<spy::KernelReferenceT>();
    for (auto [tensor, shape] :
         {std::pair<uint32_t, std::vector<int64_t>>{0, {4, 32}},
          {1, {32, 32}}}) {
      auto v = std::make_unique<spy::RefValueT>();
      v->tensor = tensor;
      v->shape = shape;
      ref->inputs.push_back(std::move(v));
    }
    for (uint32_t tensor : {2u, 3u}) {
      auto v = std::make_unique<spy::RefValueT>();
      v->tensor = tensor;
      v->shape = {4, 32};
      ref->results.push_back(std::move(v));
    }
    auto op = std::make_unique<spy::RefOpT>();
    op->kind = spy::RefKind::Matmul;
    op->operands = {0, operand};
    op->dtype = spy::DType::F32;
    op->shape = {4, 32};
    op->ints = {0, 0};
    op->location = "basic.py:3 (mm)";
    op->node = "mm";
    ref->ops.push_back(std::move(op));
    ref->yields = {2, 2};
    m.programs[0]->reference = std::move(ref);
  });
}

/// Loads `bytes`; segment digests are not checked (editInst changes a
/// program image after they were computed).
rt::Status load(const std::vector<uint8_t> &bytes,
                std::shared_ptr<const rt::Model> &out) {
  std::unique_ptr<rt::Model> m;
  rt::LoadOptions options;
  options.verifyData = false;
  rt::Status s = rt::Model::fromBuffer(bytes, &arch(), m, options);
  out = std::move(m);
  return s;
}

rt::HostTensor basicInput() {
  return {isa::DType::F32, {4, 32}, toBytes(randomFloats(128, 7))};
}

/// `bytes` loaded in a session on a simulator of its own.
struct Loaded {
  rt::SimulatorDevice device{arch()};
  std::unique_ptr<rt::Session> session;

  explicit Loaded(const std::vector<uint8_t> &bytes) {
    std::shared_ptr<const rt::Model> model;
    EXPECT_TRUE(load(bytes, model).ok());
    EXPECT_TRUE(rt::Session::create(device, model, session).ok());
  }

  rt::Status runChecked(const std::map<std::string, rt::NodeReference> &nodes,
                        rt::CheckReport &report) {
    std::vector<rt::HostTensor> outputs;
    return session->runChecked({basicInput()}, outputs, nodes, report);
  }
};

/// Runs `bytes` checked on basicInput().
rt::CheckReport
runChecked(const std::vector<uint8_t> &bytes,
           const std::map<std::string, rt::NodeReference> &nodes = {}) {
  rt::CheckReport report;
  rt::Status s = Loaded(bytes).runChecked(nodes, report);
  EXPECT_TRUE(s.ok()) << s.message();
  return report;
}

TEST(Check, CorrectProgramMatchesItsReference) {
  rt::CheckReport report = runChecked(checkedModel());
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_TRUE(report.kernels[0].checked);
  EXPECT_EQ(report.firstDivergent, -1);
  EXPECT_EQ(report.text(), "check: 1 of 1 kernels match their reference\n");
}

TEST(Check, NamesTheKernelOfABrokenLowering) {
  // The matmul reads its rhs from x's LX buffer instead of w's: the program
  // no longer computes what its kernel says.
  std::vector<uint8_t> broken = editInst(
      checkedModel(), 0, 2, [](isa::Inst &inst) { inst.lx[2] = inst.lx[1]; });
  rt::CheckReport report = runChecked(broken);
  ASSERT_EQ(report.firstDivergent, 0);
  const rt::KernelCheck &k = report.kernels[0];
  EXPECT_EQ(k.kernel, "mm");
  ASSERT_EQ(k.divergences.size(), 2u);
  EXPECT_EQ(k.divergences[0].tensor, "t");
  EXPECT_EQ(k.divergences[1].tensor, "logits");
  std::string text = report.text();
  EXPECT_NE(text.find("check: kernel 0 'mm' is the first of 1 diverging"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    matmul at basic.py:3 (mm)"), std::string::npos)
      << text;
}

TEST(Check, ComparesNodesWithPyTorchValues) {
  // The device's own result as the node's value: it matches; shifted: the
  // node is reported.
  Loaded plain(checkedModel());
  std::vector<rt::HostTensor> outputs;
  ASSERT_TRUE(plain.session->run({basicInput()}, outputs).ok());
  rt::NodeReference node;
  node.shape = {4, 32};
  for (float v : fromBytes<float>(outputs[0].data))
    node.values.push_back(v);
  rt::CheckReport same = runChecked(checkedModel(), {{"mm", node}});
  EXPECT_EQ(same.nodesCompared, 1u);
  EXPECT_TRUE(same.firstDivergentNode.empty());
  node.values[5] += 1.0;
  rt::CheckReport shifted = runChecked(checkedModel(), {{"mm", node}});
  EXPECT_EQ(shifted.firstDivergentNode, "mm");
  EXPECT_NE(shifted.text().find("node 'mm' is the first to differ from "
                                "PyTorch (1 nodes compared): kernel 'mm' 1 of "
                                "128 elements differ"),
            std::string::npos)
      << shifted.text();
}

TEST(Check, ProgramWithoutReferenceIsNotChecked) {
  rt::CheckReport report = runChecked(basicModel());
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_FALSE(report.kernels[0].checked);
  EXPECT_EQ(report.text(), "check: 0 of 1 kernels match their reference\n");
}

TEST(Check, LoaderRefusesAReferenceReadingAnUndefinedValue) {
  std::shared_ptr<const rt::Model> model;
  rt::Status s = load(checkedModel(/*operand=*/5), model);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("program 0 'mm': reference: op 0: operand 5 is "
                             "not defined before it"),
            std::string::npos)
      << s.message();
}

TEST(Check, EvaluationErrorNamesKernelAndOp) {
  // A matmul whose operands do not fit its result is an error, not a crash.
  std::vector<uint8_t> bytes = editModel(checkedModel(), [](spy::ModelT &m) {
    m.programs[0]->reference->ops[0]->shape = {4, 31};
  });
  rt::CheckReport report;
  rt::Status s = Loaded(bytes).runChecked({}, report);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("kernel 'mm', op 0: reference: matmul operand "
                             "shapes do not fit its result"),
            std::string::npos)
      << s.message();
}

} // namespace
