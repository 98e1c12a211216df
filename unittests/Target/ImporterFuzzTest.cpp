//===- ImporterFuzzTest.cpp - Structure-aware fuzzing of the importer -----===//
//
// A .pt2 archive is untrusted input. Byte flips of JSON mostly give parse
// errors, so the JSON sweeps mutate the parsed document instead: a value of
// the wrong type, a deleted key, an emptied list, a huge number, a
// duplicated node. Every mutant must be accepted or fail with a message,
// never crash (scripts/test.sh runs this under AddressSanitizer too).
//
//  * the exported program: the bare programs of test/Target/Import/Inputs;
//  * the weights config of an archive (sizes, strides, offsets, files of
//    each weight), rewritten into a copy of the archive (stored, or
//    deflated as a zip tool would), imported with every weight left
//    external, compiled and emitted, so that the emitter's reader of weight
//    bytes (ExternalData) sees what the importer let by;
//  * the torch.save pickle of a torch 2.6-2.8 archive, byte by byte, through
//    the restricted unpickler and the torch.save reader.
//
// SPYRE_FUZZ_ITERATIONS scales every sweep (the default keeps the whole
// file to a few seconds, ASan included).
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Support/Json.h"
#include "spyre/Target/Pt2/Pt2Archive.h"
#include "spyre/Target/Pt2/Pt2Importer.h"
#include "spyre/Target/Pt2/TorchPickle.h"
#include "spyre/Target/Pt2/TorchSave.h"
#include "spyre/Target/Spy/SpyEmitter.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <cstdlib>
#include <fstream>
#include <random>

using nlohmann::json;

namespace {

/// Iterations of a sweep: `base`, scaled by SPYRE_FUZZ_ITERATIONS (the
/// JSON sweep's count, 500 by default) for a longer local run.
int iterations(int base) {
  const char *env = std::getenv("SPYRE_FUZZ_ITERATIONS");
  return env ? int(int64_t(base) * std::atoi(env) / 500) : base;
}

/// A context without a thread pool: a sweep makes thousands, and threads
/// would cost more than the work.
std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<spyre::SpyreDialect, mlir::func::FuncDialect>();
  auto ctx = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  return ctx;
}

json loadSeed(const std::string &name) {
  std::ifstream in(std::string(SPYRE_IMPORT_INPUTS) + "/" + name);
  return json::parse(in);
}

/// Every value of `j` (pre-order), for picking one to mutate.
void collect(json &j, std::vector<json *> &out) {
  out.push_back(&j);
  if (j.is_object() || j.is_array())
    for (auto &child : j)
      collect(child, out);
}

json randomValue(std::mt19937_64 &rng) {
  switch (rng() % 9) {
  case 0:
    return nullptr;
  case 1:
    return "as_quantum";
  case 2:
    return int64_t(rng());
  case 3:
    return -1;
  case 4:
    return 1e300;
  case 5:
    return json::array();
  case 6:
    return json::object();
  case 7:
    return json::object({{"as_int", 3}});
  default:
    return json::array({json::object({{"as_name", "undefined"}})});
  }
}

void mutate(json &doc, std::mt19937_64 &rng) {
  std::vector<json *> values;
  collect(doc, values);
  json &target = *values[rng() % values.size()];
  switch (rng() % 4) {
  case 0: // Replace by a value of another type.
    target = randomValue(rng);
    break;
  case 1: // Delete a key or element.
    if (target.is_object() && !target.empty()) {
      auto it = target.begin();
      std::advance(it, rng() % target.size());
      target.erase(it);
    } else if (target.is_array() && !target.empty()) {
      target.erase(target.begin() + rng() % target.size());
    }
    break;
  case 2: // Duplicate an element (nodes defined twice, extra arguments).
    if (target.is_array() && !target.empty())
      target.push_back(target[rng() % target.size()]);
    break;
  default: // Empty it.
    if (target.is_object() || target.is_array())
      target.clear();
    break;
  }
}

TEST(ImporterFuzz, StructuredMutantsNeverCrash) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("importer-fuzz", "json", path));
  std::mt19937_64 rng(20261130);
  int count = iterations(500);
  int imported = 0, rejected = 0;
  for (const char *seed : {"relu_fp16.model.json", "mlp_fp16.model.json",
                           "symbolic_batch.model.json"}) {
    json original = loadSeed(seed);
    for (int i = 0; i < count; ++i) {
      json doc = original;
      for (int m = 1 + int(rng() % 3); m > 0; --m)
        mutate(doc, rng);
      {
        // A new file each time: truncating one costs a flush on ext4.
        llvm::sys::fs::remove(path);
        std::ofstream out(path.c_str());
        out << doc.dump();
      }
      std::unique_ptr<mlir::MLIRContext> ctx = makeContext();
      std::string diagnostics;
      mlir::ScopedDiagnosticHandler handler(ctx.get(),
                                            [&](mlir::Diagnostic &d) {
                                              diagnostics += d.str();
                                              return mlir::success();
                                            });
      spyre::Pt2ImportOptions options;
      if (spyre::importPt2(path, ctx.get(), options)) {
        ++imported;
      } else {
        ++rejected;
        EXPECT_FALSE(diagnostics.empty())
            << "rejected without a message: " << doc.dump();
      }
    }
  }
  llvm::sys::fs::remove(path);
  // The sweep must exercise both outcomes to mean anything.
  EXPECT_GT(imported, 0);
  EXPECT_GT(rejected, 0);
}

