//===- Importer.h - The .pt2 importer's state and steps ---------*- C++ -*-===//
//
// Private to lib/Target/Pt2. The importer of Pt2Importer.h, one class whose
// steps are spread over several files by concern:
//   Pt2Importer.cpp      the entry points, reading the archive or JSON file
//   ImportProgram.cpp    the program: module, signature, function, results
//   ImportSymbols.cpp    tensor types, symbolic sizes, range constraints
//   ImportWeights.cpp    parameters, buffers and constants (spyre.weight)
//   ImportArguments.cpp  the arguments of a node (operands and attributes)
//   ImportGraph.cpp      the nodes: spyre.aten ops, higher-order ops, views
//
// Built with -fexceptions: nlohmann/json throws on type errors, and every
// exception is caught in importPt2 and reported as a diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_TARGET_PT2_IMPORTER_H
#define SPYRE_LIB_TARGET_PT2_IMPORTER_H

#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Support/Json.h"
#include "spyre/Target/Pt2/Pt2Archive.h"
#include "spyre/Target/Pt2/Pt2Importer.h"
#include "spyre/Target/Pt2/TorchSave.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace spyre::pt2import {

using json = nlohmann::json;

/// An import error already reported as a diagnostic.
struct Reported {};

/// ScalarType codes of the schema (docs/pt2-format.md section 3.6).
struct DTypeInfo {
  const char *name;
  int64_t bytes;
};
std::optional<DTypeInfo> dtypeInfo(int64_t code);

/// The MLIR element type of a ScalarType code; null when Spyre has none.
mlir::Type elementType(mlir::MLIRContext *ctx, int64_t code);

/// The name of an element type as `as_scalar_type` arguments carry it.
std::string typeName(mlir::Type t);

/// Reads the only key of a union object.
/// Anything else is malformed: thrown, and reported by importPt2's catch.
std::pair<std::string, const json *> unionTag(const json &j);

/// What the arguments of a node become: tensor operands, the argument name
/// of each, and named attributes (everything else).
struct NodeArguments {
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::Attribute> tensorArgs;
  llvm::SmallVector<mlir::NamedAttribute> attrs;
};

/// Where a weight's data lies: the stored view, and its storage:
/// `available` bytes at `base` in archive entry `entry` (`source` in
/// messages).
struct StoredWeight {
  mlir::RankedTensorType type;
  llvm::SmallVector<int64_t> strides;
  int64_t storageOffset = 0;
  std::string entry, source;
  uint64_t base = 0, available = 0;
};

/// A user input of the program: a function argument.
struct UserInput {
  std::string name;
  mlir::Type type;
  /// `spyre.dims` of the argument; null when every dim is static.
  mlir::ArrayAttr dims;
};

/// A result of the program: the graph name of its value and its
/// `spyre.output` kind (`user`, `buffer_mutation:<fqn>`...).
struct GraphOutput {
  std::string name;
  std::string kind;
};

/// The results of a node's `spyre.aten`: the type, name ("" for one that
/// is not a tensor) and `spyre.dims` entry of each.
struct NodeResults {
  llvm::SmallVector<mlir::Type> types;
  llvm::SmallVector<std::string> names;
  llvm::SmallVector<mlir::Attribute> dims;
  /// Whether a result has a dynamic dim (the op then gets `spyre.dims`).
  bool anyDynamic = false;
};

/// The names a graph defines: a higher-order op's subgraph has its own.
struct ValueScope {
  json tensorValues;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<std::string> viewRoots;
  llvm::StringMap<std::pair<std::string, AtenOp>> viewParents;
  llvm::StringMap<std::string> staleViews;
};

class Importer {
public:
  Importer(mlir::MLIRContext *ctx, llvm::StringRef path,
           const Pt2ImportOptions &options)
      : ctx(ctx), b(ctx), path(path.str()), options(options),
        fileLoc(mlir::FileLineColLoc::get(ctx, displayPath(), 0, 0)) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  /// The input as messages name it.
  llvm::StringRef displayPath() const {
    return options.sourceName.empty() ? llvm::StringRef(path)
                                      : llvm::StringRef(options.sourceName);
  }

