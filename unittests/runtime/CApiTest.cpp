//===- CApiTest.cpp - The C API -------------------------------------------===//

#include "TestModels.h"

#include "spyre/spyre_runtime.h"

#include <cstdio>
#include <fstream>

using namespace spyre;
using namespace spyre::test;

namespace {

std::string writeFile(const std::string &name,
                      const std::vector<uint8_t> &bytes) {
  std::string path = tempPath("") + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()),
             std::streamsize(bytes.size()));
  return path;
}

TEST(CApi, RunsAModelThroughTheThreePhases) {
  std::string path = writeFile("capi.spy", basicModel());
  spyre_device_t *device = nullptr;
  ASSERT_EQ(spyre_simulator_create(nullptr, 0, 0, &device), SPYRE_OK);
  spyre_model_t *model = nullptr;
  ASSERT_EQ(spyre_model_open(path.c_str(), device, &model), SPYRE_OK)
      << spyre_last_error();
  ASSERT_EQ(spyre_model_num_inputs(model), 1u);
  ASSERT_EQ(spyre_model_num_outputs(model), 1u);
  EXPECT_EQ(spyre_model_num_warnings(model), 0u);
  spyre_tensor_info_t in, out;
  ASSERT_EQ(spyre_model_input_info(model, 0, &in), SPYRE_OK);
  ASSERT_EQ(spyre_model_output_info(model, 0, &out), SPYRE_OK);
  EXPECT_STREQ(in.name, "x");
  EXPECT_STREQ(out.name, "logits");
  EXPECT_EQ(in.dtype, SPYRE_DTYPE_F32);
  ASSERT_EQ(in.rank, 2u);
  EXPECT_EQ(in.shape[1], 32);
  EXPECT_EQ(in.host_bytes, 512u);
  EXPECT_EQ(out.aliases_input, -1);

  spyre_executable_t *exe = nullptr;
  ASSERT_EQ(spyre_executable_load(device, model, &exe), SPYRE_OK);
  spyre_workspace_t *ws = nullptr;
  ASSERT_EQ(spyre_workspace_create(exe, &ws), SPYRE_OK);
  spyre_device_addr_t inBuf, outBuf;
  ASSERT_EQ(
      spyre_device_alloc(device, in.device_bytes, in.device_alignment, &inBuf),
      SPYRE_OK);
  ASSERT_EQ(spyre_device_alloc(device, out.device_bytes, out.device_alignment,
                               &outBuf),
            SPYRE_OK);
  std::vector<float> x = randomFloats(128, 5);
  ASSERT_EQ(spyre_copy_input_to_device(model, device, 0, x.data(), 512, inBuf),
            SPYRE_OK);
  ASSERT_EQ(spyre_launch(exe, ws, &inBuf, 1, &outBuf, 1), SPYRE_OK)
      << spyre_last_error();
  std::vector<float> y(128);
  ASSERT_EQ(
      spyre_copy_output_from_device(model, device, 0, outBuf, y.data(), 512),
      SPYRE_OK);
  std::vector<float> w = basicWeight();
  for (int j = 0; j < 32; ++j) {
    float ref = 0;
    for (int p = 0; p < 32; ++p)
      ref += x[size_t(p)] * w[size_t(p * 32 + j)];
    EXPECT_NEAR(y[size_t(j)], ref, 1e-5f);
  }
  spyre_sim_stats_t stats;
  ASSERT_EQ(spyre_simulator_stats(device, &stats), SPYRE_OK);
  EXPECT_GT(stats.total_ns, 0.0);
  EXPECT_EQ(stats.launches, 1u);
  EXPECT_EQ(stats.num_kernels, 1u);
  std::string statsPath = tempPath("capi_stats.json");
  EXPECT_EQ(spyre_simulator_write_stats(device, statsPath.c_str()), SPYRE_OK);
  // No trace was requested.
  EXPECT_EQ(spyre_simulator_write_trace(device, "/tmp/x.json"),
            SPYRE_ERROR_INVALID_ARGUMENT);

  // Errors carry a message.
  EXPECT_EQ(spyre_launch(exe, ws, &inBuf, 0, &outBuf, 1),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(spyre_last_error()).find("launch with 0 inputs"),
            std::string::npos);
  EXPECT_EQ(spyre_model_input_info(model, 3, &in),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(spyre_copy_input_to_device(model, device, 0, x.data(), 100, inBuf),
            SPYRE_ERROR_INVALID_ARGUMENT);

  // Handles may be destroyed in any order.
  spyre_device_destroy(device);
  spyre_model_destroy(model);
  spyre_executable_destroy(exe);
  spyre_workspace_destroy(ws);
  std::remove(path.c_str());
}

TEST(CApi, DeviceTensorsAndASharedWeight) {
  std::string path = writeFile("capi_tensors.spy", basicModel());
  spyre_device_t *device = nullptr;
  ASSERT_EQ(spyre_simulator_create(nullptr, 0, 0, &device), SPYRE_OK);
  spyre_model_t *model = nullptr;
  ASSERT_EQ(spyre_model_open(path.c_str(), device, &model), SPYRE_OK);
  spyre_executable_t *a = nullptr, *b = nullptr;
  ASSERT_EQ(spyre_executable_load(device, model, &a), SPYRE_OK);
  ASSERT_EQ(spyre_executable_load(device, model, &b), SPYRE_OK);
  spyre_workspace_t *wsB = nullptr;
  ASSERT_EQ(spyre_workspace_create(b, &wsB), SPYRE_OK);
  spyre_tensor_t *x = nullptr, *y = nullptr, *w = nullptr;
  ASSERT_EQ(spyre_tensor_create_input(device, model, 0, &x), SPYRE_OK);
  ASSERT_EQ(spyre_tensor_create_output(device, model, 0, &y), SPYRE_OK);
  spyre_tensor_info_t info;
  ASSERT_EQ(spyre_tensor_info(y, &info), SPYRE_OK);
  EXPECT_STREQ(info.name, "logits");
  EXPECT_EQ(info.host_bytes, 512u);
  EXPECT_NE(spyre_tensor_address(x), 0u);

  // A's weight, doubled in place, seen by B once B is bound to it.
  ASSERT_EQ(spyre_executable_weight(a, "w", &w), SPYRE_OK);
  std::vector<float> doubled = basicWeight();
  for (float &v : doubled)
    v *= 2;
  ASSERT_EQ(spyre_tensor_upload(w, doubled.data(), doubled.size() * 4),
            SPYRE_OK);
  ASSERT_EQ(spyre_executable_bind_weight(b, "w", w), SPYRE_OK)
      << spyre_last_error();
  spyre_executable_destroy(a); // The weight lives on in B and in `w`.
  std::vector<float> xs = randomFloats(128, 6);
  ASSERT_EQ(spyre_tensor_upload(x, xs.data(), 512), SPYRE_OK);
  ASSERT_EQ(spyre_launch_tensors(b, wsB, &x, 1, &y, 1), SPYRE_OK)
      << spyre_last_error();
  std::vector<float> ys(128);
  ASSERT_EQ(spyre_tensor_download(y, ys.data(), 512), SPYRE_OK);
  std::vector<float> wv = basicWeight();
  for (int j = 0; j < 32; ++j) {
    float ref = 0;
    for (int p = 0; p < 32; ++p)
      ref += xs[size_t(p)] * 2 * wv[size_t(p * 32 + j)];
    EXPECT_NEAR(ys[size_t(j)], ref, 1e-4f);
  }

  // Misuse is an error with a message, never a crash.
  EXPECT_EQ(spyre_launch_tensors(b, wsB, &w, 1, &y, 1),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(spyre_last_error()).find("input 0 ('x')"),
            std::string::npos);
  EXPECT_EQ(spyre_executable_bind_weight(b, "nope", w),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(spyre_last_error()).find("no weight or buffer 'nope'"),
            std::string::npos);
  EXPECT_EQ(spyre_executable_bind_weight(b, "w", x),
            SPYRE_ERROR_INVALID_ARGUMENT);
  spyre_tensor_t *none = nullptr;
  EXPECT_EQ(spyre_tensor_create_input(device, model, 3, &none),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(spyre_tensor_upload(nullptr, xs.data(), 512),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(spyre_tensor_address(nullptr), 0u);

  spyre_tensor_destroy(w);
  spyre_tensor_destroy(y);
  spyre_workspace_destroy(wsB);
  spyre_executable_destroy(b);
  spyre_model_destroy(model);
  spyre_device_destroy(device);
  spyre_tensor_destroy(x); // The handle keeps its device alive.
  spyre_tensor_destroy(nullptr);
}

TEST(CApi, ReportsInvalidFilesAndArguments) {
  spyre_model_t *model = nullptr;
  std::vector<uint8_t> bytes = basicModel();
  bytes[0] = 'X';
  std::string path = writeFile("capi_bad.spy", bytes);
  EXPECT_EQ(spyre_model_open(path.c_str(), nullptr, &model),
            SPYRE_ERROR_INVALID_FILE);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(std::string(spyre_last_error()).find("bad magic"),
            std::string::npos);
  path = writeFile("capi_major.spy", basicModel(arch(), 7, 0));
  EXPECT_EQ(spyre_model_open(path.c_str(), nullptr, &model),
            SPYRE_ERROR_VERSION_MISMATCH);
  EXPECT_EQ(spyre_model_open(nullptr, nullptr, &model),
            SPYRE_ERROR_INVALID_ARGUMENT);
  spyre_device_t *device = nullptr;
  EXPECT_EQ(spyre_simulator_create("/nonexistent/arch.json", 0, 0, &device),
            SPYRE_ERROR_INVALID_FILE);
  EXPECT_NE(std::string(spyre_last_error()).find("cannot open"),
            std::string::npos);
  EXPECT_EQ(spyre_device_alloc(nullptr, 1, 1, nullptr),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(spyre_model_num_inputs(nullptr), 0u);
  spyre_device_destroy(nullptr);
  spyre_model_destroy(nullptr);
  EXPECT_STREQ(spyre_spy_format_version(),
               (std::to_string(spy::kFormatMajor) + "." +
                std::to_string(spy::kFormatMinor))
                   .c_str());
}

} // namespace
