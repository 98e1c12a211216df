//===- Pt2Importer.cpp - torch.export programs to graph-level IR ----------===//
//
// Reads the exported program (docs/pt2-format.md) and builds one function:
// user inputs become arguments, parameters/buffers/constants `spyre.weight`s,
// every node one `spyre.aten` (the importer is total: unknown ops import and
// spyre-decompose reports them), user outputs the results. This file holds
// the entry points and reads the archive; Importer.h lists the other steps.
//
// Built with -fexceptions: nlohmann/json throws on type errors, and every
// exception is caught in importPt2 and reported as a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/Pt2Importer.h"
#include "Importer.h"

#include "spyre/Support/Json.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace spyre::pt2import {

/// The name of an element type as `as_scalar_type` arguments carry it.
std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// Reads the only key of a union object.
/// Anything else is malformed: thrown, and reported by importPt2's catch.
std::pair<std::string, const json *> unionTag(const json &j) {
  if (!j.is_object() || j.size() != 1) {
    std::string text = j.dump();
    if (text.size() > 80)
      text = text.substr(0, 77) + "...";
    throw std::invalid_argument("expected a union (an object with one key), "
                                "got " +
                                text);
  }
  auto it = j.begin();
  return {it.key(), &it.value()};
}

OwningOpRef<ModuleOp> Importer::run() {
  std::string error;
  std::string text;
  if (StringRef(path).ends_with(".json")) {
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf)
      fail(fileLoc, "cannot read '" + path + "': " + buf.getError().message());
    text = (*buf)->getBuffer().str();
    contentDigest = llvm::xxh3_64bits(StringRef(text));
  } else {
    archive = Pt2Archive::open(path, error);
    if (!archive)
      fail(fileLoc, error);
    contentDigest = archive->contentDigest();
    text = readModelJson();
    readPayloadConfig("data/weights/model_weights_config.json", weightsConfig);
    readPayloadConfig("data/constants/model_constants_config.json",
                      constantsConfig);
  }
  json program;
  try {
    program = parseJsonUntrusted(text);
  } catch (const std::exception &e) { // parse_error, length_error
    fail(fileLoc,
         std::string("invalid JSON in the exported program: ") + e.what());
  }
  return build(program);
}

//===--- Archive ----------------------------------------------------------===//

std::string Importer::readModelJson() {
  std::vector<std::string> models;
  for (const std::string &e : archive->entries())
    if (e.rfind("models/", 0) == 0 && StringRef(e).ends_with(".json"))
      models.push_back(e);
  if (models.empty()) {
    if (archive->contains("serialized_exported_program.json"))
      fail(fileLoc, legacyExportSaveMessage(path));
    fail(fileLoc, "'" + path +
                      "' has no models/*.json: not a torch.export "
                      "archive");
  }
  if (models.size() > 1)
    fail(fileLoc, "'" + path + "' holds " + std::to_string(models.size()) +
                      " programs; import one at a time is not supported");
  std::string error;
  if (auto format = archive->read("archive_format", error);
      format && *format != "pt2")
    fail(fileLoc,
         "'" + path + "': archive_format is '" + *format + "', expected 'pt2'");
  modelEntry = models.front();
  std::optional<std::string> text = archive->read(modelEntry, error);
  if (!text)
    fail(fileLoc, error);
  return *text;
}

void Importer::readPayloadConfig(const std::string &entry, json &out) {
  if (!archive->contains(entry))
    return;
  std::string error;
  std::optional<std::string> text = archive->read(entry, error);
  if (!text)
    fail(fileLoc, error);
  try {
    json j = parseJsonUntrusted(*text);
    if (j.contains("config") && j["config"].is_object())
      out = j["config"];
    else
      fail(fileLoc, "'" + entry + "' has no \"config\" object");
  } catch (const std::exception &e) { // parse_error, length_error
    fail(fileLoc, "invalid JSON in '" + entry + "': " + e.what());
  }
}

} // namespace spyre::pt2import

namespace spyre {

OwningOpRef<ModuleOp> importPt2(StringRef path, MLIRContext *ctx,
                                const Pt2ImportOptions &options) {
  ctx->loadDialect<SpyreDialect, func::FuncDialect>();
  try {
    pt2import::Importer importer(ctx, path, options);
    return importer.run();
  } catch (const pt2import::Reported &) {
    return nullptr;
  } catch (const std::bad_alloc &) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "out of host memory while importing";
    return nullptr;
  } catch (const std::exception &e) {
    // A JSON value of the wrong type or shape (nlohmann::json::type_error,
    // out_of_range...): report it at the file.
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "malformed exported program: " << e.what();
    return nullptr;
  }
}

bool parseBoundDims(StringRef text, std::map<std::string, int64_t> &out,
                    std::string &error) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, false);
  for (StringRef item : items) {
    auto [name, value] = item.split('=');
    int64_t v;
    if (name.trim().empty() || value.trim().getAsInteger(10, v) || v < 0) {
      error = "malformed --bind-dims entry '" + item.str() +
              "' (expected symbol=non-negative integer)";
      return false;
    }
    out[name.trim().str()] = v;
  }
  return true;
}

} // namespace spyre
