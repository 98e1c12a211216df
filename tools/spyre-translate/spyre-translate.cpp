//===- spyre-translate.cpp - Import, emit and dump spyre formats ----------===//
//
//   spyre-translate --import-pt2 model.pt2 [-o model.mlir]
//   spyre-translate model.mlir -o model.spy      (or --spyre-to-spy)
//   spyre-translate --spy-to-text model.spy
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Target/Pt2/Pt2Importer.h"
#include "spyre/Target/Spy/SpyDump.h"
#include "spyre/Target/Spy/SpyEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace llvm;

namespace {
cl::OptionCategory category("spyre-translate options");

enum class Mode { Auto, ImportPt2, SpyreToSpy, SpyToText };
cl::opt<Mode> mode(
    cl::desc("Translation (default: by file names: an output ending in .spy "
             "emits, an input ending in .pt2 imports)"),
    cl::values(clEnumValN(Mode::ImportPt2, "import-pt2",
                          "Import a torch.export .pt2 archive or "
                          "exported-program .json into graph-level MLIR"),
               clEnumValN(Mode::SpyreToSpy, "spyre-to-spy",
                          "Serialize program-level MLIR into a .spy binary"),
               clEnumValN(Mode::SpyToText, "spy-to-text",
                          "Validate a .spy binary and print it as text")),
    cl::init(Mode::Auto), cl::cat(category));
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<std::string> archFile("arch",
                              cl::desc("Machine description JSON for "
                                       "--import-pt2 (default: built-in)"),
                              cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> bindDimsOpt("bind-dims",
                              cl::desc("Values of symbolic dims, e.g. "
                                       "s0=128,s1=4 (--import-pt2)"),
                              cl::value_desc("sym=value,..."),
                              cl::cat(category));

int fail(const Twine &message) {
  errs() << "spyre-translate: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "spyre-translate " << SPYRE_VERSION_STRING << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "spyre-translate: spyre import, emission and "
                              "binary dumps\n");
  Mode m = mode;
  if (m == Mode::Auto) {
    if (StringRef(outputFile).ends_with(".spy"))
      m = Mode::SpyreToSpy;
    else if (StringRef(inputFile).ends_with(".pt2"))
      m = Mode::ImportPt2;
    else
      return fail("no translation selected: pass --import-pt2, "
                  "--spyre-to-spy or --spy-to-text (or name the output "
                  "*.spy)");
  }

  DialectRegistry registry;
  registry.insert<spyre::SpyreDialect, func::FuncDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &ctx);

  if (m == Mode::SpyToText) {
    std::string error;
    std::unique_ptr<ToolOutputFile> out = openOutputFile(outputFile, &error);
    if (!out)
      return fail(error);
    if (!spyre::dumpSpy(inputFile, out->os(), error))
      return fail(error);
    out->keep();
    return 0;
  }

  if (m == Mode::ImportPt2) {
    spyre::Pt2ImportOptions options;
    options.archFile = archFile;
    std::string error;
    if (!bindDimsOpt.empty() &&
        !spyre::parseBoundDims(bindDimsOpt, options.boundDims, error))
      return fail(error);
    OwningOpRef<ModuleOp> module =
        spyre::importPt2(inputFile, &ctx, options);
    if (!module)
      return 1;
    std::unique_ptr<ToolOutputFile> out = openOutputFile(outputFile, &error);
    if (!out)
      return fail(error);
    module->print(out->os());
    out->keep();
    return 0;
  }

  // --spyre-to-spy
  std::string error;
  std::unique_ptr<MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1;
  spyre::SpyEmitOptions options;
  if (outputFile == "-") {
    if (failed(spyre::emitSpy(*module, outs(), options)))
      return 1;
    return 0;
  }
  if (failed(spyre::emitSpyFile(*module, outputFile, options)))
    return 1;
  return 0;
}
