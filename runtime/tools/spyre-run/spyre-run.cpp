//===- spyre-run.cpp - Run a compiled model on the simulator --------------===//
//
//   spyre-run OUT.spy --input IN0.npy [--input IN1.npy ...] --output-dir DIR
//             [--stats STATS.json] [--arch FILE] [--trace TRACE.json]
//             [--timing-only] [--runs N] [--check [--reference DIR]]
//
// Loads and validates the model, runs it on the simulator (the three phases
// of docs/runtime.md) and writes DIR/output_<i>.npy in output order, plus
// statistics and a Chrome trace on request. --check compares every kernel
// with a host reference of its compute ops (spyre/Runtime/Check.h) and
// exits 1 when one diverges. Options parse with CLI11
// (`--opt value` or `--opt=value`, in any order). Errors print
// "spyre-run: error: ..." and exit non-zero (2 for usage errors).
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Check.h"
#include "spyre/Runtime/Npy.h"
#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Runtime/Stats.h"
#include "spyre/Spy/SpyFormat.h"

#include "../CommandLine.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace spyre;
using namespace spyre::rt;

namespace {

const char *const kUsage =
    "usage: spyre-run MODEL.spy --input [NAME=]IN0.npy [--input ...]\n"
    "                 --output-dir DIR [--stats STATS.json] [--arch FILE]\n"
    "                 [--trace TRACE.json] [--timing-only] [--runs N]\n"
    "                 [--profile] [--no-verify] [--weights FILE]\n"
    "                 [--check [--reference DIR]]\n";

constexpr int64_t kMaxRuns = 1000000;

int fail(const std::string &message) {
  std::fprintf(stderr, "spyre-run: error: %s\n", message.c_str());
  return 1;
}

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::string outputDir;
  std::string stats;
  std::string arch;
  std::string trace;
  bool timingOnly = false;
  bool noVerify = false;
  std::string weights;
  bool profile = false;
  bool check = false;
  std::string referenceDir;
  std::string runsText;
  int64_t runs = 1;
};

void addOptions(CLI::App &app, Options &opts) {
  app.set_version_flag("--version",
                       std::string("spyre-run version ") +
                           SPYRE_VERSION_STRING + " (.spy format " +
                           std::to_string(spy::kFormatMajor) + "." +
                           std::to_string(spy::kFormatMinor) + ")",
                       "show the version");
  app.add_option("model", opts.model, "the compiled model (.spy)")
      ->type_name("MODEL.spy");
  app.add_option("--input", opts.inputs,
                 "an input as a .npy array (repeat for each input): "
                 "NAME=FILE binds it to the input of that exported name "
                 "(spyre-translate --spy-to-text lists them), a bare FILE "
                 "takes the next unbound input in the model's order; "
                 "dtypes: f16 '<f2', f32 and bf16 '<f4', i8 '|i1', i32 "
                 "'<i4', i64 '<i8', bool '|b1'")
      ->type_name("[NAME=]FILE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  app.add_option("--output-dir", opts.outputDir,
                 "where to write output_0.npy, output_1.npy, ... and the same "
                 "arrays as NAME.npy under the outputs' exported names "
                 "(created if missing); required unless --timing-only")
      ->type_name("DIR");
  app.add_option("--stats", opts.stats,
                 "write simulated time, per-kernel time, per-core "
                 "utilization, bytes moved and the roofline as JSON")
      ->type_name("FILE");
  app.add_option("--arch", opts.arch,
                 "machine description (JSON) of the simulated device; "
                 "default: the built-in arch/spyre.json")
      ->type_name("FILE");
  app.add_option("--trace", opts.trace,
                 "write a Chrome trace (open in ui.perfetto.dev)")
      ->type_name("FILE");
  app.add_flag("--timing-only", opts.timingOnly,
               "simulate timing only: no data is computed and no outputs are "
               "written; inputs are optional (checked when given), so models "
               "too large to run need no data");
  app.add_option("--weights", opts.weights,
                 "the model's weights file (default: the one its .spy names, "
                 "a bare name beside the .spy)")
      ->type_name("FILE");
  app.add_flag("--no-verify", opts.noVerify,
               "skip recomputing the content hash of every segment at load "
               "(a corrupt file then runs and may give wrong answers)");
  app.add_flag("--profile", opts.profile,
               "print where the simulated time goes: the total against the "
               "roofline, launch and barriers, the time per source module, "
               "then per kernel its time, share, cores, bound, bytes moved, "
               "PT/SFP/DMA/ring utilization and ratio to its roofline");
  app.add_flag("--check", opts.check,
               "check every kernel against a host reference of its compute "
               "ops (the same element semantics) on the inputs the device "
               "gave it, and report the first kernel that diverges with its "
               "ops and their source lines; exits 1 on a divergence");
  app.add_option("--reference", opts.referenceDir,
                 "with --check: a directory of PyTorch's values of graph "
                 "nodes (NODE.npy, tools/export --intermediates): each "
                 "kernel result that is a node's final value is compared "
                 "with it, and the first node that differs is reported")
      ->type_name("DIR");
  app.add_option("--runs", opts.runsText,
                 "run the model N times in one session (default 1): mutated "
                 "buffers keep their state on the device and mutated inputs "
                 "feed the next run, as repeated calls of the PyTorch module "
                 "would; the outputs written are the last run's, the stats "
                 "cover all runs")
      ->type_name("N");
}