  mlir::MLIRContext *ctx;
  mlir::OpBuilder b;
  std::string path;
  const Pt2ImportOptions &options;
  mlir::Location fileLoc;
  std::unique_ptr<Pt2Archive> archive;
  /// Identifies the input by content (Pt2Archive::contentDigest, or XXH3 of
  /// a JSON file), so that spyre.source is the same from any directory.
  uint64_t contentDigest = 0;
  std::string modelEntry;
  json weightsConfig = json::object(), constantsConfig = json::object();
  json tensorValues;
  llvm::StringMap<mlir::Value> values;
  /// SymInt values the graph computes (sym_size...): an i64 attribute when
  /// --bind-dims fixes them, else a string attribute holding the expression.
  llvm::StringMap<mlir::Attribute> symbolValues;
  json symIntValues = json::object();
  /// Buffers and user inputs by graph name: the `spyre.output` kind their
  /// new contents get if an in-place op (training IR) mutates them.
  llvm::StringMap<std::string> mutableInputs;
  /// Graph names mutated in place, in first-mutation order.
  llvm::SmallVector<std::string> mutatedInPlace;
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
  /// torch 2.6-2.8 archives: the tensors of the pickled state dict and
  /// constants (data/{weights,constants}/model.pt), read on first use.
  std::optional<std::map<std::string, SavedTensor>> pickledWeights,
      pickledConstants;

  [[noreturn]] void fail(mlir::Location loc, const std::string &message) {
    mlir::emitError(loc) << message;
    throw Reported();
  }

  //===--- Archive (Pt2Importer.cpp) --------------------------------------===//

  std::string readModelJson();
  void readPayloadConfig(const std::string &entry, json &out);

  //===--- Types and symbols (ImportSymbols.cpp) --------------------------===//

  /// A SymInt: its value, or nullopt while a symbol in it is unbound (then
  /// `symbol` gets the expression, e.g. "32*s0").
  std::optional<int64_t> symInt(const json &j, mlir::Location loc,
                                std::string *symbol = nullptr);
  std::optional<int64_t> symExpr(const std::string &text, mlir::Location loc,
                                 std::string *symbol);
  mlir::RankedTensorType
  tensorType(const std::string &name, mlir::Location loc,
             llvm::SmallVectorImpl<std::string> *dimSymbols = nullptr);
  /// `spyre.dims`: the symbolic expression of each dynamic dim ("" for
  /// static ones), so that the pass that needs static shapes can name the
  /// symbol to bind. Null when every dim is static.
  mlir::ArrayAttr dimSymbolsAttr(llvm::ArrayRef<std::string> dimSymbols);
  /// Refuses a tensor whose static sizes multiply past kMaxTensorBytes.
  void checkTensorSize(llvm::ArrayRef<int64_t> shape, int64_t elementBytes,
                       const std::string &name, mlir::Location loc);
  /// The type of a TensorMeta; `dimSymbols` (when given) gets each dim's
  /// symbolic expression, empty for static dims.
  mlir::RankedTensorType
  metaType(const json &meta, const std::string &name, mlir::Location loc,
           llvm::SmallVectorImpl<std::string> *dimSymbols = nullptr);
  /// A SymInt the graph computed (sym_size...): its value, or the string of
  /// its expression while a symbol is unbound (spyre-decompose then reports
  /// it, naming the symbol).
  mlir::Attribute symbolic(const std::string &name, mlir::Location loc);
  /// A node computing SymInts (sym_size.int, operator.mul on sizes...):
  /// resolved here, no op is built. True when `node` was one.
  bool importSymIntNode(const json &node, const std::string &op,
                        mlir::Location loc);
  /// Defines the symbol a SymInt node's output `arg` names (of `kind`
  /// `as_sym_int` or `as_sym_bool`).
  void defineSymbolicOutput(const json &node, const std::string &op,
                            const std::string &kind, const json &arg,
                            mlir::Location loc);
  /// The value of SymInt `name` that node `op` computes, or nullopt (with
  /// `expr` its expression) while a symbol in it is unbound.
  std::optional<int64_t> symIntNodeValue(const json &node,
                                         const std::string &op,
                                         const std::string &name,
                                         mlir::Location loc, std::string &expr);
  /// The size `sym_size.int(self, dim)` reads when that dim is static.
  std::optional<int64_t> staticSymSize(const json &node, mlir::Location loc);
  /// The tensor and dim `sym_size.int` reads, when given as such.
  void readSymSizeArgs(const json &node, mlir::Location loc, mlir::Value &self,
                       std::optional<int64_t> &dim);
  /// `range_constraints` ({"s0": {"min_val": 1, "max_val": 64}}), and the
  /// --bind-dims values checked against them.
  void readRangeConstraints(const json &program);
  /// Checks `--bind-dims symbol=value` against the program's `symbols` and
  /// the symbol's exported range.
  void checkBoundDim(const std::string &symbol, int64_t value,
                     const std::set<std::string> &symbols);
  /// The symbols of range_constraints and those in tensor sizes (an export
  /// may leave a symbol without a range).
  std::set<std::string> programSymbols();
  std::string rangeText(const std::string &symbol);
  /// The module's `spyre.range_constraints`: {s0 = [1, 64]} (a missing upper
  /// bound is written "inf"). Null when the program has no symbols.
  mlir::DictionaryAttr rangeConstraintsAttr();

