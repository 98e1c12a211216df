//===- StreamsTest.cpp - Streams, events and threads in the C API ---------===//

#include "TestModels.h"

#include "spyre/spyre_runtime.h"

#include <fstream>
#include <sstream>
#include <thread>

using namespace spyre;
using namespace spyre::test;

namespace {

/// basicModel (y = x @ w, x f32 [4, 32]) loaded on a device of its own.
struct Fixture {
  spyre_device_t *device = nullptr;
  spyre_model_t *model = nullptr;
  spyre_executable_t *exe = nullptr;

  explicit Fixture(bool trace = false) {
    std::string path = tempPath("streams.spy");
    std::vector<uint8_t> bytes = basicModel();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char *>(bytes.data()),
               std::streamsize(bytes.size()));
    EXPECT_EQ(spyre_simulator_create(nullptr, 0, trace, &device), SPYRE_OK);
    EXPECT_EQ(spyre_model_open(path.c_str(), device, &model), SPYRE_OK);
    EXPECT_EQ(spyre_executable_load(device, model, &exe), SPYRE_OK);
  }
  ~Fixture() {
    spyre_executable_destroy(exe);
    spyre_model_destroy(model);
    spyre_device_destroy(device);
  }
  spyre_tensor_t *tensor(bool input) {
    spyre_tensor_t *t = nullptr;
    EXPECT_EQ(input ? spyre_tensor_create_input(device, model, 0, &t)
                    : spyre_tensor_create_output(device, model, 0, &t),
              SPYRE_OK);
    return t;
  }
  spyre_workspace_t *workspace() {
    spyre_workspace_t *ws = nullptr;
    EXPECT_EQ(spyre_workspace_create(exe, &ws), SPYRE_OK);
    return ws;
  }
};

std::vector<float> reference(const std::vector<float> &x) {
  std::vector<float> w = basicWeight(), y(128, 0.0f);
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 32; ++p)
      for (int j = 0; j < 32; ++j)
        y[size_t(i * 32 + j)] += x[size_t(i * 32 + p)] * w[size_t(p * 32 + j)];
  return y;
}

void expectNear(const std::vector<float> &a, const std::vector<float> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], 1e-4f) << i;
}

double elapsed(spyre_event_t *a, spyre_event_t *b) {
  double ns = -1;
  EXPECT_EQ(spyre_event_elapsed_ns(a, b, &ns), SPYRE_OK) << spyre_last_error();
  return ns;
}

spyre_event_t *recorded(Fixture &f, spyre_stream_t *s) {
  spyre_event_t *e = nullptr;
  EXPECT_EQ(spyre_event_create(f.device, &e), SPYRE_OK);
  EXPECT_EQ(spyre_event_record(e, s), SPYRE_OK);
  return e;
}

TEST(Streams, UploadLaunchDownloadRunInOrder) {
  Fixture f;
  spyre_tensor_t *x = f.tensor(true), *y = f.tensor(false);
  spyre_workspace_t *ws = f.workspace();
  spyre_stream_t *s = nullptr;
  ASSERT_EQ(spyre_stream_create(f.device, &s), SPYRE_OK);
  std::vector<float> xs = randomFloats(128, 11), ys(128);
  spyre_event_t *begin = recorded(f, s);
  ASSERT_EQ(spyre_stream_upload(s, x, xs.data(), 512), SPYRE_OK);
  spyre_event_t *uploaded = recorded(f, s);
  ASSERT_EQ(spyre_stream_launch(s, f.exe, ws, &x, 1, &y, 1), SPYRE_OK);
  spyre_event_t *launched = recorded(f, s);
  ASSERT_EQ(spyre_stream_download(s, y, ys.data(), 512), SPYRE_OK);
  spyre_event_t *end = recorded(f, s);
  // Handles may go while work is pending: the work keeps what it uses.
  spyre_tensor_destroy(x);
  spyre_workspace_destroy(ws);
  ASSERT_EQ(spyre_stream_synchronize(s), SPYRE_OK) << spyre_last_error();
  EXPECT_EQ(spyre_stream_query(s), SPYRE_OK);
  EXPECT_EQ(spyre_event_query(end), SPYRE_OK);
  expectNear(ys, reference(xs));

  // Simulated time: each transfer pays the PCIe latency plus its bytes; the
  // launch the simulator's time.
  const Arch &a = arch();
  double pcie = double(a.pcieLatencyNs) + 512.0 / a.pcieBytesPerS * 1e9;
  EXPECT_NEAR(elapsed(begin, uploaded), pcie, 1e-3);
  spyre_sim_stats_t stats;
  ASSERT_EQ(spyre_simulator_stats(f.device, &stats), SPYRE_OK);
  EXPECT_NEAR(elapsed(uploaded, launched), stats.total_ns, 1e-3);
  EXPECT_NEAR(elapsed(launched, end), pcie, 1e-3);
  for (spyre_event_t *e : {begin, uploaded, launched, end})
    spyre_event_destroy(e);
  spyre_tensor_destroy(y);
  EXPECT_EQ(spyre_stream_destroy(s), SPYRE_OK);
}