//===----------------------------------------------------------------------===//
// Weights configs: import, compile and emit
//===----------------------------------------------------------------------===//

/// The entries of a zip archive, in order, as (name, bytes).
using Entries = std::vector<std::pair<std::string, std::string>>;

Entries readArchive(const std::string &path) {
  std::string error;
  std::unique_ptr<spyre::Pt2Archive> archive =
      spyre::Pt2Archive::open(path, error);
  EXPECT_TRUE(archive) << error;
  Entries out;
  if (archive)
    for (const std::string &name : archive->entries()) {
      std::optional<std::string> bytes = archive->read(name, error);
      EXPECT_TRUE(bytes) << error;
      out.emplace_back(archive->root() + name, bytes.value_or(""));
    }
  return out;
}

/// Writes `entries` as a zip of stored entries (what torch writes), or of
/// deflated ones (a re-zipped archive: weights are decompressed to be read).
bool writeArchive(const std::string &path, const Entries &entries,
                  bool deflate = false) {
  int code = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!z)
    return false;
  for (const auto &[name, bytes] : entries) {
    zip_source_t *src =
        zip_source_buffer(z, bytes.data(), bytes.size(), /*freep=*/0);
    zip_int64_t index = src ? zip_file_add(z, name.c_str(), src, 0) : -1;
    if (index < 0 ||
        zip_set_file_compression(z, zip_uint64_t(index),
                                 deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0)) {
      if (src && index < 0)
        zip_source_free(src);
      zip_discard(z);
      return false;
    }
  }
  return zip_close(z) == 0;
}

/// Numbers that break size arithmetic: zero, negatives, the edges of 32
/// and 64 bits, strides whose products wrap.
json edgeNumber(std::mt19937_64 &rng) {
  static const int64_t values[] = {0,
                                   1,
                                   -1,
                                   3,
                                   4,
                                   13,
                                   int64_t(1) << 31,
                                   (int64_t(1) << 32) + 1,
                                   int64_t(1) << 62,
                                   (int64_t(1) << 62) + 1,
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
  return values[rng() % std::size(values)];
}

/// A weights-config mutation: the structural ones above, or a number
/// (size, stride, offset, dtype) replaced by an edge value, or a path_name
/// pointing elsewhere.
void mutateConfig(json &doc, std::mt19937_64 &rng) {
  std::vector<json *> values;
  collect(doc, values);
  std::vector<json *> numbers, strings;
  for (json *v : values) {
    if (v->is_number_integer())
      numbers.push_back(v);
    else if (v->is_string())
      strings.push_back(v);
  }
  switch (rng() % 3) {
  case 0:
    if (!numbers.empty()) {
      *numbers[rng() % numbers.size()] = edgeNumber(rng);
      return;
    }
    break;
  case 1:
    if (!strings.empty()) {
      static const char *names[] = {"weight_0",
                                    "weight_1",
                                    "",
                                    "../models/model.json",
                                    "model_weights_config.json",
                                    "weight_9"};
      *strings[rng() % strings.size()] = names[rng() % std::size(names)];
      return;
    }
    break;
  default:
    break;
  }
  mutate(doc, rng);
}

TEST(ImporterFuzz, WeightsConfigMutantsCompileOrFail) {
  const std::string seed =
      std::string(SPYRE_E2E_MODELS) + "/linear_relu_fp32/model.pt2";
  Entries original = readArchive(seed);
  const std::string configName = "model/data/weights/model_weights_config.json";
  auto config = std::find_if(original.begin(), original.end(),
                             [&](auto &e) { return e.first == configName; });
  ASSERT_NE(config, original.end());
  const json configJson = json::parse(config->second);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("weights-fuzz", "pt2", path));
  std::mt19937_64 rng(20261201);
  int count = iterations(150);
  int emitted = 0, rejected = 0;
  for (int i = 0; i < count; ++i) {
    json doc = configJson;
    for (int m = 1 + int(rng() % 2); m > 0; --m)
      mutateConfig(doc, rng);
    Entries entries = original;
    entries[size_t(config - original.begin())].second = doc.dump();
    ASSERT_TRUE(writeArchive(path.str().str(), entries, i % 4 == 3));

    std::unique_ptr<mlir::MLIRContext> ctx = makeContext();
    std::string diagnostics;
    mlir::ScopedDiagnosticHandler handler(ctx.get(), [&](mlir::Diagnostic &d) {
      diagnostics += d.str();
      return mlir::success();
    });
    spyre::Pt2ImportOptions options;
    options.inlineWeightBytes = 0; // Every weight read by ExternalData.
    mlir::OwningOpRef<mlir::ModuleOp> module =
        spyre::importPt2(path, ctx.get(), options);
    bool ok = bool(module);
    if (ok) {
      mlir::PassManager pm(ctx.get());
      spyre::PipelineOptions pipeline;
      spyre::buildSpyrePipeline(pm, pipeline);
      ok = mlir::succeeded(pm.run(*module));
    }
    if (ok) {
      std::string spy;
      llvm::raw_string_ostream os(spy);
      ok = mlir::succeeded(spyre::emitSpy(*module, os, {}));
    }
    if (ok) {
      ++emitted;
    } else {
      ++rejected;
      EXPECT_FALSE(diagnostics.empty())
          << "rejected without a message: " << doc.dump();
      if (std::getenv("SPYRE_FUZZ_VERBOSE"))
        std::printf("%s\n", diagnostics.substr(0, 300).c_str());
    }
  }
  llvm::sys::fs::remove(path);
  std::printf("weights config mutants: %d emitted, %d rejected\n", emitted,
              rejected);
  EXPECT_GT(emitted, 0);
  EXPECT_GT(rejected, 0);
}

