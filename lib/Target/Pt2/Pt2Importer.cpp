//===- Pt2Importer.cpp - torch.export programs to graph-level IR ----------===//
//
// Reads the exported program (docs/pt2-format.md) and builds one function:
// user inputs become arguments, parameters/buffers/constants `spyre.weight`s,
// every node one `spyre.aten` (the importer is total: unknown ops import and
// spyre-decompose reports them), user outputs the results.
//
// Built with -fexceptions: nlohmann/json throws on type errors, and every
// exception is caught in importPt2 and reported as a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/Pt2Importer.h"
#include "spyre/Target/Pt2/Pt2Unions.h"
#include "spyre/Dialect/Spyre/AtenSchema.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Target/Pt2/Pt2Archive.h"
#include "spyre/Target/Pt2/StridedView.h"
#include "spyre/Target/Pt2/TorchSave.h"
#include "spyre/Target/Pt2/SymbolicExpr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "spyre/Support/Json.h"

#include <cctype>
#include <set>
#include <utility>

using namespace mlir;
using nlohmann::json;

namespace spyre {

namespace {

/// Schema majors and the newest minor this importer knows.
constexpr int kSchemaMajor = 8;
constexpr int kNewestKnownMinor = 20;

/// An import error already reported as a diagnostic.
struct Reported {};

/// ScalarType codes of the schema (docs/pt2-format.md section 3.6).
struct DTypeInfo {
  const char *name;
  int64_t bytes;
};
std::optional<DTypeInfo> dtypeInfo(int64_t code) {
  switch (code) {
  case 1: return DTypeInfo{"uint8", 1};
  case 2: return DTypeInfo{"int8", 1};
  case 3: return DTypeInfo{"int16", 2};
  case 4: return DTypeInfo{"int32", 4};
  case 5: return DTypeInfo{"int64", 8};
  case 6: return DTypeInfo{"float16", 2};
  case 7: return DTypeInfo{"float32", 4};
  case 8: return DTypeInfo{"float64", 8};
  case 9: return DTypeInfo{"complex32", 4};
  case 10: return DTypeInfo{"complex64", 8};
  case 11: return DTypeInfo{"complex128", 16};
  case 12: return DTypeInfo{"bool", 1};
  case 13: return DTypeInfo{"bfloat16", 2};
  case 28: return DTypeInfo{"uint16", 2};
  case 29: return DTypeInfo{"float8_e4m3fn", 1};
  case 30: return DTypeInfo{"float8_e5m2", 1};
  case 31: return DTypeInfo{"float8_e4m3fnuz", 1};
  case 32: return DTypeInfo{"float8_e5m2fnuz", 1};
  default: return std::nullopt;
  }
}

/// The MLIR element type of a ScalarType code; null when Spyre has none.
Type elementType(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  switch (code) {
  case 1: return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 2: return b.getIntegerType(8);
  case 3: return b.getIntegerType(16);
  case 4: return b.getI32Type();
  case 5: return b.getI64Type();
  case 6: return b.getF16Type();
  case 7: return b.getF32Type();
  case 8: return b.getF64Type();
  case 12: return b.getI1Type();
  case 13: return b.getBF16Type();
  default: return nullptr;
  }
}

/// The name of an element type as `as_scalar_type` arguments carry it.
std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// One `File "path", line N, in fn` frame of a stack trace.
struct Frame {
  std::string file;
  unsigned line = 0;
};

/// The frames of a Python traceback, scanned by hand: the text is untrusted
/// and std::regex recurses once per character matched (a long file name
/// overflows the stack).
std::vector<Frame> parseStackTrace(const std::string &text) {
  static constexpr std::string_view kFile = "File \"", kLine = "\", line ";
  std::vector<Frame> frames;
  for (size_t at = text.find(kFile); at != std::string::npos;
       at = text.find(kFile, at)) {
    size_t nameStart = at + kFile.size();
    size_t nameEnd = text.find('"', nameStart);
    if (nameEnd == std::string::npos)
      break;
    at = nameEnd;
    if (nameEnd == nameStart || text.compare(nameEnd, kLine.size(), kLine) != 0)
      continue;
    size_t digits = nameEnd + kLine.size(), end = digits;
    uint64_t line = 0;
    while (end < text.size() && end - digits < 9 &&
           std::isdigit((unsigned char)text[end]))
      line = line * 10 + unsigned(text[end++] - '0');
    if (end == digits)
      continue;
    frames.push_back(
        {text.substr(nameStart, nameEnd - nameStart), unsigned(line)});
    at = end;
  }
  return frames;
}

/// The user's frame: the innermost one outside torch itself.
std::optional<Frame> userFrame(const std::vector<Frame> &frames) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it)
    if (it->file.find("torch/") == std::string::npos &&
        it->file.find("torch\\") == std::string::npos)
      return *it;
  if (!frames.empty())
    return frames.front();
  return std::nullopt;
}

/// The module path of the innermost nn_module_stack entry ("fc1").
std::string modulePath(const std::string &stack) {
  // Entries are `key,path,type` separated by ';', outermost first.
  size_t start = stack.rfind(';');
  std::string last = start == std::string::npos ? stack : stack.substr(start + 1);
  size_t c1 = last.find(',');
  if (c1 == std::string::npos)
    return "";
  size_t c2 = last.find(',', c1 + 1);
  return last.substr(c1 + 1, c2 == std::string::npos ? std::string::npos
                                                       : c2 - c1 - 1);
}

/// Reads the only key of a union object.
/// Anything else is malformed: thrown, and reported by importPt2's catch.
std::pair<std::string, const json *> unionTag(const json &j) {
  if (!j.is_object() || j.size() != 1) {
    std::string text = j.dump();
    if (text.size() > 80)
      text = text.substr(0, 77) + "...";
    throw std::invalid_argument("expected a union (an object with one key), "
                                "got " + text);
  }
  auto it = j.begin();
  return {it.key(), &it.value()};
}

/// The most nodes a graph may have: 30 times a 40-layer 8B model's, far
/// below what exhausts host memory (a node costs a few KB).
constexpr size_t kMaxGraphNodes = 100000;

class Importer {
public:
  Importer(MLIRContext *ctx, StringRef path, const Pt2ImportOptions &options)
      : ctx(ctx), b(ctx), path(path.str()), options(options),
        fileLoc(FileLineColLoc::get(ctx, displayPath(), 0, 0)) {}

  OwningOpRef<ModuleOp> run() {
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
      fail(fileLoc, std::string("invalid JSON in the exported program: ") +
                        e.what());
    }
    return build(program);
  }