/// The checks CLI11 cannot make; "" when the options are usable.
std::string checkArgs(const tools::CommandLine &cl, Options &opts) {
  std::string error = cl.unknownOption();
  if (!error.empty())
    return error;
  std::string extra = cl.extraArgument();
  if (!extra.empty())
    return "more than one model given ('" + opts.model + "' and '" + extra +
           "')";
  if (opts.model.empty())
    return "no model given";
  if (!opts.runsText.empty()) {
    char *end = nullptr;
    opts.runs = std::strtoll(opts.runsText.c_str(), &end, 10);
    if (*end || opts.runs < 1 || opts.runs > kMaxRuns)
      return "--runs must be an integer in 1.." + std::to_string(kMaxRuns) +
             ", got '" + opts.runsText + "'";
  }
  if (opts.check && opts.timingOnly)
    return "--check needs data: it cannot run with --timing-only";
  // A checked run launches kernel by kernel and reads every kernel's
  // tensors back: its timing is not the model's.
  if (opts.check && (!opts.stats.empty() || !opts.trace.empty() ||
                     opts.profile || !opts.runsText.empty()))
    return "--check runs the model once, kernel by kernel; its timing is not "
           "the model's: use --stats, --trace, --profile and --runs without it";
  if (!opts.referenceDir.empty() && !opts.check)
    return "--reference is used with --check";
  if (opts.outputDir.empty() && !opts.timingOnly && !opts.check)
    return "--output-dir is required (except with --timing-only or --check)";
  return {};
}

/// Returns -1 to continue, else the exit code.
int parseArgs(int argc, char **argv, Options &opts) {
  tools::CommandLine cl(
      "spyre-run",
      "Runs a compiled Spyre model (.spy) on the built-in Spyre simulator.",
      kUsage);
  addOptions(cl.app(), opts);
  int code = cl.parse(argc, argv);
  if (code >= 0)
    return code;
  std::string error = checkArgs(cl, opts);
  return error.empty() ? -1 : cl.usageError(error);
}

std::string errnoText(int error) { return std::strerror(error); }

/// Why a file cannot be written at `path` ("" when it can): the OS's reason.
std::string fileUnwritable(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return errnoText(EISDIR);
    return ::access(path.c_str(), W_OK) == 0 ? "" : errnoText(errno);
  }
  if (errno != ENOENT)
    return errnoText(errno);
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (parent.empty())
    parent = ".";
  if (::stat(parent.c_str(), &st) != 0)
    return errnoText(errno);
  if (!S_ISDIR(st.st_mode))
    return errnoText(ENOTDIR);
  return ::access(parent.c_str(), W_OK | X_OK) == 0 ? "" : errnoText(errno);
}

/// Why files cannot be written in directory `path`, created if missing (""
/// when they can): the OS's reason.
std::string directoryUnwritable(const std::string &path) {
  std::filesystem::path p(path);
  for (;;) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return errnoText(ENOTDIR);
      return ::access(p.c_str(), W_OK | X_OK) == 0 ? "" : errnoText(errno);
    }
    if (errno != ENOENT)
      return errnoText(errno);
    // Missing: it is created in its nearest existing ancestor.
    std::filesystem::path parent = p.parent_path();
    if (parent.empty())
      parent = ".";
    if (parent == p)
      return errnoText(ENOENT);
    p = parent;
  }
}

