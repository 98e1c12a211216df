//===- Translations.cpp - spyre-translate's translations ------------------===//
//
// spyre-translate is mlirTranslateMain with these registrations, so that it
// has MLIR's translation options (--verify-diagnostics, --split-input-file,
// -o) and its errors are testable like any translation's.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Translations.h"
#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Spy/SpyFormat.h"
#include "spyre/Target/Pt2/Pt2Importer.h"
#include "spyre/Target/Spy/SpyDump.h"
#include "spyre/Target/Spy/SpyEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>
#include <fstream>

using namespace mlir;

namespace spyre {
namespace {

llvm::cl::OptionCategory category("spyre-translate options");

llvm::cl::opt<std::string>
    archFile("arch",
             llvm::cl::desc("Machine description JSON for --import-pt2 "
                            "(default: built-in)"),
             llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    bindDims("bind-dims",
             llvm::cl::desc("Values of symbolic dims, e.g. s0=128,s1=4 "
                            "(--import-pt2)"),
             llvm::cl::value_desc("sym=value,..."), llvm::cl::cat(category));
llvm::cl::opt<std::string> weightsFileOption(
    "weights-file",
    llvm::cl::desc("--spyre-to-spy: write the archive's weights to this "
                   "weights file, which the .spy names by absolute path "
                   "(default: into the .spy); --spy-to-text: the weights "
                   "file of the .spy, when not where it says"),
    llvm::cl::value_desc("file"), llvm::cl::cat(category));

void registerDialects(DialectRegistry &registry) {
  registry.insert<SpyreDialect, func::FuncDialect>();
}

/// The file a source manager's main buffer was read from; empty for stdin.
std::string inputPath(llvm::SourceMgr &sourceMgr) {
  StringRef id = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                     ->getBufferIdentifier();
  return id == "<stdin>" ? std::string() : id.str();
}

/// Imports the main buffer: its file, or (stdin) a temporary copy, with
/// every weight inline since the IR cannot name a file that is gone.
OwningOpRef<Operation *> importPt2Buffer(llvm::SourceMgr &sourceMgr,
                                         MLIRContext *ctx) {
  Pt2ImportOptions options;
  options.archFile = archFile;
  std::string error;
  if (!bindDims.empty() &&
      !parseBoundDims(bindDims, options.boundDims, error)) {
    emitError(UnknownLoc::get(ctx)) << error;
    return nullptr;
  }
  std::string path = inputPath(sourceMgr);
  if (!path.empty())
    return importPt2(path, ctx, options);
  SmallString<128> temp;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("spyre-stdin", "pt2", fd, temp)) {
    emitError(UnknownLoc::get(ctx))
        << "cannot keep the archive read from stdin: " << ec.message();
    return nullptr;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  }
  options.inlineWeightBytes = std::numeric_limits<int64_t>::max();
  OwningOpRef<ModuleOp> module = importPt2(temp.str(), ctx, options);
  llvm::sys::fs::remove(temp);
  return module;
}

LogicalResult dumpBuffer(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                         raw_ostream &os, MLIRContext *) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
  StringRef bytes = buffer->getBuffer();
  std::string error;
  // From the file when there is one: a weights file named by a bare name
  // is beside it.
  std::string path = inputPath(*sourceMgr);
  if (path.empty() ? dumpSpy(std::vector<uint8_t>(bytes.begin(), bytes.end()),
                             os, error, weightsFileOption)
                   : dumpSpy(path, os, error, weightsFileOption))
    return success();
  // The loader's messages name the file it opened.
  llvm::errs() << "spyre-translate: error: "
               << (path.empty() ? buffer->getBufferIdentifier() + ": " : "")
               << error << "\n";
  return failure();
}

/// The value of option `name` in `args` (`-o x`, `-o=x`, `--o=x`), or "".
std::string optionValue(const std::vector<std::string> &args, StringRef name) {
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef a = args[i];
    a = a.ltrim('-');
    if (a == name && i + 1 < args.size())
      return args[i + 1];
    if (a.consume_front(name) && a.consume_front("="))
      return a.str();
  }
  return "";
}

/// The first positional argument (not an option or an option's value).
std::string positional(const std::vector<std::string> &args) {
  static const char *const withValue[] = {"o", "arch", "bind-dims",
                                          "weights-file"};
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef a = args[i];
    if (!a.starts_with("-") || a == "-")
      return a.str();
    StringRef name = a.ltrim('-');
    if (llvm::is_contained(withValue, name))
      ++i; // skip its value
  }
  return "-";
}

} // namespace

void registerTranslations() {
  // Only spyre's options and those mlirTranslateMain registers when it runs
  // (-o, --split-input-file, --verify-diagnostics, ...) appear in --help,
  // not the whole of LLVM's.
  llvm::cl::HideUnrelatedOptions(category);
  TranslateToMLIRRegistration importPt2Registration(
      "import-pt2",
      "Import a torch.export .pt2 archive or exported-program .json into "
      "graph-level MLIR",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *ctx) {
        return importPt2Buffer(sourceMgr, ctx);
      },
      registerDialects);
  TranslateFromMLIRRegistration emitRegistration(
      "spyre-to-spy", "Serialize program-level MLIR into a .spy binary",
      [](ModuleOp module, raw_ostream &os) {
        SpyEmitOptions options;
        if (!weightsFileOption.empty()) {
          options.weights = SpyEmitOptions::WeightsPlacement::File;
          options.weightsFile = weightsFileOption;
        }
        return emitSpy(module, os, options);
      },
      registerDialects);
  TranslateRegistration dumpRegistration(
      "spy-to-text", "Validate a .spy binary and print it as text", dumpBuffer);
}

namespace {

/// Whether `name` (a flag without its dashes) chooses a translation or asks
/// for help or the version.
bool isChoosingFlag(StringRef name) {
  return name == "import-pt2" || name == "spyre-to-spy" ||
         name == "spy-to-text" || name == "help" || name == "version" ||
         name.starts_with("help-");
}

/// Whether a translation is chosen already, or there is nothing to
/// translate.
bool translationChosen(const std::vector<std::string> &args) {
  for (StringRef a : args)
    if (a.starts_with("-") && isChoosingFlag(a.ltrim('-')))
      return true;
  return false;
}

/// The first bytes of file `input` (zeros where it is shorter, unreadable
/// or standard input).
void readHead(const std::string &input, char (&head)[8]) {
  if (input != "-") {
    std::ifstream in(input, std::ios::binary);
    in.read(head, sizeof(head));
  }
}

} // namespace

bool chooseTranslation(const std::vector<std::string> &args, std::string &flag,
                       std::string &error) {
  if (translationChosen(args))
    return true;
  std::string input = positional(args);
  std::string output = optionValue(args, "o");
  char head[8] = {};
  readHead(input, head);
  bool zip = std::memcmp(head, "PK\x03\x04", 4) == 0;
  bool spy = std::memcmp(head, spy::kMagic, sizeof(spy::kMagic)) == 0;
  bool json = StringRef(input).ends_with(".json");
  if ((zip || json) && StringRef(output).ends_with(".spy")) {
    error = "'" + input +
            "' is an exported program, not program-level MLIR: "
            "compile it with spyre-compile (or import it with "
            "--import-pt2 and run spyre-opt --spyre-pipeline)";
    return false;
  }
  flag = zip || json ? "--import-pt2"
         : spy       ? "--spy-to-text"
                     : "--spyre-to-spy";
  return true;
}

} // namespace spyre