//===----------------------------------------------------------------------===//
// Pickles: bytes
//===----------------------------------------------------------------------===//

/// A byte-level mutation of `p`; `sameLength` ones keep every offset.
void mutateBytes(std::string &p, std::mt19937_64 &rng, bool sameLength) {
  // Opcodes and lengths that matter to the reader.
  static const char interesting[] = {
      '\x00', '\x01', '\x7f', '\xff', '(',    ')',    '.',    '0',
      '2',    'K',    'M',    'J',    'N',    'Q',    'R',    'X',
      ']',    'a',    'b',    'c',    'e',    'h',    'q',    's',
      't',    'u',    '}',    '\x85', '\x86', '\x87', '\x88', '\x89',
      '\x8a', '\x8c', '\x93', '\x94', '\x95'};
  size_t at = p.empty() ? 0 : rng() % p.size();
  switch (rng() % (sameLength ? 2 : 5)) {
  case 0:
    if (!p.empty())
      p[at] = char(p[at] ^ (1 << (rng() % 8)));
    break;
  case 1:
    if (!p.empty())
      p[at] = interesting[rng() % std::size(interesting)];
    break;
  case 2:
    p.insert(p.begin() + long(at), interesting[rng() % std::size(interesting)]);
    break;
  case 3:
    if (!p.empty())
      p.erase(at, 1 + rng() % 8);
    break;
  default: { // Repeat a run: duplicated tensors, nested containers.
    size_t n = std::min<size_t>(p.size() - at, 1 + rng() % 64);
    p.insert(at, p.substr(at, n));
    break;
  }
  }
}

TEST(ImporterFuzz, PickleByteMutantsNeverCrash) {
  // data/weights/model.pt of the torch 2.8 (protocol 2) and protocol 4
  // archives, and the data.pkl inside each.
  int count = iterations(3000);
  int accepted = 0, rejected = 0;
  std::mt19937_64 rng(20261202);
  for (const char *seed : {"legacy_pickled_weights_2_8.pt2",
                           "legacy_pickled_weights_proto4.pt2"}) {
    std::string error;
    auto outer = spyre::Pt2Archive::open(
        std::string(SPYRE_IMPORT_INPUTS) + "/" + seed, error);
    ASSERT_TRUE(outer) << error;
    std::optional<std::string> modelPt =
        outer->read("data/weights/model.pt", error);
    ASSERT_TRUE(modelPt) << error;
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("pickle-fuzz", "pt", path));
    {
      std::ofstream(path.c_str(), std::ios::binary) << *modelPt;
    }
    auto inner = spyre::Pt2Archive::open(path.str().str(), error);
    ASSERT_TRUE(inner) << error;
    std::optional<std::string> pickle = inner->read("data.pkl", error);
    ASSERT_TRUE(pickle) << error;
    llvm::sys::fs::remove(path);
    // Stored: the pickle's bytes are in the file as they are.
    size_t at = modelPt->find(*pickle);
    ASSERT_NE(at, std::string::npos);

    for (int i = 0; i < count; ++i) {
      bool sameLength = i % 2 == 0;
      std::string p = *pickle;
      for (int m = 1 + int(rng() % 3); m > 0; --m)
        mutateBytes(p, rng, sameLength);
      std::string why;
      if (spyre::unpickleTensorDict(p, "data.pkl", why)) {
        ++accepted;
      } else {
        ++rejected;
        EXPECT_FALSE(why.empty());
      }
      // In place in the torch.save zip: the views it describes are checked
      // against the storages.
      if (sameLength) {
        std::string &file = *modelPt;
        file.replace(at, p.size(), p);
        why.clear();
        if (!spyre::readTorchSave(file, "model.pt", why)) {
          EXPECT_FALSE(why.empty());
        }
        file.replace(at, p.size(), *pickle);
      }
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

} // namespace