/// The output paths can be written: checked before the run, which may be
/// long.
Status checkOutputPaths(const Options &opts) {
  auto check = [](const std::string &path, const char *option) {
    std::string why = fileUnwritable(path);
    if (why.empty())
      return Status::success();
    return Status::error(StatusCode::IoError, std::string("cannot write ") +
                                                  option + " file '" + path +
                                                  "': " + why);
  };
  if (!opts.stats.empty())
    SPYRE_RETURN_IF_ERROR(check(opts.stats, "--stats"));
  if (!opts.trace.empty())
    SPYRE_RETURN_IF_ERROR(check(opts.trace, "--trace"));
  if (opts.timingOnly)
    return Status::success();
  std::string why = directoryUnwritable(opts.outputDir);
  if (!why.empty())
    return Status::error(StatusCode::IoError,
                         "cannot write output directory '" + opts.outputDir +
                             "': " + why);
  return Status::success();
}

/// "'q' (input 0)": how messages name input `i`.
std::string inputLabel(const Model &m, size_t i) {
  return "input " + std::to_string(i) + " ('" +
         m.tensors()[m.inputs()[i]].displayName() + "')";
}

/// The model's input names, for messages: "q, k, v".
std::string inputNames(const Model &m) {
  std::string names;
  for (uint32_t t : m.inputs())
    names += (names.empty() ? "" : ", ") + m.tensors()[t].displayName();
  return names;
}

/// The index of the input called `name` (its exported name or its symbol),
/// or -1.
int64_t findInput(const Model &m, const std::string &name) {
  for (size_t i = 0; i < m.inputs().size(); ++i) {
    const TensorInfo &t = m.tensors()[m.inputs()[i]];
    if (t.sourceName == name || t.name == name)
      return int64_t(i);
  }
  return -1;
}

/// The file of each input, from the --input values: NAME=FILE binds by name,
/// a bare FILE takes the next unbound input in order.
/// Binds each `--input NAME=FILE` to its input; the other --input values
/// go to `positional`, in order.
Status bindNamedInputs(const Model &m, const Options &opts,
                       std::vector<std::string> &files,
                       std::vector<std::string> &positional) {
  for (const std::string &arg : opts.inputs) {
    size_t eq = arg.find('=');
    int64_t i = eq == std::string::npos ? -1 : findInput(m, arg.substr(0, eq));
    if (i < 0) {
      // A path may hold '=': only a name that is no input and no file is an
      // error.
      if (eq != std::string::npos && !std::filesystem::exists(arg))
        return invalidArgument("--input " + arg + ": the model has no input '" +
                               arg.substr(0, eq) +
                               "' (its inputs: " + inputNames(m) + ")");
      positional.push_back(arg);
      continue;
    }
    if (!files[size_t(i)].empty())
      return invalidArgument(inputLabel(m, size_t(i)) +
                             " is given twice with --input");
    files[size_t(i)] = arg.substr(eq + 1);
  }
  return Status::success();
}

/// Gives the positional --input files to the inputs not yet bound, in
/// order.
Status bindPositionalInputs(const Model &m, const Options &opts,
                            const std::vector<std::string> &positional,
                            std::vector<std::string> &files) {
  size_t n = files.size();
  size_t next = 0;
  for (const std::string &file : positional) {
    while (next < n && !files[next].empty())
      ++next;
    if (next == n)
      return invalidArgument("the model takes " + std::to_string(n) +
                             " input(s) (" + inputNames(m) + "), " +
                             std::to_string(opts.inputs.size()) +
                             " given with --input");
    files[next] = file;
  }
  return Status::success();
}

/// Every input must have a file.
Status checkAllInputsBound(const Model &m,
                           const std::vector<std::string> &files) {
  for (size_t i = 0; i < files.size(); ++i)
    if (files[i].empty())
      return invalidArgument("no --input for " + inputLabel(m, i) +
                             " (the model's inputs: " + inputNames(m) + ")");
  return Status::success();
}

