//===- spyre-compile.cpp - The one-step compiler --------------------------===//
//
//   spyre-compile MODEL.pt2|MODEL.json -o OUT.spy [--arch FILE]
//                 [--weights=auto|inline|file] [--weights-file OUT.spyw]
//
// `-` is standard input (the model) or standard output (-o).
// Import + --spyre-pipeline + emission, as IREE's iree-compile or CIRCT's
// firtool. The MLIR debugging flags (--mlir-print-ir-after-all,
// --mlir-timing, --mlir-pass-pipeline-crash-reproducer, ...) work.
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Target/Pt2/Pt2Importer.h"
#include "spyre/Target/Spy/CompileReport.h"
#include "spyre/Target/Spy/SpyEmitter.h"
#include "spyre/Transforms/InternalErrors.h"
#include "spyre/Transforms/Passes.h"
#include "llvm/Support/FileUtilities.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include <new>

using namespace mlir;
using namespace llvm;

namespace {
cl::OptionCategory category("spyre-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<model.pt2 | model.json | - (stdin)>"),
                               cl::cat(category));
cl::opt<std::string> outputFile("o", cl::Required,
                                cl::desc("Output .spy file (- : stdout)"),
                                cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> archFile("arch",
                              cl::desc("Machine description JSON (default: "
                                       "the built-in arch/spyre.json)"),
                              cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> bindDimsOpt("bind-dims",
                                 cl::desc("Values of symbolic dims, e.g. "
                                          "s0=128,s1=4"),
                                 cl::value_desc("sym=value,..."),
                                 cl::cat(category));
cl::opt<int64_t> maxCores("max-cores",
                          cl::desc("Most cores one kernel may use (0: all; "
                                   "at most the machine's cores)"),
                          cl::init(0), cl::cat(category));
/// The most rotating buffers a streamed input may have.
constexpr int64_t kMaxDepth = 8;
cl::opt<int64_t> depth("depth",
                       cl::desc("Rotating buffers per streamed input, 1 to 8 "
                                "(2 = double buffering)"),
                       cl::init(2), cl::cat(category));
cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Keep kernel schedules in DIR and reuse them in later compiles "
             "(same output, less search)"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(category));
cl::opt<bool> fusion("fusion",
                     cl::desc("Fuse elementwise consumers into their "
                              "producers' kernels (--fusion=false: one kernel "
                              "per compute op, a baseline)"),
                     cl::init(true), cl::cat(category));
cl::opt<bool> onChip("on-chip",
                     cl::desc("Keep data on chip between kernels: fold "
                              "reorders into access patterns, keep results "
                              "in LX for kernels that read them in place "
                              "(--on-chip=false: every reorder a kernel and "
                              "every tensor through device memory, a "
                              "baseline)"),
                     cl::init(true), cl::cat(category));
cl::opt<bool> ring("ring",
                   cl::desc("With --on-chip: a kernel whose tiles differ "
                            "from its producer's gathers them from the "
                            "producer's LX over the ring where the cost "
                            "model finds that faster (--ring=false: such "
                            "results go through device memory, a baseline)"),
                   cl::init(true), cl::cat(category));
cl::opt<std::string> reportFile(
    "report",
    cl::desc("Write a JSON report: per kernel the schedule, the cost "
             "model's estimate, MACs, minimum bytes and roofline"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<uint64_t> weightBuffer(
    "weight-buffer",
    cl::desc("Bytes of weight data held at once per weight being converted "
             "(default 16 MiB into the .spy; into a weights file 128 MiB "
             "shared by the converting threads); peak memory depends on "
             "this, not on the size of the weights"),
    cl::value_desc("bytes"), cl::init(0), cl::cat(category));
using WeightsPlacement = spyre::SpyEmitOptions::WeightsPlacement;
cl::opt<WeightsPlacement> weightsPlacement(
    "weights",
    cl::desc("Where the device images of the archive's weights go (default "
             "auto: a weights file when they total 1 GiB or more)"),
    cl::values(clEnumValN(WeightsPlacement::Auto, "auto",
                          "a weights file from 1 GiB on, else the .spy"),
               clEnumValN(WeightsPlacement::Inline, "inline", "the .spy"),
               clEnumValN(WeightsPlacement::File, "file",
                          "a weights file beside the .spy (--weights-file)")),
    cl::init(WeightsPlacement::Auto), cl::cat(category));
cl::opt<std::string> weightsFile(
    "weights-file",
    cl::desc("The weights file (default: -o with .spyw for .spy); a file "
             "that already holds the same weights in the same layouts is "
             "reused, not rewritten. Implies --weights=file"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
cl::opt<unsigned> weightThreads(
    "weight-threads",
    cl::desc("Host threads converting weights into the weights file "
             "(0: all cores, at most 8)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> emitMlir("emit-mlir",
                       cl::desc("Write the program-level MLIR instead of the "
                                ".spy"),
                       cl::init(false), cl::cat(category));

/// MLIR options users of a compiler expect to see in --help.
const char *const kShownMlirOptions[] = {"mlir-print-ir-after-all",
                                         "mlir-print-ir-before-all",
                                         "mlir-print-ir-after-failure",
                                         "mlir-print-ir-tree-dir",
                                         "mlir-timing",
                                         "mlir-pass-pipeline-crash-reproducer",
                                         "mlir-print-debuginfo",
                                         "mlir-print-op-on-diagnostic"};

int fail(const Twine &message) {
  errs() << "spyre-compile: error: " << message << "\n";
  return 1;
}

/// Why `path` cannot be written (empty when it can): checked before any
/// work, so a typo in -o costs no compile. `-` is standard output.
std::string unwritableReason(StringRef path) {
  if (path == "-")
    return {};
  if (sys::fs::is_directory(path))
    return std::make_error_code(std::errc::is_a_directory).message();
  if (sys::fs::exists(path))
    return sys::fs::access(path, sys::fs::AccessMode::Write)
               ? std::make_error_code(std::errc::permission_denied).message()
               : "";
  StringRef parent = sys::path::parent_path(path);
  if (parent.empty())
    parent = ".";
  if (!sys::fs::exists(parent))
    return std::make_error_code(std::errc::no_such_file_or_directory).message();
  if (!sys::fs::is_directory(parent))
    return std::make_error_code(std::errc::not_a_directory).message();
  if (sys::fs::access(parent, sys::fs::AccessMode::Write))
    return std::make_error_code(std::errc::permission_denied).message();
  return {};
}

/// A model given as `-`: standard input copied to a temporary file (the zip
/// reader needs a file), named by what it holds (a zip is a .pt2, anything
/// else is read as exported-program JSON). Removed when `remover` goes.
bool spoolStdin(std::string &path, FileRemover &remover, std::string &error) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> in = MemoryBuffer::getSTDIN();
  if (!in) {
    error = "cannot read standard input: " + in.getError().message();
    return false;
  }
  StringRef bytes = (*in)->getBuffer();
  SmallString<128> tmp;
  int fd = -1;
  if (std::error_code ec = sys::fs::createTemporaryFile(
          "spyre-compile-stdin", bytes.starts_with("PK") ? "pt2" : "json", fd,
          tmp)) {
    error =
        "cannot create a temporary file for standard input: " + ec.message();
    return false;
  }
  remover.setFile(tmp);
  raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << bytes;
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + tmp.str().str() + "': " + os.error().message();
    return false;
  }
  path = tmp.str().str();
  return true;
}

/// Registers the MLIR options shown in --help and parses the command line.
void parseCommandLine(int argc, char **argv) {
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  for (const char *name : kShownMlirOptions)
    if (cl::Option *opt = cl::getRegisteredOptions().lookup(name))
      opt->addCategory(category);
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "spyre-compile " << SPYRE_VERSION_STRING << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "spyre-compile: compile a torch.export model "
                              "for IBM Spyre\n");
}

/// Checks the options that need no model; false (after the error) when one
/// is out of range or an output file cannot be written.
bool checkOptions() {
  if (maxCores < 0) {
    fail("--max-cores must be 0 (all cores) or a positive count, got " +
         Twine(maxCores));
    return false;
  }
  if (depth < 1 || depth > kMaxDepth) {
    fail("--depth must be 1 to " + Twine(kMaxDepth) + ", got " + Twine(depth));
    return false;
  }
  if (!weightsFile.empty() && weightsPlacement == WeightsPlacement::Inline) {
    fail("--weights-file names a weights file, but --weights=inline puts "
         "the weights into the .spy");
    return false;
  }
  if (weightsPlacement == WeightsPlacement::File && weightsFile.empty() &&
      outputFile == "-") {
    fail("--weights=file with -o - (standard output) needs --weights-file");
    return false;
  }
  for (auto [path, option] : {std::pair<StringRef, StringRef>(outputFile, "-o"),
                              {reportFile, "--report"},
                              {weightsFile, "--weights-file"}})
    if (!path.empty())
      if (std::string why = unwritableReason(path); !why.empty()) {
        fail("cannot write " + option + " file '" + path + "': " + why);
        return false;
      }
  return true;
}

/// A user reads the message at their source line; the IR of the failing
/// op is for compiler engineers (--mlir-print-op-on-diagnostic).
void configureOpOnDiagnostic(MLIRContext &ctx) {
  if (cl::Option *opt =
          cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
      !opt || opt->getNumOccurrences() == 0)
    ctx.printOpOnDiagnostic(false);
}

/// Fills the importer's options from the flags; false after the error
/// (a malformed --bind-dims).
bool setImportOptions(spyre::Pt2ImportOptions &options) {
  options.archFile = archFile;
  std::string error;
  if (!bindDimsOpt.empty() &&
      !spyre::parseBoundDims(bindDimsOpt, options.boundDims, error)) {
    fail(error);
    return false;
  }
  return true;
}

/// Imports the model at `modelPath`, timed as "Import"; null on failure
/// (the importer has reported it).
OwningOpRef<ModuleOp> importModel(StringRef modelPath, MLIRContext &ctx,
                                  const spyre::Pt2ImportOptions &options,
                                  TimingScope &timing) {
  TimingScope importTiming = timing.nest("Import");
  return spyre::importPt2(modelPath, &ctx, options);
}

/// Imports the input model (`-`: standard input, spooled to a temporary
/// file that `stdinCopy` removes); null after an error.
OwningOpRef<ModuleOp> loadModel(MLIRContext &ctx,
                                spyre::Pt2ImportOptions &options,
                                FileRemover &stdinCopy, TimingScope &timing) {
  std::string modelPath = inputFile;
  if (inputFile == "-") {
    std::string error;
    if (!spoolStdin(modelPath, stdinCopy, error)) {
      fail(error);
      return nullptr;
    }
    options.sourceName = "<stdin>";
  }
  return importModel(modelPath, ctx, options, timing);
}

/// Checks --max-cores against the model's machine; false after the error.
bool checkCoresFit(ModuleOp module) {
  if (int64_t cores = spyre::getArch(module).cores; maxCores > cores) {
    fail("--max-cores=" + Twine(maxCores) + " is more than the " +
         Twine(cores) + " cores of the machine description");
    return false;
  }
  return true;
}

/// Copies the compiler flags into the pipeline's options.
void setPipelineOptions(spyre::PipelineOptions &options) {
  options.archFile = archFile;
  options.maxCores = maxCores;
  options.depth = depth;
  options.cacheDir = cacheDir;
  options.fusion = fusion;
  options.onChip = onChip;
  options.ring = ring;
}

/// Runs the whole pipeline on `module`; the exit status (0: it succeeded).
/// A failure that left invalid IR is an internal error with its own status.
int runPipeline(PassManager &pm, ModuleOp module, TimingScope &timing,
                spyre::PipelineOptions &options,
                spyre::InternalErrorRecord &internalError) {
  if (failed(applyPassManagerCLOptions(pm)))
    return fail("invalid pass manager options");
  pm.enableTiming(timing);
  setPipelineOptions(options);
  spyre::buildSpyrePipeline(pm, options);
  spyre::addInternalErrorCheck(pm, internalError);
  if (succeeded(pm.run(module)))
    return 0;
  if (!internalError.found())
    return 1;
  errs() << "spyre-compile: internal error: the IR after pass '"
         << internalError.pass
         << "' does not verify; this is a bug in spyre-mlir, not in the "
            "model: please report it with the model\n";
  return spyre::kInternalErrorExitCode;
}

/// Records how the program was made (the .spy metadata reads it). The cache
/// directory changes nothing in the program, so it is not recorded: the
/// output is the same bytes with and without --cache-dir.
void recordPipeline(ModuleOp module, const spyre::PipelineOptions &options) {
  module->setAttr(
      "spyre.pipeline",
      StringAttr::get(module.getContext(), spyre::spyrePipelineText(options)));
}

/// Writes the JSON compile report to --report; false after the error.
bool writeReport(ModuleOp module) {
  std::string error;
  std::unique_ptr<ToolOutputFile> out = openOutputFile(reportFile, &error);
  if (!out) {
    fail(error);
    return false;
  }
  spyre::writeCompileReport(module, out->os());
  out->keep();
  return true;
}

/// Writes the program-level MLIR to -o (--emit-mlir); the exit status.
int writeMlir(ModuleOp module) {
  std::string error;
  std::unique_ptr<ToolOutputFile> out = openOutputFile(outputFile, &error);
  if (!out)
    return fail(error);
  module->print(out->os());
  out->keep();
  return 0;
}

/// Writes the .spy to -o (a file or standard output); the exit status.
int writeSpy(ModuleOp module, TimingScope &timing) {
  TimingScope emitTiming = timing.nest("Emit .spy");
  spyre::SpyEmitOptions emitOptions;
  emitOptions.weightBufferBytes = weightBuffer;
  emitOptions.weights = weightsFile.empty() ? weightsPlacement.getValue()
                                            : WeightsPlacement::File;
  emitOptions.weightsFile = weightsFile;
  emitOptions.weightThreads = weightThreads;
  if (outputFile == "-")
    return failed(spyre::emitSpy(module, outs(), emitOptions)) ? 1 : 0;
  if (failed(spyre::emitSpyFile(module, outputFile, emitOptions)))
    return 1;
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  // InitLLVM makes a failed allocation abort ("LLVM ERROR: out of
  // memory"); without its handler operator new throws std::bad_alloc, which
  // the importer (built with exceptions) reports as an error at the model.
  std::set_new_handler(nullptr);
  setBugReportMsg("PLEASE report this spyre-mlir bug with the model and the "
                  "command line above.\n");
  parseCommandLine(argc, argv);
  if (!checkOptions())
    return 1;

  DialectRegistry registry;
  registry.insert<spyre::SpyreDialect, func::FuncDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  configureOpOnDiagnostic(ctx);
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);

  spyre::Pt2ImportOptions importOptions;
  if (!setImportOptions(importOptions))
    return 1;
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();

  FileRemover stdinCopy;
  OwningOpRef<ModuleOp> module =
      loadModel(ctx, importOptions, stdinCopy, timing);
  if (!module || !checkCoresFit(*module))
    return 1;

  PassManager pm(&ctx);
  spyre::PipelineOptions pipelineOptions;
  spyre::InternalErrorRecord internalError;
  if (int status =
          runPipeline(pm, *module, timing, pipelineOptions, internalError))
    return status;
  recordPipeline(*module, pipelineOptions);

  if (!reportFile.empty() && !writeReport(*module))
    return 1;
  if (emitMlir)
    return writeMlir(*module);
  return writeSpy(*module, timing);
}