  //===--- Weights (ImportWeights.cpp) ------------------------------------===//

  const std::map<std::string, SavedTensor> &
  pickledDict(const std::string &entry,
              std::optional<std::map<std::string, SavedTensor>> &dict,
              mlir::Location loc);
  /// A weight of a torch 2.6-2.8 archive and the entry that holds it, with
  /// the configs' precedence: the state dict for parameters and persistent
  /// buffers, else the constants.
  const SavedTensor &pickledTensor(const std::string &fqn, bool stateDictFirst,
                                   mlir::Location loc, std::string &entry);
  /// The `spyre.weight` of parameter, buffer or constant `fqn`, named
  /// `graphName` in the graph.
  mlir::Value weight(const std::string &fqn, const std::string &graphName,
                     WeightKind kind, bool persistent);
  /// The payload config entry of weight `fqn`, `dir` the archive folder of
  /// its data; null when neither config has it. The weights config comes
  /// first when `stateDictFirst`.
  const json *payloadConfig(const std::string &fqn, bool stateDictFirst,
                            std::string &dir);
  /// A weight whose data the emitter streams from `entry` of `file`.
  mlir::Value createExternalWeight(const std::string &fqn, WeightKind kind,
                                   mlir::RankedTensorType type,
                                   llvm::StringRef file, llvm::StringRef entry,
                                   int64_t offset,
                                   llvm::ArrayRef<int64_t> strides,
                                   mlir::Location loc);
  /// Where a weight is stored, from its payload config entry.
  StoredWeight storedFromConfig(const std::string &fqn, const json &config,
                                const std::string &dir, mlir::Location loc);
  /// A stride or storage offset of weight `fqn`, which must be static.
  int64_t concreteViewInt(const std::string &fqn, const json &j,
                          mlir::Location loc);
  /// Where a weight of a torch 2.6-2.8 archive is stored: no payload
  /// configs, pickled dicts of tensors.
  StoredWeight storedFromPickle(const std::string &fqn, bool stateDictFirst,
                                mlir::Location loc);
  /// Checks the stored view against the graph's type and its storage;
  /// returns the bytes it reaches.
  uint64_t checkStoredView(const std::string &fqn, mlir::RankedTensorType type,
                           const StoredWeight &stored, mlir::Location loc);
  /// Reads a weight's view into a dense attribute (row-major).
  mlir::DenseElementsAttr readInlineWeight(const std::string &fqn,
                                           mlir::RankedTensorType type,
                                           const StoredWeight &stored,
                                           uint64_t spanBytes,
                                           mlir::Location loc);

  //===--- Arguments (ImportArguments.cpp) --------------------------------===//