Status bindInputFiles(const Model &m, const Options &opts,
                      std::vector<std::string> &files) {
  files.assign(m.inputs().size(), "");
  std::vector<std::string> positional;
  SPYRE_RETURN_IF_ERROR(bindNamedInputs(m, opts, files, positional));
  SPYRE_RETURN_IF_ERROR(bindPositionalInputs(m, opts, positional, files));
  return checkAllInputsBound(m, files);
}

/// Reads `file` and checks it against the model's input i.
Status readInput(const Model &m, const std::string &file, size_t i,
                 HostTensor &out) {
  const TensorInfo &t = m.tensors()[m.inputs()[i]];
  NpyArray array;
  Status s = readNpy(file, array);
  if (!s.ok())
    return s.withContext(inputLabel(m, i));
  std::string expected = describeTensor(t.dtype, t.shape) + " ('" +
                         npyDescr(npyDTypeFor(t.dtype)) + "')";
  std::string got = std::string("'") + npyDescr(array.dtype) + "' [";
  for (size_t d = 0; d < array.shape.size(); ++d)
    got += (d ? ", " : "") + std::to_string(array.shape[d]);
  got += "]";
  out.dtype = t.dtype;
  out.shape = array.shape;
  std::string error;
  if (array.shape != t.shape || !npyToHost(array, t.dtype, out.data, error))
    return invalidArgument(inputLabel(m, i) + ", " + file + ": expected " +
                           expected + ", got " + got);
  return Status::success();
}

Status readInputs(const Model &m, const Options &opts,
                  std::vector<HostTensor> &inputs) {
  std::vector<std::string> files;
  SPYRE_RETURN_IF_ERROR(bindInputFiles(m, opts, files));
  inputs.resize(files.size());
  for (size_t i = 0; i < files.size(); ++i)
    SPYRE_RETURN_IF_ERROR(readInput(m, files[i], i, inputs[i]));
  return Status::success();
}

/// One run checking every kernel; prints the report. `diverged` when a
/// kernel or a node differs from its reference.
Status runChecked(Session &session, const Options &opts,
                  std::vector<HostTensor> &inputs,
                  std::vector<HostTensor> &outputs, bool &diverged) {
  std::map<std::string, NodeReference> nodes;
  if (!opts.referenceDir.empty())
    SPYRE_RETURN_IF_ERROR(readNodeReferences(opts.referenceDir, nodes));
  CheckReport report;
  SPYRE_RETURN_IF_ERROR(session.runChecked(inputs, outputs, nodes, report));
  std::fputs(report.text().c_str(), stdout);
  diverged = report.firstDivergent >= 0 || !report.firstDivergentNode.empty();
  return Status::success();
}

/// Runs the model opts.runs times on `inputs`. Timing-only without inputs
/// launches on the session's buffers directly: the device holds no data,
/// so there is nothing to copy (and no host buffers to allocate).
Status runModel(Session &session, const Options &opts,
                std::vector<HostTensor> &inputs,
                std::vector<HostTensor> &outputs) {
  bool noData = opts.timingOnly && opts.inputs.empty();
  for (int64_t r = 0; r < opts.runs; ++r) {
    if (noData) {
      const auto &in = session.inputBuffers();
      const auto &out = session.outputBuffers();
      SPYRE_RETURN_IF_ERROR(session.loaded().launch(
          session.workspace(), in.data(), in.size(), out.data(), out.size()));
      continue;
    }
    if (r > 0)
      session.applyInputMutations(inputs, outputs);
    SPYRE_RETURN_IF_ERROR(session.run(inputs, outputs));
  }
  return Status::success();
}

/// `name` as a file name: characters other than letters, digits, '.', '_'
/// and '-' become '_'; empty when nothing is left of it.
std::string fileNameOf(const std::string &name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
                   c == '_' || c == '-'
               ? c
               : '_';
  if (!out.empty() && out[0] == '.')
    out[0] = '_';
  return out;
}

/// Writes output `o` under its exported name too (a hard link to
/// output_<o>.npy, a copy where links fail), unless the name is empty or
/// taken by another file written.
Status writeNamedOutput(const std::filesystem::path &dir,
                        const std::filesystem::path &written,
                        const std::string &name, std::set<std::string> &taken) {
  std::string file = fileNameOf(name);
  if (file.empty() || !taken.insert(file + ".npy").second)
    return Status::success();
  std::filesystem::path path = dir / (file + ".npy");
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::filesystem::create_hard_link(written, path, ec);
  if (ec)
    std::filesystem::copy_file(written, path, ec);
  if (ec)
    return Status::error(StatusCode::IoError, "cannot write '" + path.string() +
                                                  "': " + ec.message());
  return Status::success();
}

