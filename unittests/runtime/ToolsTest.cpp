//===- ToolsTest.cpp - spyre-run and spyre-npy-compare --------------------===//
//
// Runs the built tools as a user would and checks their files, output and
// exit codes.
//
//===----------------------------------------------------------------------===//

#include "TestModels.h"

#include "spyre/Runtime/Npy.h"

#include "spyre/Support/Json.h"

#include <cstdio>
#include <fstream>
#include <sys/wait.h>

using namespace spyre;
using namespace spyre::test;

namespace {

struct Result {
  int exitCode;
  std::string output;
};

/// Runs a shell command, capturing stdout and stderr.
Result run(const std::string &command) {
  Result r{-1, ""};
  std::FILE *p = popen((command + " 2>&1").c_str(), "r");
  if (!p)
    return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
    r.output.append(buf, n);
  int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class Tools : public ::testing::Test {
protected:
  void SetUp() override {
    dir = tempPath("tools_") +
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string mk = "mkdir -p '" + dir + "'";
    ASSERT_EQ(std::system(mk.c_str()), 0);
    model = dir + "/model.spy";
    std::vector<uint8_t> bytes = basicModel();
    std::ofstream(model, std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()),
               std::streamsize(bytes.size()));
    x = randomFloats(128, 9);
    writeArray(dir + "/x.npy", rt::NpyDType::F4, {4, 32}, toBytes(x));
  }
  void writeArray(const std::string &path, rt::NpyDType dtype,
                  std::vector<int64_t> shape, std::vector<uint8_t> data) {
    rt::NpyArray a;
    a.dtype = dtype;
    a.shape = std::move(shape);
    a.data = std::move(data);
    ASSERT_TRUE(rt::writeNpy(path, a).ok());
  }
  std::string spyreRun() const { return std::string(SPYRE_RUN_PATH) + " "; }
  std::string compare() const {
    return std::string(SPYRE_NPY_COMPARE_PATH) + " ";
  }

  std::string dir, model;
  std::vector<float> x;
};

TEST_F(Tools, SpyreRunWritesOutputsAndStatistics) {
  Result r = run(spyreRun() + model + " --input " + dir + "/x.npy " +
                 "--output-dir " + dir + "/out --stats " + dir +
                 "/stats.json --trace " + dir + "/trace.json");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  rt::NpyArray y;
  ASSERT_TRUE(rt::readNpy(dir + "/out/output_0.npy", y).ok());
  EXPECT_EQ(y.dtype, rt::NpyDType::F4);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{4, 32}));
  std::vector<float> w = basicWeight(), yv = fromBytes<float>(y.data);
  for (int j = 0; j < 32; ++j) {
    float ref = 0;
    for (int p = 0; p < 32; ++p)
      ref += x[size_t(32 + p)] * w[size_t(p * 32 + j)];
    EXPECT_NEAR(yv[size_t(32 + j)], ref, 1e-5f);
  }
  std::ifstream statsFile(dir + "/stats.json");
  nlohmann::json stats = nlohmann::json::parse(statsFile);
  EXPECT_GT(double(stats["total_ns"]), 0.0);
  EXPECT_EQ(stats["kernels"][0]["name"], "mm");
  EXPECT_TRUE(stats.contains("roofline_ns"));
  std::ifstream traceFile(dir + "/trace.json");
  nlohmann::json trace = nlohmann::json::parse(traceFile);
  EXPECT_GT(trace["traceEvents"].size(), 6u);

  // The output compares equal to itself and differs from the input.
  r = run(compare() + dir + "/out/output_0.npy " + dir + "/out/output_0.npy");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("max abs error: 0"), std::string::npos);
  r = run(compare() + dir + "/out/output_0.npy " + dir + "/x.npy");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  r = run(compare() + dir + "/out/output_0.npy " + dir + "/x.npy --atol 1000");
  EXPECT_EQ(r.exitCode, 0) << r.output;

  // Timing only: statistics, no outputs.
  r = run(spyreRun() + model + " --input " + dir + "/x.npy --output-dir " +
          dir + "/timing --timing-only --stats " + dir + "/t.json");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  std::ifstream noOutput(dir + "/timing/output_0.npy");
  EXPECT_FALSE(noOutput.good());
}

TEST_F(Tools, SpyreRunErrors) {
  writeArray(dir + "/bad.npy", rt::NpyDType::F4, {4, 31},
             std::vector<uint8_t>(4 * 31 * 4));
  writeArray(dir + "/f2.npy", rt::NpyDType::F2, {4, 32},
             std::vector<uint8_t>(4 * 32 * 2));
  struct Case {
    std::string args;
    int exitCode;
    std::string message;
  };
  std::vector<Case> cases = {
      {model + " --input " + dir + "/bad.npy --output-dir " + dir, 1,
       "spyre-run: error: input 0 ('x'), " + dir +
           "/bad.npy: expected f32 [4, 32] ('<f4'), got '<f4' [4, 31]"},
      {model + " --input " + dir + "/f2.npy --output-dir " + dir, 1,
       "got '<f2' [4, 32]"},
      {model + " --output-dir " + dir, 1, "no --input for input 0 ('x')"},
      {model + " --input " + dir + "/x.npy", 2, "--output-dir is required"},
      {model + " --input", 2, "--input: 1 required [NAME=]FILE missing"},
      {model + " --frobnicate", 2, "unknown option '--frobnicate'"},
      {dir + "/missing.spy --output-dir " + dir, 1, "cannot open"},
      {dir + "/x.npy --output-dir " + dir, 1, "bad magic"},
      {model + " --input " + dir + "/x.npy --output-dir " + dir +
           " --arch /nonexistent.json",
       1, "cannot open machine description"},
      {"", 2, "no model given"},
  };
  for (const Case &c : cases) {
    Result r = run(spyreRun() + c.args);
    EXPECT_EQ(r.exitCode, c.exitCode) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n"
                                                           << r.output;
    EXPECT_NE(r.output.find("spyre-run: error: "), std::string::npos);
  }
  Result r = run(spyreRun() + "--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("--timing-only"), std::string::npos);
  r = run(spyreRun() + "--version");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.output.find("spyre-run version"), std::string::npos);

  r = run(compare() + dir + "/x.npy " + dir + "/bad.npy");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("shapes differ"), std::string::npos);
  r = run(compare() + dir + "/x.npy");
  EXPECT_EQ(r.exitCode, 2);
}

} // namespace
