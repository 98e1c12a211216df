//===- spyre-run.cpp - Run a compiled model on the simulator --------------===//
//
//   spyre-run OUT.spy --input IN0.npy [--input IN1.npy ...] --output-dir DIR
//             [--stats STATS.json] [--arch FILE] [--trace TRACE.json]
//             [--timing-only]
//
// Loads and validates the model, runs it once on the simulator (the three
// phases of docs/runtime.md) and writes DIR/output_<i>.npy in output order,
// plus statistics and a Chrome trace on request. Errors print
// "spyre-run: error: ..." and exit non-zero (2 for usage errors).
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Npy.h"
#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Runtime/Stats.h"
#include "spyre/Spy/SpyFormat.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace spyre;
using namespace spyre::rt;

namespace {

const char *const kUsage =
    "usage: spyre-run MODEL.spy --input IN0.npy [--input IN1.npy ...]\n"
    "                 --output-dir DIR [--stats STATS.json] [--arch FILE]\n"
    "                 [--trace TRACE.json] [--timing-only] [--runs N]\n";

const char *const kHelp =
    "Runs a compiled Spyre model (.spy) on the built-in Spyre simulator.\n"
    "\n"
    "Options:\n"
    "  --input FILE        an input as a .npy array, in the model's input\n"
    "                      order (repeat for each input); dtypes: f16 '<f2',\n"
    "                      f32 and bf16 '<f4', i8 '|i1', i32 '<i4', i64 '<i8',\n"
    "                      bool '|b1'\n"
    "  --output-dir DIR    where to write output_0.npy, output_1.npy, ...\n"
    "                      (created if missing)\n"
    "  --stats FILE        write simulated time, per-kernel time, per-core\n"
    "                      utilization, bytes moved and the roofline as JSON\n"
    "  --arch FILE         machine description (JSON) of the simulated device;\n"
    "                      default: the built-in arch/spyre.json\n"
    "  --trace FILE        write a Chrome trace (open in ui.perfetto.dev)\n"
    "  --timing-only       simulate timing only: no data is computed and no\n"
    "                      outputs are written (for models too large to run)\n"
    "  --runs N            run the model N times in one session (default 1):\n"
    "                      mutated buffers keep their state on the device and\n"
    "                      mutated inputs feed the next run, as repeated calls\n"
    "                      of the PyTorch module would; the outputs written are\n"
    "                      the last run's, the stats cover all runs\n"
    "  --help              show this help\n"
    "  --version           show the version\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "spyre-run: error: %s\n", message.c_str());
  return 1;
}

int usage(const std::string &message) {
  std::fprintf(stderr, "spyre-run: error: %s\n%sRun 'spyre-run --help' for "
                       "more information.\n",
               message.c_str(), kUsage);
  return 2;
}

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::string outputDir;
  std::string stats;
  std::string arch;
  std::string trace;
  bool timingOnly = false;
  int64_t runs = 1;
};

/// Returns -1 to continue, else the exit code.
int parseArgs(int argc, char **argv, Options &opts) {
  bool haveOutputDir = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        hasInlineValue = true;
      }
    }
    auto takeValue = [&](std::string &dst) {
      if (hasInlineValue) {
        dst = value;
        return true;
      }
      if (i + 1 >= argc)
        return false;
      dst = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s\n%s", kUsage, kHelp);
      return 0;
    }
    if (arg == "--version") {
      std::printf("spyre-run version %s (.spy format %u.%u)\n",
                  SPYRE_VERSION_STRING, spy::kFormatMajor, spy::kFormatMinor);
      return 0;
    }
    if (arg == "--timing-only") {
      if (hasInlineValue)
        return usage("--timing-only takes no value");
      opts.timingOnly = true;
      continue;
    }
    if (arg == "--runs") {
      std::string text;
      char *end = nullptr;
      if (!takeValue(text) || text.empty())
        return usage("--runs needs a value");
      opts.runs = std::strtoll(text.c_str(), &end, 10);
      if (*end || opts.runs < 1 || opts.runs > 1000000)
        return usage("--runs must be an integer in 1..1000000, got '" + text +
                     "'");
      continue;
    }
    std::string *dst = nullptr;
    std::string input;
    if (arg == "--input")
      dst = &input;
    else if (arg == "--output-dir")
      dst = &opts.outputDir;
    else if (arg == "--stats")
      dst = &opts.stats;
    else if (arg == "--arch")
      dst = &opts.arch;
    else if (arg == "--trace")
      dst = &opts.trace;
    if (dst) {
      if (!takeValue(*dst) || dst->empty())
        return usage(arg + " needs a value");
      if (dst == &input)
        opts.inputs.push_back(input);
      if (dst == &opts.outputDir)
        haveOutputDir = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-')
      return usage("unknown option '" + arg + "'");
    if (!opts.model.empty())
      return usage("more than one model given ('" + opts.model + "' and '" +
                   arg + "')");
    opts.model = arg;
  }
  if (opts.model.empty())
    return usage("no model given");
  if (!haveOutputDir)
    return usage("--output-dir is required");
  return -1;
}