  mlir::Value tensorValue(const json &ref, mlir::Location loc);
  mlir::Attribute floatAttr(const json &v);
  /// Adds one named argument to the node being built.
  void addArgument(const std::string &name, const json &arg, mlir::Location loc,
                   NodeArguments &args);
  /// Adds the tensor `ref` as an operand for argument `name`.
  void addTensorOperand(const std::string &name, const json &ref,
                        mlir::Location loc, NodeArguments &args);
  /// Adds a tensor argument (`as_tensor`, `as_optional_tensors`...); false
  /// when `tag` is not a tensor kind.
  bool addTensorArgument(const std::string &name, const std::string &tag,
                         const json &value, mlir::Location loc,
                         NodeArguments &args);
  /// Adds the present tensors of an optional tensor list as operands;
  /// returns the mask of where they were (false: a None).
  mlir::ArrayAttr addOptionalTensors(const std::string &name, const json &list,
                                     mlir::Location loc, NodeArguments &args);
  /// The attribute of a single-valued argument (scalar, dtype, device,
  /// SymInt...); null when `tag` is not such a kind.
  mlir::Attribute valueArgumentAttr(const std::string &name,
                                    const std::string &tag, const json &value,
                                    mlir::Location loc);
  /// `as_none`, `as_int`, `as_float`, `as_bool`, `as_string`; else null.
  mlir::Attribute scalarArgumentAttr(const std::string &tag, const json &value);
  /// `as_scalar_type`, `as_memory_format`, `as_layout`, `as_device`; else
  /// null.
  mlir::Attribute tensorOptionArgumentAttr(const std::string &name,
                                           const std::string &tag,
                                           const json &value,
                                           mlir::Location loc);
  /// The element type name of dtype `code`, refused when Spyre has none.
  mlir::Attribute scalarTypeAttr(const std::string &name, int64_t code,
                                 mlir::Location loc);
  /// `as_sym_int`, `as_sym_float`, `as_sym_bool`; else null.
  mlir::Attribute symbolicArgumentAttr(const std::string &name,
                                       const std::string &tag,
                                       const json &value, mlir::Location loc);
  /// A SymIntArgument: an integer, or the value of a graph symbol.
  mlir::Attribute symIntArgumentAttr(const std::string &name,
                                     const json &symInt, mlir::Location loc);
  /// A list argument (`as_ints`, `as_sym_ints`...): the array of its
  /// elements' attributes; null when `tag` is not a list kind.
  mlir::Attribute listArgumentAttr(const std::string &name,
                                   const std::string &tag, const json &list,
                                   mlir::Location loc);
  /// Reports an argument kind that none of the above imports.
  [[noreturn]] void failUnsupportedArgument(const std::string &name,
                                            const std::string &tag,
                                            mlir::Location loc);

  //===--- The program (ImportProgram.cpp) --------------------------------===//

  void checkSchemaVersion(const json &program);
  /// Each node costs a few KB of IR and analysis; Granite-3.3-8B has 3,055.
  void checkGraphSize(const json &program);
  mlir::OwningOpRef<mlir::ModuleOp> build(const json &program);
  /// The graph's tensor_values and sym_int_values, and the program's range
  /// constraints.
  void readGraphMetadata(const json &program, const json &graph);
  /// The module with its `spyre.source`, machine description and range
  /// constraints.
  mlir::OwningOpRef<mlir::ModuleOp> createModule();
  /// User inputs become function arguments, in order.
  llvm::SmallVector<UserInput> readUserInputs(const json &inputSpecs);
  /// A user input's argument: nullopt for a constant of the export.
  std::optional<UserInput> readUserInput(const json &arg);
  /// Results: user outputs, then mutated buffers and inputs.
  llvm::SmallVector<GraphOutput> readOutputSpecs(const json &outputSpecs);
  GraphOutput readOutputSpec(const json &spec);
  /// `main`, its arguments bound to the user inputs' names; the builder is
  /// left at the start of its body.
  mlir::func::FuncOp createMainFunction(mlir::ModuleOp module,
                                        llvm::ArrayRef<UserInput> userInputs,
                                        llvm::ArrayRef<GraphOutput> outputs);
  /// Parameters, buffers, constants: a `spyre.weight` each (other input
  /// specs are skipped).
  void importWeightInput(const json &spec);
  /// The values of the outputs, each of which the graph must define.
  llvm::SmallVector<mlir::Value>
  lookupOutputs(llvm::ArrayRef<GraphOutput> outputs);
  /// The training IR mutates with in-place ops and lists no mutation
  /// outputs: gives each mutated buffer or input one, as the ATen IR would,
  /// so that the runtime carries the new contents over.
  void addMutationResults(mlir::func::FuncOp func,
                          llvm::SmallVectorImpl<GraphOutput> &outputs,
                          llvm::SmallVectorImpl<mlir::Value> &results);

  //===--- Nodes (ImportGraph.cpp) ----------------------------------------===//

