//===- Translations.h - spyre-translate's translations ----------*- C++ -*-===//

#ifndef SPYRE_TARGET_TRANSLATIONS_H
#define SPYRE_TARGET_TRANSLATIONS_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace spyre {

/// Registers the translations of spyre-translate with MLIR's translation
/// registry: --import-pt2, --spyre-to-spy and --spy-to-text, and their
/// options (--arch, --bind-dims); hides LLVM's unrelated options.
void registerTranslations();

/// The translation flag for a command line that names none, chosen from its
/// input (a zip archive or exported-program .json imports, a .spy binary is
/// dumped, anything else is MLIR to emit), or an error message when the
/// request makes no sense (a .pt2 to a .spy: that is spyre-compile's job).
/// `args` excludes the program name.
bool chooseTranslation(const std::vector<std::string> &args, std::string &flag,
                       std::string &error);

} // namespace spyre

#endif // SPYRE_TARGET_TRANSLATIONS_H