int run(const Options &opts) {
  Arch arch = Arch::builtinDefault();
  if (!opts.arch.empty()) {
    std::string error;
    if (!Arch::load(opts.arch, arch, error))
      return fail(error);
  }
  SimOptions simOptions;
  simOptions.timingOnly = opts.timingOnly;
  simOptions.trace = !opts.trace.empty();
  SimulatorDevice device(arch, simOptions);

  std::unique_ptr<Model> model;
  Status s = Model::open(opts.model, &arch, model);
  if (!s.ok())
    return fail(s.message());
  for (const std::string &w : model->warnings())
    std::fprintf(stderr, "spyre-run: warning: %s: %s\n", opts.model.c_str(),
                 w.c_str());
  std::shared_ptr<const Model> shared(std::move(model));
  const Model &m = *shared;

  if (opts.inputs.size() != m.inputs().size())
    return fail("the model takes " + std::to_string(m.inputs().size()) +
                " input(s), " + std::to_string(opts.inputs.size()) +
                " given with --input");
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < opts.inputs.size(); ++i) {
    const TensorInfo &t = m.tensors()[m.inputs()[i]];
    NpyArray array;
    s = readNpy(opts.inputs[i], array);
    if (!s.ok())
      return fail("input " + std::to_string(i) + ": " + s.message());
    std::string expected = describeTensor(t.dtype, t.shape) + " ('" +
                           npyDescr(npyDTypeFor(t.dtype)) + "')";
    std::string got = std::string("'") + npyDescr(array.dtype) + "' [";
    for (size_t d = 0; d < array.shape.size(); ++d)
      got += (d ? ", " : "") + std::to_string(array.shape[d]);
    got += "]";
    HostTensor h;
    h.dtype = t.dtype;
    h.shape = array.shape;
    std::string error;
    if (array.shape != t.shape || !npyToHost(array, t.dtype, h.data, error))
      return fail("input " + std::to_string(i) + " ('" + t.name + "', " +
                  opts.inputs[i] + "): expected " + expected + ", got " + got);
    inputs.push_back(std::move(h));
  }

  std::unique_ptr<Session> session;
  s = Session::create(device, shared, session);
  if (!s.ok())
    return fail(s.message());
  std::vector<HostTensor> outputs;
  for (int64_t r = 0; r < opts.runs; ++r) {
    if (r > 0)
      session->applyInputMutations(inputs, outputs);
    s = session->run(inputs, outputs);
    if (!s.ok())
      return fail(s.message());
  }

  if (opts.timingOnly) {
    std::fprintf(stderr, "spyre-run: note: --timing-only: no outputs written\n");
  } else {
    std::error_code ec;
    std::filesystem::create_directories(opts.outputDir, ec);
    if (ec)
      return fail("cannot create output directory '" + opts.outputDir +
                  "': " + ec.message());
    for (size_t o = 0; o < outputs.size(); ++o) {
      std::string path =
          (std::filesystem::path(opts.outputDir) /
           ("output_" + std::to_string(o) + ".npy"))
              .string();
      s = writeNpy(path, hostToNpy(outputs[o].dtype, outputs[o].shape,
                                   outputs[o].data));
      if (!s.ok())
        return fail(s.message());
    }
  }
  if (!opts.stats.empty()) {
    s = writeStatsJson(device.stats(), arch, opts.stats);
    if (!s.ok())
      return fail(s.message());
  }
  if (!opts.trace.empty()) {
    s = device.writeTrace(opts.trace);
    if (!s.ok())
      return fail(s.message());
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  int code = parseArgs(argc, argv, opts);
  if (code >= 0)
    return code;
  try {
    return run(opts);
  } catch (const std::bad_alloc &) {
    return fail("out of host memory");
  } catch (const std::exception &e) {
    return fail(std::string("internal error: ") + e.what());
  }
}