  mlir::Location nodeLoc(const json &node, const std::string &name);
  void importNode(const json &node);
  /// Imports one node, its diagnostics at `loc`; a JSON error it throws is
  /// reported by importNode.
  void importNodeAt(const json &node, const std::string &op,
                    mlir::Location loc);
  /// The names a node's outputs define, in order.
  llvm::SmallVector<std::string> outputNames(const json &outs,
                                             mlir::Location loc);
  /// Imports a wrap_with_* node by importing its subgraph in place: the
  /// subgraph's inputs bind to the tensors after its graph argument, the
  /// node's outputs to the subgraph's outputs. A subgraph has its own names
  /// and tensor_values (an inner "add" is not the outer one), so it is
  /// imported in a scope of its own.
  void inlineHigherOrderOp(const json &node, const std::string &op,
                           mlir::Location loc);
  /// The subgraph a higher-order op calls; `operands` gets the tensors
  /// passed after it.
  const json &readSubgraphCall(const json &node, const std::string &op,
                               mlir::Location loc,
                               llvm::SmallVectorImpl<mlir::Value> &operands);
  /// Imports `graph` in a scope of its own, its inputs bound to `operands`;
  /// returns the values of its outputs.
  llvm::SmallVector<mlir::Value>
  importSubgraph(const json &graph, llvm::ArrayRef<mlir::Value> operands,
                 mlir::Location loc);
  /// Swaps in an empty scope whose tensors are `innerTensorValues`; returns
  /// the outer one.
  ValueScope enterScope(const json &innerTensorValues);
  void restoreScope(ValueScope &&outer);
  /// Binds the names of a higher-order node's outputs to `results`.
  void bindSubgraphResults(const json &node, const std::string &op,
                           llvm::ArrayRef<mlir::Value> results,
                           mlir::Location loc);
  /// The node's arguments, with those torch.export omitted (equal to their
  /// default) filled from the op's schema.
  NodeArguments readNodeArguments(const json &node, const std::string &op,
                                  mlir::Location loc);
  /// Adds the non-tensor arguments of `op`'s schema missing from `given`
  /// that have a default.
  void addOmittedDefaults(const std::string &op, const llvm::StringSet<> &given,
                          NodeArguments &args);
  NodeResults readNodeResults(const json &outs, mlir::Location loc);
  void addTensorResult(const std::string &name, mlir::Location loc,
                       NodeResults &results);
  AtenOp createAtenOp(const std::string &op, const NodeArguments &args,
                      const NodeResults &results, mlir::Location loc);
  /// Binds each named result of `aten`; a name defined before is an error.
  void bindResultNames(llvm::ArrayRef<std::string> names, AtenOp aten,
                       mlir::Location loc);
  /// Views share their base's storage: remembers the root of each result of
  /// a view op, and what made it.
  void recordViews(const std::string &op, const std::string &self,
                   llvm::ArrayRef<std::string> resultNames, AtenOp aten);
  /// Rebinds `self`, which the in-place op `aten` mutates, to its result. A
  /// write through a view (`mask[..., :n] = x`: slice, then copy_) is
  /// carried back to the base, view by view (slice_scatter for a slice, a
  /// reshape for a reshape...). Parameters stay read-only on Spyre.
  void writeInPlace(const std::string &op, const std::string &self, AtenOp aten,
                    mlir::Location loc);
  /// Binds `self` to `value`, its new contents, and, when `self` is a view,
  /// its base (and the base's base...) to the base with the view's window
  /// replaced. Other views of the same root go stale. Returns the root.
  std::string writeThroughViews(const std::string &self, mlir::Value value,
                                const std::string &op, mlir::Location loc);
  /// The base `parent` with the window that `viewOp` selects replaced by
  /// `child`: the functional inverse of the view.
  mlir::Value inverseView(AtenOp viewOp, mlir::Value parent, mlir::Value child,
                          const std::string &op, mlir::Location loc);
  /// One `spyre.aten` op of the inverse of a view, of type `type`.
  mlir::Value createViewInverse(llvm::StringRef name,
                                mlir::RankedTensorType type,
                                llvm::ArrayRef<mlir::Value> operands,
                                llvm::ArrayRef<llvm::StringRef> argNames,
                                mlir::DictionaryAttr args, mlir::Location loc);
};

} // namespace spyre::pt2import

#endif // SPYRE_LIB_TARGET_PT2_IMPORTER_H
