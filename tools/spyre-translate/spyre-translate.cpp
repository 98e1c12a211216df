//===- spyre-translate.cpp - Import, emission and binary dumps ------------===//
//
// MLIR's translation driver with spyre's translations (lib/Target/
// Translations.cpp): --import-pt2, --spyre-to-spy, --spy-to-text. Without a
// translation flag the input decides (a .pt2 or exported-program .json
// imports, a .spy is dumped, MLIR is emitted), so `spyre-translate
// model.mlir -o model.spy` needs none.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Translations.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  llvm::setBugReportMsg("PLEASE report this spyre-mlir bug with the input and "
                        "the command line above.\n");
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "spyre-translate " << SPYRE_VERSION_STRING << "\n";
  });
  spyre::registerTranslations();
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string flag, error;
  if (!spyre::chooseTranslation(args, flag, error)) {
    llvm::errs() << "spyre-translate: error: " << error << "\n";
    return 1;
  }
  std::vector<char *> argvWithFlag(argv, argv + argc);
  if (!flag.empty())
    argvWithFlag.insert(argvWithFlag.begin() + 1, flag.data());
  // The import keeps its source locations in the MLIR it prints: kernel
  // names and the profile's modules come from them, in a staged pipeline
  // (import | spyre-opt | spyre-translate) as in spyre-compile.
  std::string debugInfo = "--mlir-print-debuginfo";
  auto given = [&](llvm::StringRef name) { // --name or --name=value
    return flag == name || llvm::any_of(args, [&](const std::string &a) {
             return llvm::StringRef(a).ltrim('-').split('=').first ==
                    name.ltrim('-');
           });
  };
  if (given("--import-pt2") && !given(debugInfo))
    argvWithFlag.insert(argvWithFlag.begin() + 1, debugInfo.data());
  return mlir::failed(mlir::mlirTranslateMain(
      int(argvWithFlag.size()), argvWithFlag.data(),
      "spyre-translate: spyre import, emission and binary dumps\n"));
}