private:
  /// The input as messages name it.
  StringRef displayPath() const {
    return options.sourceName.empty() ? StringRef(path)
                                      : StringRef(options.sourceName);
  }

  MLIRContext *ctx;
  OpBuilder b;
  std::string path;
  const Pt2ImportOptions &options;
  Location fileLoc;
  std::unique_ptr<Pt2Archive> archive;
  /// Identifies the input by content (Pt2Archive::contentDigest, or XXH3 of
  /// a JSON file), so that spyre.source is the same from any directory.
  uint64_t contentDigest = 0;
  std::string modelEntry;
  json weightsConfig = json::object(), constantsConfig = json::object();
  json tensorValues;
  llvm::StringMap<Value> values;
  /// SymInt values the graph computes (sym_size...): an i64 attribute when
  /// --bind-dims fixes them, else a string attribute holding the expression.
  llvm::StringMap<Attribute> symbolValues;
  json symIntValues = json::object();
  /// Buffers and user inputs by graph name: the `spyre.output` kind their
  /// new contents get if an in-place op (training IR) mutates them.
  llvm::StringMap<std::string> mutableInputs;
  /// Graph names mutated in place, in first-mutation order.
  SmallVector<std::string> mutatedInPlace;
  /// Parameters by graph name: their FQN.
  llvm::StringMap<std::string> parameterNames;
  /// View results by name: the tensor whose storage they share.
  llvm::StringMap<std::string> viewRoots;
  /// View results by name: the tensor they view and the op that made them
  /// (one level), to carry a write through a view back to its base.
  llvm::StringMap<std::pair<std::string, AtenOp>> viewParents;
  /// Views whose base an in-place op has changed through another view: their
  /// values are out of date, so reading one is an error.
  llvm::StringMap<std::string> staleViews;
  /// How many higher-order op subgraphs enclose the node being imported.
  int subgraphDepth = 0;
  /// range_constraints: symbol -> [min, max] (max absent: unbounded).
  std::map<std::string, std::pair<int64_t, std::optional<int64_t>>> ranges;
  int schemaMinor = 0;

  [[noreturn]] void fail(Location loc, const std::string &message) {
    emitError(loc) << message;
    throw Reported();
  }

  //===--- Archive --------------------------------------------------------===//

  std::string readModelJson() {
    std::vector<std::string> models;
    for (const std::string &e : archive->entries())
      if (e.rfind("models/", 0) == 0 && StringRef(e).ends_with(".json"))
        models.push_back(e);
    if (models.empty()) {
      if (archive->contains("serialized_exported_program.json"))
        fail(fileLoc, legacyExportSaveMessage(path));
      fail(fileLoc, "'" + path + "' has no models/*.json: not a torch.export "
                    "archive");
    }
    if (models.size() > 1)
      fail(fileLoc, "'" + path + "' holds " + std::to_string(models.size()) +
                        " programs; import one at a time is not supported");
    std::string error;
    if (auto format = archive->read("archive_format", error);
        format && *format != "pt2")
      fail(fileLoc, "'" + path + "': archive_format is '" + *format +
                        "', expected 'pt2'");
    modelEntry = models.front();
    std::optional<std::string> text = archive->read(modelEntry, error);
    if (!text)
      fail(fileLoc, error);
    return *text;
  }

  void readPayloadConfig(const std::string &entry, json &out) {
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

  //===--- Types ----------------------------------------------------------===//

  /// A SymInt: its value, or nullopt while a symbol in it is unbound (then
  /// `symbol` gets the expression, e.g. "32*s0").
  std::optional<int64_t> symInt(const json &j, Location loc,
                                std::string *symbol = nullptr) {
    auto [tag, value] = unionTag(j);
    if (tag == "as_int")
      return value->get<int64_t>();
    if (tag == "as_expr")
      return symExpr((*value)["expr_str"].get<std::string>(), loc, symbol);
    fail(loc, "malformed SymInt (tag '" + tag + "')");
  }

  std::optional<int64_t> symExpr(const std::string &text, Location loc,
                                 std::string *symbol) {
    std::string error;
    std::unique_ptr<SymbolicExpr> expr = SymbolicExpr::parse(text, error);
    if (!expr)
      fail(loc, "cannot read symbolic size '" + text + "': " + error);
    if (std::optional<int64_t> v = expr->evaluate(options.boundDims))
      return v;
    SmallVector<std::string> symbols;
    expr->collectSymbols(symbols);
    if (llvm::all_of(symbols, [&](const std::string &s) {
          return options.boundDims.count(s);
        }))
      fail(loc, "symbolic size '" + expr->str() + "' cannot be evaluated "
                "with the --bind-dims values (overflow or division by zero)");
    if (symbol)
      *symbol = expr->str();
    return std::nullopt;
  }

  RankedTensorType tensorType(const std::string &name, Location loc,
                              SmallVectorImpl<std::string> *dimSymbols = nullptr) {
    if (!tensorValues.contains(name))
      fail(loc, "tensor '" + name + "' has no entry in tensor_values");
    const json &meta = tensorValues[name];
    return metaType(meta, name, loc, dimSymbols);
  }

  /// `spyre.dims`: the symbolic expression of each dynamic dim ("" for
  /// static ones), so that the pass that needs static shapes can name the
  /// symbol to bind. Null when every dim is static.
  ArrayAttr dimSymbolsAttr(ArrayRef<std::string> dimSymbols) {
    if (llvm::all_of(dimSymbols, [](const std::string &s) { return s.empty(); }))
      return nullptr;
    SmallVector<Attribute> elems;
    for (const std::string &s : dimSymbols)
      elems.push_back(b.getStringAttr(s));
    return b.getArrayAttr(elems);
  }

  /// Refuses a tensor whose static sizes multiply past kMaxTensorBytes.
  void checkTensorSize(ArrayRef<int64_t> shape, int64_t elementBytes,
                       const std::string &name, Location loc) {
    if (!denseTensorBytes(shape, uint64_t(elementBytes)))
      fail(loc, "tensor '" + name + "' of shape [" +
                    llvm::join(llvm::map_range(shape,
                                               [](int64_t d) {
                                                 return d < 0
                                                            ? std::string("?")
                                                            : std::to_string(d);
                                               }),
                               ", ") +
                    "] has more than 2^48 bytes");
  }

  /// The type of a TensorMeta; `dimSymbols` (when given) gets each dim's
  /// symbolic expression, empty for static dims.
  RankedTensorType metaType(const json &meta, const std::string &name,
                            Location loc,
                            SmallVectorImpl<std::string> *dimSymbols = nullptr) {
    int64_t code = meta["dtype"].get<int64_t>();
    std::optional<DTypeInfo> info = dtypeInfo(code);
    if (!info)
      fail(loc, "tensor '" + name + "' has an invalid dtype code " +
                    std::to_string(code));
    Type et = elementType(ctx, code);
    if (!et)
      fail(loc, "tensor '" + name + "' has dtype " + info->name +
                    ", which Spyre cannot represent");
    SmallVector<int64_t> shape;
    for (const json &s : meta["sizes"]) {
      std::string symbol;
      std::optional<int64_t> v = symInt(s, loc, &symbol);
      if (v && *v < 0)
        fail(loc, "tensor '" + name + "' has a negative size");
      shape.push_back(v ? *v : ShapedType::kDynamic);
      if (dimSymbols)
        dimSymbols->push_back(v ? "" : symbol);
    }
    checkTensorSize(shape, info->bytes, name, loc);
    return RankedTensorType::get(shape, et);
  }

  //===--- Locations ------------------------------------------------------===//

  Location nodeLoc(const json &node, const std::string &name) {
    Location loc = fileLoc;
    const json &meta = node.contains("metadata") ? node["metadata"] : json();
    if (meta.is_object() && meta.contains("stack_trace") &&
        meta["stack_trace"].is_string())
      if (auto frame = userFrame(parseStackTrace(meta["stack_trace"])))
        loc = FileLineColLoc::get(ctx, frame->file, frame->line, 0);
    loc = NameLoc::get(b.getStringAttr(name), loc);
    if (meta.is_object() && meta.contains("nn_module_stack") &&
        meta["nn_module_stack"].is_string()) {
      std::string module = modulePath(meta["nn_module_stack"]);
      if (!module.empty())
        loc = FusedLoc::get(ctx, {loc}, b.getStringAttr(module));
    }
    return loc;
  }

  //===--- Arguments ------------------------------------------------------===//

  Value tensorValue(const json &ref, Location loc) {
    std::string name = ref["name"].get<std::string>();
    if (auto stale = staleViews.find(name); stale != staleViews.end())
      fail(loc, "tensor '" + name + "' is a view of '" + stale->second +
                    "', which an in-place op has changed since through "
                    "another view; reading it afterwards is not supported");
    auto it = values.find(name);
    if (it == values.end())
      fail(loc, "tensor '" + name + "' is used but never defined");
    return it->second;
  }

  Attribute floatAttr(const json &v) {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      double d = s == "Infinity" ? std::numeric_limits<double>::infinity()
                 : s == "-Infinity" ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::quiet_NaN();
      return b.getF64FloatAttr(d);
    }
    return b.getF64FloatAttr(v.get<double>());
  }

  /// Adds one named argument to the node being built.
  void addArgument(const std::string &name, const json &arg, Location loc,
                   SmallVectorImpl<Value> &operands,
                   SmallVectorImpl<Attribute> &tensorArgs,
                   SmallVectorImpl<NamedAttribute> &attrs) {
    auto [tag, value] = unionTag(arg);
    auto addTensor = [&](const json &ref) {
      operands.push_back(tensorValue(ref, loc));
      tensorArgs.push_back(b.getStringAttr(name));
    };
    auto attr = [&](Attribute a) { attrs.push_back(b.getNamedAttr(name, a)); };
    auto symList = [&](const json &list) {
      SmallVector<Attribute> elems;
      for (const json &e : list) {
        auto [t, v] = unionTag(e);
        if (t == "as_int")
          elems.push_back(b.getI64IntegerAttr(v->get<int64_t>()));
        else if (t == "as_name")
          elems.push_back(symbolic(v->get<std::string>(), loc));
        else
          fail(loc, "malformed SymIntArgument in argument '" + name + "'");
      }
      return b.getArrayAttr(elems);
    };
    if (tag == "as_tensor")
      addTensor(*value);
    else if (tag == "as_tensors")
      for (const json &t : *value)
        addTensor(t);
    else if (tag == "as_optional_tensors") {
      // Present tensors are operands; the mask records where Nones were.
      SmallVector<Attribute> mask;
      for (const json &t : *value) {
        auto [ot, ov] = unionTag(t);
        if (ot == "as_tensor")
          addTensor(*ov);
        else if (ot != "as_none")
          fail(loc, "malformed optional tensor in argument '" + name + "'");
        mask.push_back(b.getBoolAttr(ot == "as_tensor"));
      }
      attr(b.getArrayAttr(mask));
    } else if (tag == "as_optional_tensor") {
      auto [ot, ov] = unionTag(*value);
      if (ot == "as_tensor")
        addTensor(*ov);
      else
        attr(b.getUnitAttr());
    } else if (tag == "as_none")
      attr(b.getUnitAttr());
    else if (tag == "as_int")
      attr(b.getI64IntegerAttr(value->get<int64_t>()));
    else if (tag == "as_float")
      attr(floatAttr(*value));
    else if (tag == "as_bool")
      attr(b.getBoolAttr(value->get<bool>()));
    else if (tag == "as_string")
      attr(b.getStringAttr(value->get<std::string>()));
    else if (tag == "as_ints") {
      SmallVector<Attribute> elems;
      for (const json &e : *value)
        elems.push_back(b.getI64IntegerAttr(e.get<int64_t>()));
      attr(b.getArrayAttr(elems));
    } else if (tag == "as_floats") {
      SmallVector<Attribute> elems;
      for (const json &e : *value)
        elems.push_back(floatAttr(e));
      attr(b.getArrayAttr(elems));
    } else if (tag == "as_bools") {
      SmallVector<Attribute> elems;
      for (const json &e : *value)
        elems.push_back(b.getBoolAttr(e.get<bool>()));
      attr(b.getArrayAttr(elems));
    } else if (tag == "as_strings") {
      SmallVector<Attribute> elems;
      for (const json &e : *value)
        elems.push_back(b.getStringAttr(e.get<std::string>()));
      attr(b.getArrayAttr(elems));
    } else if (tag == "as_sym_int") {
      auto [t, v] = unionTag(*value);
      if (t == "as_int")
        attr(b.getI64IntegerAttr(v->get<int64_t>()));
      else if (t == "as_name")
        attr(symbolic(v->get<std::string>(), loc));
      else
        fail(loc, "malformed SymIntArgument in argument '" + name + "'");
    } else if (tag == "as_sym_ints")
      attr(symList(*value));
    else if (tag == "as_sym_float") {
      auto [t, v] = unionTag(*value);
      if (t != "as_float")
        fail(loc, "symbolic float argument '" + name + "' is not supported");
      attr(floatAttr(*v));
    } else if (tag == "as_sym_bool") {
      auto [t, v] = unionTag(*value);
      if (t != "as_bool")
        fail(loc, "symbolic bool argument '" + name + "' is not supported");
      attr(b.getBoolAttr(v->get<bool>()));
    } else if (tag == "as_scalar_type") {
      int64_t code = value->get<int64_t>();
      Type t = elementType(ctx, code);
      std::optional<DTypeInfo> info = dtypeInfo(code);
      if (!t)
        fail(loc, "argument '" + name + "' names dtype " +
                      (info ? std::string(info->name)
                            : "code " + std::to_string(code)) +
                      ", which Spyre cannot represent");
      attr(b.getStringAttr(typeName(t)));
    } else if (tag == "as_memory_format" || tag == "as_layout") {
      attr(b.getI64IntegerAttr(value->get<int64_t>()));
    } else if (tag == "as_device") {
      attr(b.getStringAttr((*value)["type"].get<std::string>()));
    } else if (tag == "as_sym_bools" || tag == "as_sym_floats" ||
               tag == "as_complex" || tag == "as_graph" ||
               tag == "as_custom_obj" || tag == "as_operator" ||
               tag == "as_nested_tensors" || tag == "as_int_lists" ||
               tag == "as_string_to_argument") {
      fail(loc, "argument '" + name + "' of kind '" + tag +
                    "' is not supported");
    } else {
      fail(loc, "unknown Argument tag '" + tag + "' in argument '" + name +
                    "' (schema 8." + std::to_string(schemaMinor) + ")");
    }
  }

  /// A SymInt the graph computed (sym_size...): its value, or the string of
  /// its expression while a symbol is unbound (spyre-decompose then reports
  /// it, naming the symbol).
  Attribute symbolic(const std::string &name, Location loc) {
    auto it = symbolValues.find(name);
    if (it == symbolValues.end())
      fail(loc, "symbolic value '" + name + "' is used but never defined");
    return it->second;
  }

  /// A node computing SymInts (sym_size.int, operator.mul on sizes...):
  /// resolved here, no op is built. True when `node` was one.
  bool importSymIntNode(const json &node, const std::string &op, Location loc) {
    const json &outs = node["outputs"];
    if (outs.empty())
      return false;
    for (const json &out : outs)
      if (unionTag(out).first != "as_sym_int" &&
          unionTag(out).first != "as_sym_bool")
        return false;
    for (const json &out : outs) {
      auto [kind, arg] = unionTag(out);
      auto [tag, ref] = unionTag(*arg);
      if (tag != "as_name")
        continue;
      std::string name = ref->get<std::string>();
      // A guard's condition (sym_size(x, 0) == 4): only shape asserts,
      // which are skipped, read it.
      if (kind == "as_sym_bool") {
        symbolValues[name] = b.getStringAttr("<symbolic bool>");
        continue;
      }
      std::optional<int64_t> v;
      std::string expr;
      // sym_size of a tensor whose dim is static (after --bind-dims).
      if (op == "aten.sym_size.int")
        v = staticSymSize(node, loc);
      if (!v) {
        if (!symIntValues.contains(name))
          fail(loc, "symbolic op '" + op + "' computes '" + name +
                        "', which has no entry in sym_int_values");
        v = symInt(symIntValues[name], loc, &expr);
      }
      if (values.count(name) || symbolValues.count(name))
        fail(loc, "value '" + name + "' is defined twice");
      symbolValues[name] = v ? Attribute(b.getI64IntegerAttr(*v))
                             : Attribute(b.getStringAttr(expr));
    }
    return true;
  }

  /// The size `sym_size.int(self, dim)` reads when that dim is static.
  std::optional<int64_t> staticSymSize(const json &node, Location loc) {
    Value self;
    std::optional<int64_t> dim;
    for (const json &in : node["inputs"]) {
      auto [tag, value] = unionTag(in["arg"]);
      if (in["name"] == "self" && tag == "as_tensor")
        self = tensorValue(*value, loc);
      else if (in["name"] == "dim" && tag == "as_int")
        dim = value->get<int64_t>();
    }
    if (!self || !dim)
      return std::nullopt;
    auto type = cast<RankedTensorType>(self.getType());
    int64_t d = *dim < 0 ? *dim + type.getRank() : *dim;
    if (d < 0 || d >= type.getRank() || type.isDynamicDim(d))
      return std::nullopt;
    return type.getDimSize(d);
  }

  //===--- Weights --------------------------------------------------------===//

  /// torch 2.6-2.8 archives: the tensors of the pickled state dict and
  /// constants (data/{weights,constants}/model.pt), read on first use.
  std::optional<std::map<std::string, SavedTensor>> pickledWeights,
      pickledConstants;

  const std::map<std::string, SavedTensor> &
  pickledDict(const std::string &entry,
              std::optional<std::map<std::string, SavedTensor>> &dict,
              Location loc) {
    if (dict)
      return *dict;
    if (!archive->contains(entry))
      return dict.emplace();
    // The nested zip is parsed in place when stored (what torch writes);
    // its storages are then addressed inside this entry, never copied.
    std::string error;
    uint64_t size = archive->entrySize(entry).value_or(0);
    MappedRange mapped;
    std::vector<uint8_t> copy;
    std::string_view bytes;
    if (std::optional<uint64_t> at = archive->storedDataOffset(entry, error)) {
      std::optional<MappedRange> m = MappedRange::map(path, *at, size, error);
      if (!m)
        fail(loc, error);
      mapped = std::move(*m);
      bytes = {reinterpret_cast<const char *>(mapped.data()), mapped.size()};
    } else {
      std::optional<std::vector<uint8_t>> r =
          archive->readRange(entry, 0, size, error);
      if (!r)
        fail(loc, error);
      copy = std::move(*r);
      bytes = {reinterpret_cast<const char *>(copy.data()), copy.size()};
    }
    std::optional<std::map<std::string, SavedTensor>> tensors =
        readTorchSave(bytes, entry, error);
    if (!tensors)
      fail(loc, error);
    return dict.emplace(std::move(*tensors));
  }

  /// A weight of a torch 2.6-2.8 archive and the entry that holds it, with
  /// the configs' precedence: the state dict for parameters and persistent
  /// buffers, else the constants.
  const SavedTensor &pickledTensor(const std::string &fqn, bool stateDictFirst,
                                   Location loc, std::string &entry) {
    const std::string weights = "data/weights/model.pt",
                      constants = "data/constants/model.pt";
    if (!archive->contains(weights) && !archive->contains(constants))
      fail(loc, "weight '" + fqn + "' is not in the archive's weights or "
                "constants config");
    auto find = [&](const std::string &e, auto &dict) -> const SavedTensor * {
      const std::map<std::string, SavedTensor> &d = pickledDict(e, dict, loc);
      auto it = d.find(fqn);
      if (it == d.end())
        return nullptr;
      entry = e;
      return &it->second;
    };
    const SavedTensor *t = stateDictFirst ? find(weights, pickledWeights)
                                          : nullptr;
    if (!t)
      t = find(constants, pickledConstants);
    if (!t && !stateDictFirst)
      t = find(weights, pickledWeights);
    if (!t)
      fail(loc, "weight '" + fqn + "' is in neither '" + weights +
                    "' nor '" + constants + "' (torch 2.6-2.8 pickles)");
    return *t;
  }

  Value weight(const std::string &fqn, const std::string &graphName,
               WeightKind kind, bool persistent) {
    Location loc = NameLoc::get(b.getStringAttr(fqn), fileLoc);
    RankedTensorType type = tensorType(graphName, loc);
    const json *config = nullptr;
    std::string dir;
    if (weightsConfig.contains(fqn) && (persistent || kind == WeightKind::parameter)) {
      config = &weightsConfig[fqn];
      dir = "data/weights/";
    } else if (constantsConfig.contains(fqn)) {
      config = &constantsConfig[fqn];
      dir = "data/constants/";
    } else if (weightsConfig.contains(fqn)) {
      config = &weightsConfig[fqn];
      dir = "data/weights/";
    }
    auto external = [&](StringRef file, StringRef entry, int64_t offset,
                        ArrayRef<int64_t> strides) {
      return WeightOp::create(b, loc, type, b.getStringAttr(fqn),
                              WeightKindAttr::get(ctx, kind), ElementsAttr(),
                              ExternalDataAttr::get(ctx, file, entry, offset,
                                                    strides));
    };
    if (!archive) // A bare JSON: no data to read.
      return external("", fqn, 0, {});
    // The stored view, and where its storage lies: `available` bytes at
    // `base` in archive entry `entry` (`source` in messages).
    RankedTensorType stored;
    SmallVector<int64_t> strides;
    int64_t storageOffset = 0;
    std::string entry, source;
    uint64_t base = 0, available = 0;
    if (config) {
      if ((*config).value("use_pickle", false))
        fail(loc, "weight '" + fqn + "' is a pickled tensor (use_pickle), "
                  "which cannot be read without Python");
      const json &meta = (*config)["tensor_meta"];
      stored = metaType(meta, fqn, loc);
      auto concrete = [&](const json &j) {
        std::string symbol;
        std::optional<int64_t> v = symInt(j, loc, &symbol);
        if (!v)
          fail(loc, "weight '" + fqn + "' has a symbolic stride or storage "
                    "offset (" + symbol + ")");
        return *v;
      };
      for (const json &s : meta["strides"])
        strides.push_back(concrete(s));
      storageOffset = concrete(meta["storage_offset"]);
      entry = dir + (*config)["path_name"].get<std::string>();
      std::optional<uint64_t> fileSize = archive->entrySize(entry);
      if (!fileSize)
        fail(loc, "weight '" + fqn + "': archive entry '" + entry +
                      "' is missing");
      available = *fileSize;
      source = "'" + entry + "'";
    } else {
      // torch 2.6-2.8: no payload configs, pickled dicts of tensors.
      const SavedTensor &t = pickledTensor(
          fqn, persistent || kind == WeightKind::parameter, loc, entry);
      Type element = elementType(ctx, t.view.dtype);
      if (!element)
        fail(loc, "weight '" + fqn + "' has dtype " +
                      dtypeInfo(t.view.dtype)->name +
                      ", which Spyre cannot represent");
      stored = RankedTensorType::get(t.view.sizes, element);
      strides.assign(t.view.strides.begin(), t.view.strides.end());
      storageOffset = t.view.storageOffset;
      base = t.dataOffset;
      available = t.storageBytes;
      source = "storage '" + t.view.storageKey + "' of '" + entry + "'";
    }
    if (stored.getShape() != type.getShape() ||
        stored.getElementType() != type.getElementType())
      fail(loc, "weight '" + fqn + "' is stored as " + typeName(stored) +
                    " but the graph uses it as " + typeName(type));
    int64_t elem = getElementBytes(type.getElementType());
    // Bytes the view reaches, checked: the metadata is untrusted.
    std::optional<uint64_t> spanElems =
        stridedViewSpan(type.getShape(), strides, storageOffset);
    uint64_t spanBytes;
    if (!spanElems || __builtin_mul_overflow(*spanElems, uint64_t(elem),
                                             &spanBytes))
      fail(loc, "weight '" + fqn + "' has an invalid view: " +
                    std::to_string(strides.size()) + " strides for rank " +
                    std::to_string(type.getRank()) +
                    ", strides and storage offset must be >= 0 and its "
                    "extent must fit in 64 bits");
    if (spanBytes > available)
      fail(loc, "weight '" + fqn + "' needs " + std::to_string(spanBytes) +
                    " bytes but " + source + " has " +
                    std::to_string(available));
    bool contiguous = true;
    for (int64_t d = type.getRank() - 1, expect = 1; d >= 0; --d) {
      if (type.getDimSize(d) != 1 && strides[d] != expect)
        contiguous = false;
      expect *= type.getDimSize(d);
    }
    int64_t bytes = type.getNumElements() * elem;
    if (bytes > options.inlineWeightBytes || type.getElementType().isInteger(1)) {
      SmallString<256> abs(path);
      llvm::sys::fs::make_absolute(abs);
      return external(abs, entry, int64_t(base) + storageOffset * elem,
                      contiguous ? ArrayRef<int64_t>() : ArrayRef<int64_t>(strides));
    }
    std::string error;
    std::optional<std::vector<uint8_t>> raw =
        archive->readRange(entry, base, spanBytes, error);
    if (!raw || !archive->verify(entry, base + spanBytes, error))
      fail(loc, "weight '" + fqn + "': " + error);
    std::vector<char> host(bytes);
    SmallVector<int64_t> index(type.getRank(), 0);
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      int64_t src = storageOffset;
      for (int64_t d = 0; d < type.getRank(); ++d)
        src += index[d] * strides[d];
      std::memcpy(host.data() + i * elem, raw->data() + src * elem, elem);
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        if (++index[d] < type.getDimSize(d))
          break;
        index[d] = 0;
      }
    }
    auto value = DenseElementsAttr::getFromRawBuffer(type, host);
    return WeightOp::create(b, loc, type, b.getStringAttr(fqn),
                            WeightKindAttr::get(ctx, kind), value,
                            ExternalDataAttr());
  }

  //===--- The program ----------------------------------------------------===//

  /// `range_constraints` ({"s0": {"min_val": 1, "max_val": 64}}), and the
  /// --bind-dims values checked against them.
  void readRangeConstraints(const json &program) {
    if (program.contains("range_constraints") &&
        program["range_constraints"].is_object())
      for (auto &[symbol, range] : program["range_constraints"].items()) {
        auto bound = [&](const char *key) -> std::optional<int64_t> {
          if (range.contains(key) && range[key].is_number_integer())
            return range[key].get<int64_t>();
          return std::nullopt; // null or "Infinity": unbounded
        };
        ranges[symbol] = {bound("min_val").value_or(0), bound("max_val")};
      }
    std::set<std::string> symbols = programSymbols();
    for (auto &[symbol, value] : options.boundDims) {
      if (!symbols.count(symbol)) {
        std::string known;
        for (const std::string &s : symbols)
          known += (known.empty() ? "" : ", ") + s;
        fail(fileLoc, "--bind-dims names '" + symbol +
                          "', which is not a symbol of this program" +
                          (known.empty() ? std::string(" (it has none)")
                                         : " (its symbols: " + known + ")"));
      }
      auto it = ranges.find(symbol);
      if (it == ranges.end())
        continue; // No exported range to check against.
      auto [lo, hi] = it->second;
      if (value < lo || (hi && value > *hi))
        fail(fileLoc, "--bind-dims " + symbol + "=" + std::to_string(value) +
                          " is outside the exported range " +
                          rangeText(symbol));
    }
  }

  /// The symbols of range_constraints and those in tensor sizes (an export
  /// may leave a symbol without a range).
  std::set<std::string> programSymbols() {
    std::set<std::string> out;
    for (auto &[symbol, range] : ranges)
      out.insert(symbol);
    for (auto &[name, meta] : tensorValues.items()) {
      if (!meta.is_object() || !meta.contains("sizes"))
        continue;
      for (const json &size : meta["sizes"]) {
        if (!size.is_object() || !size.contains("as_expr"))
          continue;
        std::string error;
        if (auto e = SymbolicExpr::parse(
                size["as_expr"].value("expr_str", std::string()), error)) {
          SmallVector<std::string> found;
          e->collectSymbols(found);
          out.insert(found.begin(), found.end());
        }
      }
    }
    return out;
  }

  std::string rangeText(const std::string &symbol) {
    auto [lo, hi] = ranges.at(symbol);
    return "[" + std::to_string(lo) + ", " +
           (hi ? std::to_string(*hi) : std::string("inf")) + "]";
  }

  /// The module's `spyre.range_constraints`: {s0 = [1, 64]} (a missing upper
  /// bound is written "inf"). Null when the program has no symbols.
  DictionaryAttr rangeConstraintsAttr() {
    if (ranges.empty())
      return nullptr;
    SmallVector<NamedAttribute> entries;
    for (auto &[symbol, range] : ranges) {
      Attribute hi = range.second ? Attribute(b.getI64IntegerAttr(*range.second))
                                  : Attribute(b.getStringAttr("inf"));
      entries.push_back(b.getNamedAttr(
          symbol, b.getArrayAttr({b.getI64IntegerAttr(range.first), hi})));
    }
    return b.getDictionaryAttr(entries);
  }

  void checkSchemaVersion(const json &program) {
    if (!program.contains("schema_version"))
      fail(fileLoc, "the exported program has no schema_version");
    const json &v = program["schema_version"];
    int major = v["major"].get<int>();
    schemaMinor = v["minor"].get<int>();
    if (major != kSchemaMajor)
      fail(fileLoc, "exported program schema version " + std::to_string(major) +
                        "." + std::to_string(schemaMinor) +
                        " is not supported; this importer reads 8.x (8.2 "
                        "through 8." + std::to_string(kNewestKnownMinor) + ")");
    if (schemaMinor > kNewestKnownMinor)
      emitWarning(fileLoc) << "exported program schema 8." << schemaMinor
                           << " is newer than the newest known (8."
                           << kNewestKnownMinor
                           << "); unknown fields are ignored";
  }

  /// Each node costs a few KB of IR and analysis; Granite-3.3-8B has 3,055.
  void checkGraphSize(const json &program) {
    const json *nodes = nullptr;
    if (program.contains("graph_module") &&
        program["graph_module"].contains("graph") &&
        program["graph_module"]["graph"].contains("nodes"))
      nodes = &program["graph_module"]["graph"]["nodes"];
    if (nodes && nodes->size() > kMaxGraphNodes)
      fail(fileLoc, "the graph has " + std::to_string(nodes->size()) +
                        " nodes; at most " + std::to_string(kMaxGraphNodes) +
                        " are imported (kMaxGraphNodes)");
  }

  OwningOpRef<ModuleOp> build(const json &program) {
    checkSchemaVersion(program);
    checkGraphSize(program);
    if (std::optional<std::string> error = checkProgramUnions(program))
      fail(fileLoc, *error);
    const json &gm = program["graph_module"];
    const json &graph = gm["graph"];
    tensorValues = graph["tensor_values"];
    if (graph.contains("sym_int_values") && graph["sym_int_values"].is_object())
      symIntValues = graph["sym_int_values"];
    readRangeConstraints(program);
    const json &signature = gm["signature"];
    const json &inputSpecs = signature["input_specs"];
    const json &outputSpecs = signature["output_specs"];

    OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
    // The file's name and content digest, not the path as typed: the same
    // model compiles to the same bytes from any directory.
    (*module)->setAttr(
        "spyre.source",
        b.getStringAttr(llvm::sys::path::filename(displayPath()) + " xxh3:" +
                        llvm::utohexstr(contentDigest, /*LowerCase=*/true,
                                        /*Width=*/16)));
    Arch arch;
    std::string error;
    if (options.archFile.empty())
      arch = Arch::builtinDefault();
    else if (!Arch::load(options.archFile, arch, error))
      fail(fileLoc, error);
    (*module)->setAttr(kArchAttrName, ArchAttr::get(ctx, arch));
    if (DictionaryAttr r = rangeConstraintsAttr())
      (*module)->setAttr("spyre.range_constraints", r);

    // Bind symbolic sizes of graph inputs from --bind-dims (others stay
    // dynamic and are reported by the passes that need static shapes).
    const json &inputs = graph["inputs"];
    if (inputs.size() != inputSpecs.size())
      fail(fileLoc, "graph has " + std::to_string(inputs.size()) +
                        " inputs but the signature describes " +
                        std::to_string(inputSpecs.size()));

    // User inputs become function arguments, in order.
    SmallVector<std::pair<std::string, Type>> userInputs;
    SmallVector<ArrayAttr> userInputDims;
    for (const json &spec : inputSpecs) {
      auto [tag, value] = unionTag(spec);
      if (tag != "user_input")
        continue;
      auto [argTag, arg] = unionTag((*value)["arg"]);
      if (argTag == "as_tensor") {
        std::string name = (*arg)["name"].get<std::string>();
        SmallVector<std::string> dims;
        userInputs.push_back({name, tensorType(name, fileLoc, &dims)});
        userInputDims.push_back(dimSymbolsAttr(dims));
      } else if (argTag == "as_sym_int") {
        fail(fileLoc, "symbolic int user inputs are not supported; bind "
                      "them with --bind-dims");
      } else if (argTag != "as_none" && argTag != "as_int" &&
                 argTag != "as_float" && argTag != "as_bool" &&
                 argTag != "as_string") {
        fail(fileLoc, "user input of kind '" + argTag + "' is not supported");
      }
    }
    // Results: user outputs, then mutated buffers and inputs.
    SmallVector<std::pair<std::string, std::string>> outputs; // name, kind
    for (const json &spec : outputSpecs) {
      auto [tag, value] = unionTag(spec);
      const json &arg = (*value)["arg"];
      std::string name;
      if (tag == "user_output") {
        auto [t, v] = unionTag(arg);
        if (t != "as_tensor")
          fail(fileLoc, "user output of kind '" + t + "' is not supported");
        name = (*v)["name"].get<std::string>();
        outputs.push_back({name, "user"});
      } else if (tag == "buffer_mutation") {
        outputs.push_back({arg["name"].get<std::string>(),
                           "buffer_mutation:" +
                               (*value)["buffer_name"].get<std::string>()});
      } else if (tag == "user_input_mutation") {
        outputs.push_back({arg["name"].get<std::string>(),
                           "user_input_mutation:" +
                               (*value)["user_input_name"].get<std::string>()});
      } else if (tag == "loss_output" || tag == "gradient_to_parameter" ||
                 tag == "gradient_to_user_input" ||
                 tag == "parameter_mutation" || tag == "token") {
        fail(fileLoc, "output of kind '" + tag +
                          "' (training or effects) is not supported");
      } else {
        fail(fileLoc, "unknown OutputSpec tag '" + tag + "'");
      }
    }
    SmallVector<Type> argTypes, resultTypes;
    for (auto &[name, type] : userInputs)
      argTypes.push_back(type);
    for (auto &[name, kind] : outputs)
      resultTypes.push_back(tensorType(name, fileLoc));
    b.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(b, fileLoc, "main",
                                     b.getFunctionType(argTypes, resultTypes));
    Block *entry = func.addEntryBlock();
    for (auto [i, in] : llvm::enumerate(userInputs)) {
      values[in.first] = entry->getArgument(i);
      func.setArgAttr(i, "spyre.name", b.getStringAttr(in.first));
      if (userInputDims[i])
        func.setArgAttr(i, "spyre.dims", userInputDims[i]);
    }
    for (auto [j, out] : llvm::enumerate(outputs)) {
      func.setResultAttr(j, "spyre.output", b.getStringAttr(out.second));
      func.setResultAttr(j, "spyre.name", b.getStringAttr(out.first));
    }
    b.setInsertionPointToStart(entry);

    // Parameters, buffers, constants.
    for (const json &spec : inputSpecs) {
      auto [tag, value] = unionTag(spec);
      if (tag == "user_input" || tag == "constant_input")
        continue;
      const json &arg = (*value)["arg"];
      if (tag == "parameter") {
        values[arg["name"].get<std::string>()] =
            weight((*value)["parameter_name"], arg["name"],
                   WeightKind::parameter, true);
        parameterNames[arg["name"].get<std::string>()] =
            (*value)["parameter_name"].get<std::string>();
      } else if (tag == "buffer") {
        values[arg["name"].get<std::string>()] =
            weight((*value)["buffer_name"], arg["name"], WeightKind::buffer,
                   (*value).value("persistent", true));
        mutableInputs[arg["name"].get<std::string>()] =
            "buffer_mutation:" + (*value)["buffer_name"].get<std::string>();
      }
      else if (tag == "tensor_constant")
        values[arg["name"].get<std::string>()] =
            weight((*value)["tensor_constant_name"], arg["name"],
                   WeightKind::constant, false);
      else if (tag == "custom_obj" || tag == "token")
        fail(fileLoc, "input of kind '" + tag + "' is not supported");
      else
        fail(fileLoc, "unknown InputSpec tag '" + tag + "'");
    }

    for (auto &in : userInputs)
      mutableInputs[in.first] = "user_input_mutation:" + in.first;
    for (const json &node : graph["nodes"])
      importNode(node);

    SmallVector<Value> results;
    for (auto &[name, kind] : outputs) {
      auto it = values.find(name);
      if (it == values.end())
        fail(fileLoc, "output '" + name + "' is never defined");
      results.push_back(it->second);
    }
    // The training IR mutates with in-place ops and lists no mutation
    // outputs: give each mutated buffer or input one, as the ATen IR would,
    // so that the runtime carries the new contents over.
    for (const std::string &name : mutatedInPlace) {
      const std::string &kind = mutableInputs[name];
      if (llvm::any_of(outputs, [&](auto &o) { return o.second == kind; }))
        continue;
      outputs.push_back({name, kind});
      results.push_back(values[name]);
      resultTypes.push_back(values[name].getType());
      func.setType(b.getFunctionType(argTypes, resultTypes));
      func.setResultAttr(resultTypes.size() - 1, "spyre.output",
                         b.getStringAttr(kind));
      func.setResultAttr(resultTypes.size() - 1, "spyre.name",
                         b.getStringAttr(name));
    }
    func::ReturnOp::create(b, fileLoc, results);
    if (failed(verify(*module)))
      throw Reported();
    return module;
  }

  void importNode(const json &node) {
    std::string target = node["target"].get<std::string>();
    StringRef t(target);
    t.consume_front("torch.ops.");
    std::string op = t.str();
    // The output name labels the node (schema 8.15+ also has "name").
    std::string label = node.contains("name") && node["name"].is_string()
                            ? node["name"].get<std::string>()
                            : "";
    const json &outs = node["outputs"];
    if (label.empty() && !outs.empty()) {
      auto [tag, value] = unionTag(outs[0]);
      if (tag == "as_tensor")
        label = (*value)["name"].get<std::string>();
      else if (tag == "as_tensors" && !value->empty())
        label = (*value)[0]["name"].get<std::string>();
    }
    Location loc = nodeLoc(node, label.empty() ? op : label);
    if (std::optional<std::string> error =
            checkNodeUnions(node, label.empty() ? op : label))
      fail(loc, *error);
    // A malformed field inside the node (a JSON type error, a broken union)
    // is reported at the node's Python line, not just at the file.
    try {
      importNodeAt(node, op, loc);
    } catch (const std::exception &e) {
      fail(loc, "malformed node '" + (label.empty() ? op : label) +
                    "': " + e.what());
    }
  }

  //===--- Higher-order ops -----------------------------------------------===//

  /// Deepest nesting of subgraphs accepted (each level recurses).
  static constexpr int kMaxSubgraphDepth = 16;

  /// Higher-order ops whose subgraph is a plain function of its tensor
  /// operands in an inference graph: grad mode changes nothing, and autocast
  /// regions already record the dtypes they compute in (tensor_values).
  static bool isInlinedHigherOrderOp(StringRef op) {
    return op == "higher_order.wrap_with_set_grad_enabled" ||
           op == "higher_order.wrap_with_autocast";
  }

  /// The names a node's outputs define, in order.
  SmallVector<std::string> outputNames(const json &outs, Location loc) {
    SmallVector<std::string> names;
    for (const json &out : outs) {
      auto [tag, value] = unionTag(out);
      if (tag == "as_tensor")
        names.push_back((*value)["name"].get<std::string>());
      else if (tag == "as_tensors")
        for (const json &r : *value)
          names.push_back(r["name"].get<std::string>());
      else
        fail(loc, "output of kind '" + tag + "' is not supported here");
    }
    return names;
  }

  /// Imports a wrap_with_* node by importing its subgraph in place: the
  /// subgraph's inputs bind to the tensors after its graph argument, the
  /// node's outputs to the subgraph's outputs. A subgraph has its own names
  /// and tensor_values (an inner "add" is not the outer one), so it is
  /// imported in a scope of its own.
  void inlineHigherOrderOp(const json &node, const std::string &op,
                           Location loc) {
    const json *graph = nullptr;
    SmallVector<Value> operands;
    for (const json &input : node["inputs"]) {
      auto [tag, value] = unionTag(input["arg"]);
      if (tag == "as_graph") {
        if (graph)
          fail(loc, "'" + op + "' has more than one subgraph");
        graph = &(*value)["graph"];
      } else if (graph) {
        if (tag != "as_tensor")
          fail(loc, "'" + op + "' operand of kind '" + tag +
                        "' is not supported (tensors only)");
        operands.push_back(tensorValue(*value, loc));
      }
    }
    if (!graph)
      fail(loc, "'" + op + "' has no subgraph argument");
    if (subgraphDepth >= kMaxSubgraphDepth)
      fail(loc, "higher-order ops nested deeper than " +
                    std::to_string(kMaxSubgraphDepth));
    const json &inputs = (*graph)["inputs"];
    if (inputs.size() != operands.size())
      fail(loc, "'" + op + "' passes " + std::to_string(operands.size()) +
                    " tensors to a subgraph of " +
                    std::to_string(inputs.size()) + " inputs");

    // Enter the subgraph's scope; a failure aborts the whole import, so
    // only the successful path restores the outer one.
    json outerTensorValues = std::exchange(tensorValues,
                                           (*graph)["tensor_values"]);
    llvm::StringMap<Value> outerValues = std::exchange(values, {});
    llvm::StringMap<std::string> outerViewRoots = std::exchange(viewRoots, {});
    auto outerViewParents = std::exchange(viewParents, {});
    auto outerStaleViews = std::exchange(staleViews, {});
    for (auto [in, operand] : llvm::zip(inputs, operands)) {
      auto [tag, value] = unionTag(in);
      if (tag != "as_tensor")
        fail(loc, "subgraph input of kind '" + tag + "' is not supported");
      values[(*value)["name"].get<std::string>()] = operand;
    }
    ++subgraphDepth;
    for (const json &inner : (*graph)["nodes"])
      importNode(inner);
    --subgraphDepth;
    SmallVector<Value> results;
    for (const std::string &name : outputNames((*graph)["outputs"], loc)) {
      auto it = values.find(name);
      if (it == values.end())
        fail(loc, "subgraph output '" + name + "' is never defined");
      results.push_back(it->second);
    }
    tensorValues = std::move(outerTensorValues);
    values = std::move(outerValues);
    viewRoots = std::move(outerViewRoots);
    viewParents = std::move(outerViewParents);
    staleViews = std::move(outerStaleViews);

    SmallVector<std::string> names = outputNames(node["outputs"], loc);
    if (names.size() != results.size())
      fail(loc, "'" + op + "' has " + std::to_string(names.size()) +
                    " outputs but its subgraph returns " +
                    std::to_string(results.size()));
    for (auto [name, result] : llvm::zip(names, results))
      if (!values.try_emplace(name, result).second)
        fail(loc, "value '" + name + "' is defined twice");
  }

  void importNodeAt(const json &node, const std::string &op, Location loc) {
    const json &outs = node["outputs"];
    if (StringRef(op).starts_with("higher_order.")) {
      if (!isInlinedHigherOrderOp(op))
        fail(loc, "higher-order op '" + op +
                      "' is not supported (wrap_with_set_grad_enabled and "
                      "wrap_with_autocast are, by inlining their subgraph)");
      inlineHigherOrderOp(node, op, loc);
      return;
    }
    // Shape guards of dynamic exports: checked by torch.export against the
    // range constraints, which --bind-dims enforces; nothing to run.
    if (op == "aten._assert_scalar.default" ||
        op == "aten.sym_constrain_range_for_size.default" ||
        op == "aten.sym_constrain_range.default")
      return;
    if (importSymIntNode(node, op, loc))
      return;

    SmallVector<Value> operands;
    SmallVector<Attribute> tensorArgs;
    SmallVector<NamedAttribute> attrs;
    llvm::StringSet<> given;
    for (const json &input : node["inputs"]) {
      std::string name = input["name"].get<std::string>();
      given.insert(name);
      addArgument(name, input["arg"], loc, operands, tensorArgs, attrs);
    }
    // Fill what torch.export omitted (arguments equal to their default).
    if (const AtenSchema *schema = lookupAtenSchema(op))
      for (const AtenArgument &a : schema->arguments)
        if (!given.contains(a.name) && !a.isTensor() && !a.isTensorList())
          if (Attribute d = parseAtenDefault(ctx, a))
            attrs.push_back(b.getNamedAttr(a.name, d));

    SmallVector<Type> resultTypes;
    SmallVector<std::string> resultNames;
    SmallVector<Attribute> resultDims; // spyre.dims of each result
    bool anyDynamic = false;
    auto addResult = [&](const std::string &n) {
      SmallVector<std::string> dims;
      resultTypes.push_back(tensorType(n, loc, &dims));
      resultNames.push_back(n);
      ArrayAttr d = dimSymbolsAttr(dims);
      anyDynamic |= bool(d);
      resultDims.push_back(d ? Attribute(d) : b.getArrayAttr({}));
    };
    for (const json &out : outs) {
      auto [tag, value] = unionTag(out);
      if (tag == "as_tensor") {
        addResult((*value)["name"].get<std::string>());
      } else if (tag == "as_tensors") {
        for (const json &r : *value)
          addResult(r["name"].get<std::string>());
      } else if (tag == "as_none" || tag == "as_sym_int" || tag == "as_int") {
        // No tensor (the SymInt outputs of a fused attention kernel, max_q
        // and max_k, are never read by an inference graph).
        resultTypes.push_back(b.getNoneType());
        resultNames.push_back("");
        resultDims.push_back(b.getArrayAttr({}));
      } else {
        fail(loc, "node output of kind '" + tag + "' is not supported");
      }
    }
    auto aten = AtenOp::create(b, loc, resultTypes, b.getStringAttr(op),
                               operands, b.getArrayAttr(tensorArgs),
                               b.getDictionaryAttr(attrs));
    if (anyDynamic)
      aten->setAttr("spyre.dims", b.getArrayAttr(resultDims));
    for (auto [name, result] : llvm::zip(resultNames, aten.getResults())) {
      if (name.empty())
        continue;
      if (!values.try_emplace(name, result).second)
        fail(loc, "value '" + name + "' is defined twice");
    }
    std::string self;
    if (!node["inputs"].empty()) {
      auto [tag, value] = unionTag(node["inputs"][0]["arg"]);
      if (tag == "as_tensor")
        self = (*value)["name"].get<std::string>();
    }
    // Views share their base's storage: remember the root of each, and
    // what made it.
    const AtenSchema *schema = lookupAtenSchema(op);
    if (schema && schema->returnsView() && !self.empty()) {
      std::string root = viewRoots.lookup(self);
      for (const std::string &name : resultNames)
        if (!name.empty()) {
          viewRoots[name] = root.empty() ? self : root;
          viewParents[name] = {self, aten};
        }
    }
    // An in-place op (add_, copy_, index_copy_) mutates its first tensor:
    // later reads of that tensor see the result (functionalization). A
    // write through a view (`mask[..., :n] = x`: slice, then copy_) is
    // carried back to the base, view by view (slice_scatter for a slice,
    // a reshape for a reshape...). Parameters stay read-only on Spyre.
    StringRef base = StringRef(op).rsplit('.').first;
    if (base.ends_with("_") && !base.ends_with("__") &&
        aten.getNumResults() == 1 && !self.empty()) {
      // Rebinding inside a subgraph would not reach the tensor its caller
      // passed in.
      if (subgraphDepth > 0)
        fail(loc, "in-place op '" + op + "' inside a higher-order op's "
                  "subgraph is not supported");
      std::string root = viewRoots.count(self) ? viewRoots.lookup(self) : self;
      if (auto it = parameterNames.find(root); it != parameterNames.end())
        fail(loc, "in-place op '" + op + "' mutates parameter '" +
                      it->second + "'; parameters are read-only (register "
                      "the tensor as a buffer to mutate it)");
      std::string written = writeThroughViews(self, aten.getResult(0), op, loc);
      if (mutableInputs.count(written) &&
          !llvm::is_contained(mutatedInPlace, written))
        mutatedInPlace.push_back(written);
    }
  }

  /// Binds `self` to `value`, its new contents, and, when `self` is a view,
  /// its base (and the base's base...) to the base with the view's window
  /// replaced. Other views of the same root go stale. Returns the root.
  std::string writeThroughViews(const std::string &self, Value value,
                                const std::string &op, Location loc) {
    values[self] = value;
    std::string cur = self;
    SmallVector<std::string> chain = {self};
    while (viewParents.count(cur)) {
      auto [parent, viewOp] = viewParents.lookup(cur);
      value = inverseView(viewOp, values.lookup(parent), value, op, loc);
      values[parent] = value;
      chain.push_back(parent);
      cur = parent;
    }
    if (chain.size() > 1)
      for (auto &[name, root] : viewRoots)
        if (root == cur && !llvm::is_contained(chain, name.str()))
          staleViews[name.str()] = cur;
    return cur;
  }

  /// The base `parent` with the window that `viewOp` selects replaced by
  /// `child`: the functional inverse of the view.
  Value inverseView(AtenOp viewOp, Value parent, Value child,
                    const std::string &op, Location loc) {
    StringRef target = viewOp.getTarget();
    auto type = cast<RankedTensorType>(parent.getType());
    auto build = [&](StringRef name, ArrayRef<Value> operands,
                     ArrayRef<StringRef> argNames, DictionaryAttr args) {
      SmallVector<Attribute> names;
      for (StringRef n : argNames)
        names.push_back(b.getStringAttr(n));
      return AtenOp::create(b, loc, TypeRange{type}, b.getStringAttr(name),
                            operands, b.getArrayAttr(names), args)
          .getResult(0);
    };
    if (target == "aten.slice.Tensor")
      return build("aten.slice_scatter.default", {parent, child},
                   {"self", "src"}, viewOp.getArgs());
    if (target == "aten.select.int")
      return build("aten.select_scatter.default", {parent, child},
                   {"self", "src"}, viewOp.getArgs());
    if (target == "aten.transpose.int" || target == "aten.t.default")
      return build(target, {child}, {"self"}, viewOp.getArgs());
    if (target == "aten.permute.default") {
      auto dims = dyn_cast_or_null<ArrayAttr>(viewOp.getArg("dims"));
      SmallVector<int64_t> inverse(type.getRank(), 0);
      for (auto [i, d] : llvm::enumerate(dims ? dims.getValue()
                                              : ArrayRef<Attribute>())) {
        int64_t v = cast<IntegerAttr>(d).getInt();
        inverse[v < 0 ? v + type.getRank() : v] = int64_t(i);
      }
      return build(target, {child}, {"self"},
                   b.getDictionaryAttr(b.getNamedAttr(
                       "dims", b.getI64ArrayAttr(inverse))));
    }
    static const char *const reshapes[] = {
        "aten.view.default",        "aten.reshape.default",
        "aten._unsafe_view.default", "aten.unsqueeze.default",
        "aten.squeeze.default",     "aten.squeeze.dim",
        "aten.squeeze.dims",        "aten.flatten.using_ints",
        "aten.unflatten.int",       "aten.alias.default"};
    if (llvm::is_contained(reshapes, target) && type.hasStaticShape())
      return build("aten.reshape.default", {child}, {"self"},
                   b.getDictionaryAttr(b.getNamedAttr(
                       "shape", b.getI64ArrayAttr(type.getShape()))));
    fail(loc, "in-place op '" + op + "' writes through a view made by '" +
                  target.str() + "'; only slice, select, transpose, permute "
                  "and reshape-like views carry a write back to their base "
                  "(export with ep.run_decompositions() to functionalize it)");
  }
};

} // namespace

OwningOpRef<ModuleOp> importPt2(StringRef path, MLIRContext *ctx,
                                const Pt2ImportOptions &options) {
  ctx->loadDialect<SpyreDialect, func::FuncDialect>();
  try {
    Importer importer(ctx, path, options);
    return importer.run();
  } catch (const Reported &) {
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