TEST(Streams, TransfersOverlapLaunchesOfAnotherStream) {
  Fixture f(/*trace=*/true);
  spyre_tensor_t *x = f.tensor(true), *y = f.tensor(false),
                 *x2 = f.tensor(true);
  spyre_workspace_t *ws = f.workspace();
  spyre_stream_t *compute = nullptr, *copy = nullptr, *join = nullptr;
  ASSERT_EQ(spyre_stream_create(f.device, &compute), SPYRE_OK);
  ASSERT_EQ(spyre_stream_create(f.device, &copy), SPYRE_OK);
  ASSERT_EQ(spyre_stream_create(f.device, &join), SPYRE_OK);
  std::vector<float> xs = randomFloats(128, 12);
  ASSERT_EQ(spyre_tensor_upload(x, xs.data(), 512), SPYRE_OK);
  spyre_event_t *start = recorded(f, compute);
  ASSERT_EQ(spyre_stream_wait_event(copy, start), SPYRE_OK);
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(spyre_stream_launch(compute, f.exe, ws, &x, 1, &y, 1), SPYRE_OK);
  for (int i = 0; i < 16; ++i)
    ASSERT_EQ(spyre_stream_upload(copy, x2, xs.data(), 512), SPYRE_OK);
  spyre_event_t *computeDone = recorded(f, compute);
  spyre_event_t *copyDone = recorded(f, copy);
  ASSERT_EQ(spyre_stream_wait_event(join, computeDone), SPYRE_OK);
  ASSERT_EQ(spyre_stream_wait_event(join, copyDone), SPYRE_OK);
  spyre_event_t *both = recorded(f, join);
  ASSERT_EQ(spyre_event_synchronize(both), SPYRE_OK);
  double launches = elapsed(start, computeDone);
  double uploads = elapsed(start, copyDone);
  double total = elapsed(start, both);
  EXPECT_GT(launches, 0);
  EXPECT_GT(uploads, 0);
  // Overlapped: the whole is the longer of the two, not their sum.
  EXPECT_DOUBLE_EQ(total, std::max(launches, uploads));
  EXPECT_LT(total, launches + uploads);

  std::string tracePath = tempPath("streams_trace.json");
  ASSERT_EQ(spyre_simulator_write_trace(f.device, tracePath.c_str()), SPYRE_OK);
  std::stringstream trace;
  trace << std::ifstream(tracePath).rdbuf();
  for (const char *track : {"\"PCIe host to device\"", "\"stream 1\"",
                            "\"stream 2\"", "\"upload 'x'\""})
    EXPECT_NE(trace.str().find(track), std::string::npos) << track;
  for (spyre_event_t *e : {start, computeDone, copyDone, both})
    spyre_event_destroy(e);
  for (spyre_stream_t *s : {compute, copy, join})
    EXPECT_EQ(spyre_stream_destroy(s), SPYRE_OK);
  for (spyre_tensor_t *t : {x, y, x2})
    spyre_tensor_destroy(t);
  spyre_workspace_destroy(ws);
}

TEST(Streams, AWaitOrdersWorkAcrossStreams) {
  Fixture f;
  spyre_tensor_t *x = f.tensor(true), *y = f.tensor(false);
  spyre_workspace_t *ws = f.workspace();
  spyre_stream_t *producer = nullptr, *consumer = nullptr;
  ASSERT_EQ(spyre_stream_create(f.device, &producer), SPYRE_OK);
  ASSERT_EQ(spyre_stream_create(f.device, &consumer), SPYRE_OK);
  std::vector<float> xs = randomFloats(128, 13), ys(128);
  spyre_event_t *start = recorded(f, producer);
  ASSERT_EQ(spyre_stream_upload(producer, x, xs.data(), 512), SPYRE_OK);
  spyre_event_t *ready = recorded(f, producer);
  ASSERT_EQ(spyre_stream_wait_event(consumer, ready), SPYRE_OK);
  ASSERT_EQ(spyre_stream_launch(consumer, f.exe, ws, &x, 1, &y, 1), SPYRE_OK);
  ASSERT_EQ(spyre_stream_download(consumer, y, ys.data(), 512), SPYRE_OK);
  spyre_event_t *end = recorded(f, consumer);
  ASSERT_EQ(spyre_stream_synchronize(consumer), SPYRE_OK);
  expectNear(ys, reference(xs));
  // The consumer started after the upload: its launch and download follow.
  EXPECT_GT(elapsed(start, end), elapsed(start, ready));
  EXPECT_NEAR(elapsed(ready, end), elapsed(start, end) - elapsed(start, ready),
              1e-6);
  for (spyre_event_t *e : {start, ready, end})
    spyre_event_destroy(e);
  spyre_stream_destroy(producer);
  spyre_stream_destroy(consumer);
  spyre_tensor_destroy(x);
  spyre_tensor_destroy(y);
  spyre_workspace_destroy(ws);
}