Status writeOutputs(const Model &m, const Options &opts,
                    const std::vector<HostTensor> &outputs) {
  std::error_code ec;
  std::filesystem::create_directories(opts.outputDir, ec);
  if (ec)
    return Status::error(StatusCode::IoError,
                         "cannot create output directory '" + opts.outputDir +
                             "': " + ec.message());
  std::set<std::string> taken;
  for (size_t o = 0; o < outputs.size(); ++o)
    taken.insert("output_" + std::to_string(o) + ".npy");
  for (size_t o = 0; o < outputs.size(); ++o) {
    std::filesystem::path path = std::filesystem::path(opts.outputDir) /
                                 ("output_" + std::to_string(o) + ".npy");
    SPYRE_RETURN_IF_ERROR(
        writeNpy(path.string(), hostToNpy(outputs[o].dtype, outputs[o].shape,
                                          outputs[o].data)));
    SPYRE_RETURN_IF_ERROR(writeNamedOutput(
        opts.outputDir, path, m.tensors()[m.outputs()[o]].sourceName, taken));
  }
  return Status::success();
}

Status loadModel(const Options &opts, const Arch &arch,
                 std::shared_ptr<const Model> &out) {
  std::unique_ptr<Model> model;
  LoadOptions load;
  load.verifyData = !opts.noVerify;
  load.weightsPath = opts.weights;
  SPYRE_RETURN_IF_ERROR(Model::open(opts.model, &arch, model, load));
  for (const std::string &w : model->warnings())
    std::fprintf(stderr, "spyre-run: warning: %s: %s\n", opts.model.c_str(),
                 w.c_str());
  out = std::move(model);
  return Status::success();
}

Status run(const Options &opts, bool &diverged) {
  SPYRE_RETURN_IF_ERROR(checkOutputPaths(opts));
  Arch arch = Arch::builtinDefault();
  std::string error;
  if (!opts.arch.empty() && !Arch::load(opts.arch, arch, error))
    return invalidArgument(error);
  SimOptions simOptions;
  simOptions.timingOnly = opts.timingOnly;
  simOptions.trace = !opts.trace.empty();
  SimulatorDevice device(arch, simOptions);
  std::shared_ptr<const Model> model;
  SPYRE_RETURN_IF_ERROR(loadModel(opts, arch, model));
  std::vector<HostTensor> inputs, outputs;
  if (!opts.timingOnly || !opts.inputs.empty())
    SPYRE_RETURN_IF_ERROR(readInputs(*model, opts, inputs));
  std::unique_ptr<Session> session;
  SPYRE_RETURN_IF_ERROR(Session::create(device, model, session));
  if (opts.check)
    SPYRE_RETURN_IF_ERROR(
        runChecked(*session, opts, inputs, outputs, diverged));
  else
    SPYRE_RETURN_IF_ERROR(runModel(*session, opts, inputs, outputs));
  if (opts.timingOnly)
    std::fprintf(stderr,
                 "spyre-run: note: --timing-only: no outputs written\n");
  else if (!opts.outputDir.empty())
    SPYRE_RETURN_IF_ERROR(writeOutputs(*model, opts, outputs));
  KernelLocations locations;
  for (const ProgramInfo &p : model->programs())
    locations[p.name] = p.location;
  if (opts.profile)
    writeProfile(device.stats(), arch, locations, std::cout);
  if (!opts.stats.empty())
    SPYRE_RETURN_IF_ERROR(
        writeStatsJson(device.stats(), arch, opts.stats, locations));
  if (!opts.trace.empty())
    SPYRE_RETURN_IF_ERROR(device.writeTrace(opts.trace));
  return Status::success();
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  int code = parseArgs(argc, argv, opts);
  if (code >= 0)
    return code;
  try {
    bool diverged = false;
    Status s = run(opts, diverged);
    if (!s.ok())
      return fail(s.message());
    return diverged ? 1 : 0;
  } catch (const std::bad_alloc &) {
    return fail("out of host memory");
  } catch (const std::exception &e) {
    return fail(std::string("internal error: ") + e.what());
  }
}