TEST(Streams, AFailedCommandIsTheStreamsErrorAndSkipsTheRest) {
  Fixture f;
  spyre_tensor_t *x = f.tensor(true), *y = f.tensor(false);
  spyre_workspace_t *ws = f.workspace();
  spyre_tensor_t *w = nullptr;
  ASSERT_EQ(spyre_executable_weight(f.exe, "w", &w), SPYRE_OK);
  spyre_stream_t *s = nullptr;
  ASSERT_EQ(spyre_stream_create(f.device, &s), SPYRE_OK);
  // The weight (f32 [32, 32]) does not fit the input (f32 [4, 32]).
  ASSERT_EQ(spyre_stream_launch(s, f.exe, ws, &w, 1, &y, 1), SPYRE_OK);
  std::vector<float> ys(128, 7.0f);
  ASSERT_EQ(spyre_stream_download(s, y, ys.data(), 512), SPYRE_OK);
  spyre_event_t *after = recorded(f, s);
  EXPECT_EQ(spyre_stream_synchronize(s), SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(spyre_last_error()).find("input 0 ('x')"),
            std::string::npos)
      << spyre_last_error();
  EXPECT_EQ(spyre_stream_query(s), SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(spyre_event_query(after), SPYRE_OK); // Events still happen.
  EXPECT_EQ(ys[0], 7.0f);                        // The download was skipped.
  // Misuse at enqueue time.
  EXPECT_EQ(spyre_stream_launch(s, f.exe, ws, nullptr, 1, &y, 1),
            SPYRE_ERROR_INVALID_ARGUMENT);
  Fixture other;
  spyre_tensor_t *foreign = other.tensor(true);
  EXPECT_EQ(spyre_stream_upload(s, foreign, ys.data(), 512),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(spyre_last_error()).find("on another device"),
            std::string::npos);
  spyre_event_t *never = nullptr;
  ASSERT_EQ(spyre_event_create(f.device, &never), SPYRE_OK);
  double ns;
  EXPECT_EQ(spyre_event_elapsed_ns(never, after, &ns),
            SPYRE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(spyre_event_synchronize(never), SPYRE_OK); // Nothing to wait for.
  EXPECT_EQ(spyre_stream_destroy(s), SPYRE_ERROR_INVALID_ARGUMENT);
  spyre_event_destroy(never);
  spyre_event_destroy(after);
  spyre_tensor_destroy(foreign);
  for (spyre_tensor_t *t : {x, y, w})
    spyre_tensor_destroy(t);
  spyre_workspace_destroy(ws);
}

TEST(Streams, ThreadsShareADeviceAndALoadedModel) {
  Fixture f;
  constexpr int kThreads = 4, kRounds = 12;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Odd threads use streams, even ones the synchronous calls.
      spyre_tensor_t *x = f.tensor(true), *y = f.tensor(false);
      spyre_workspace_t *ws = f.workspace();
      spyre_stream_t *s = nullptr;
      if (t % 2)
        spyre_stream_create(f.device, &s);
      for (int r = 0; r < kRounds; ++r) {
        std::vector<float> xs = randomFloats(128, uint32_t(100 * t + r)),
                           ys(128);
        if (s) {
          spyre_stream_upload(s, x, xs.data(), 512);
          spyre_stream_launch(s, f.exe, ws, &x, 1, &y, 1);
          spyre_stream_download(s, y, ys.data(), 512);
          if (spyre_stream_synchronize(s) != SPYRE_OK)
            ++failures[size_t(t)];
        } else if (spyre_tensor_upload(x, xs.data(), 512) != SPYRE_OK ||
                   spyre_launch_tensors(f.exe, ws, &x, 1, &y, 1) != SPYRE_OK ||
                   spyre_tensor_download(y, ys.data(), 512) != SPYRE_OK) {
          ++failures[size_t(t)];
        }
        std::vector<float> want = reference(xs);
        for (size_t i = 0; i < want.size(); ++i)
          if (std::abs(ys[i] - want[i]) > 1e-4f) {
            ++failures[size_t(t)];
            break;
          }
      }
      spyre_stream_destroy(s);
      spyre_workspace_destroy(ws);
      spyre_tensor_destroy(x);
      spyre_tensor_destroy(y);
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
  spyre_sim_stats_t stats;
  ASSERT_EQ(spyre_simulator_stats(f.device, &stats), SPYRE_OK);
  EXPECT_EQ(stats.launches, uint64_t(kThreads * kRounds));
}

} // namespace
