//===- ImportGraph.cpp - The nodes of the graph ---------------------------===//
//
// Every node becomes one `spyre.aten` (the importer is total: unknown ops
// import and spyre-decompose reports them); higher-order ops are inlined,
// SymInt nodes resolved, and writes through views carried to their base.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "spyre/Dialect/Spyre/AtenSchema.h"
#include "spyre/Target/Pt2/Pt2Unions.h"

#include "llvm/ADT/StringSet.h"

#include <cctype>

using namespace mlir;

namespace spyre::pt2import {

namespace {

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
  std::string last =
      start == std::string::npos ? stack : stack.substr(start + 1);
  size_t c1 = last.find(',');
  if (c1 == std::string::npos)
    return "";
  size_t c2 = last.find(',', c1 + 1);
  return last.substr(c1 + 1,
                     c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
}

/// Deepest nesting of subgraphs accepted (each level recurses).
constexpr int kMaxSubgraphDepth = 16;

/// Higher-order ops whose subgraph is a plain function of its tensor
/// operands in an inference graph: grad mode changes nothing, and autocast
/// regions already record the dtypes they compute in (tensor_values).
bool isInlinedHigherOrderOp(StringRef op) {
  return op == "higher_order.wrap_with_set_grad_enabled" ||
         op == "higher_order.wrap_with_autocast";
}

/// Shape guards of dynamic exports: checked by torch.export against the
/// range constraints, which --bind-dims enforces; nothing to run.
bool isShapeGuard(StringRef op) {
  return op == "aten._assert_scalar.default" ||
         op == "aten.sym_constrain_range_for_size.default" ||
         op == "aten.sym_constrain_range.default";
}

/// An in-place op (add_, copy_, index_copy_; not __iand__...): one trailing
/// underscore on the name before its overload.
bool isInPlaceOp(StringRef op) {
  StringRef base = op.rsplit('.').first;
  return base.ends_with("_") && !base.ends_with("__");
}

/// The node's name (schema 8.15+), else the name of its first tensor
/// output; empty when it has neither.
std::string nodeLabel(const json &node) {
  std::string label = node.contains("name") && node["name"].is_string()
                          ? node["name"].get<std::string>()
                          : "";
  const json &outs = node["outputs"];
  if (!label.empty() || outs.empty())
    return label;
  auto [tag, value] = unionTag(outs[0]);
  if (tag == "as_tensor")
    return (*value)["name"].get<std::string>();
  if (tag == "as_tensors" && !value->empty())
    return (*value)[0]["name"].get<std::string>();
  return label;
}

/// The name of the tensor a node's first input passes; empty when that is
/// not a tensor (or the node has no input).
std::string firstTensorInput(const json &node) {
  if (node["inputs"].empty())
    return "";
  auto [tag, value] = unionTag(node["inputs"][0]["arg"]);
  if (tag != "as_tensor")
    return "";
  return (*value)["name"].get<std::string>();
}

/// The `dims` of the permute that undoes `permute` on a tensor of `rank`.
SmallVector<int64_t> inversePermutation(AtenOp permute, int64_t rank) {
  auto dims = dyn_cast_or_null<ArrayAttr>(permute.getArg("dims"));
  SmallVector<int64_t> inverse(rank, 0);
  for (auto [i, d] :
       llvm::enumerate(dims ? dims.getValue() : ArrayRef<Attribute>())) {
    int64_t v = cast<IntegerAttr>(d).getInt();
    inverse[v < 0 ? v + rank : v] = int64_t(i);
  }
  return inverse;
}

/// Views a write goes back through as a reshape to the base's shape.
constexpr StringLiteral kReshapeViews[] = {
    "aten.view.default",         "aten.reshape.default",
    "aten._unsafe_view.default", "aten.unsqueeze.default",
    "aten.squeeze.default",      "aten.squeeze.dim",
    "aten.squeeze.dims",         "aten.flatten.using_ints",
    "aten.unflatten.int",        "aten.alias.default"};

} // namespace

Location Importer::nodeLoc(const json &node, const std::string &name) {
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

void Importer::importNode(const json &node) {
  std::string target = node["target"].get<std::string>();
  StringRef t(target);
  t.consume_front("torch.ops.");
  std::string op = t.str();
  // The output name labels the node (schema 8.15+ also has "name").
  std::string label = nodeLabel(node);
  if (label.empty())
    label = op;
  Location loc = nodeLoc(node, label);
  if (std::optional<std::string> error = checkNodeUnions(node, label))
    fail(loc, *error);
  // A malformed field inside the node (a JSON type error, a broken union)
  // is reported at the node's Python line, not just at the file.
  try {
    importNodeAt(node, op, loc);
  } catch (const std::exception &e) {
    fail(loc, "malformed node '" + label + "': " + e.what());
  }
}

SmallVector<std::string> Importer::outputNames(const json &outs, Location loc) {
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

void Importer::inlineHigherOrderOp(const json &node, const std::string &op,
                                   Location loc) {
  SmallVector<Value> operands;
  const json &graph = readSubgraphCall(node, op, loc, operands);
  if (subgraphDepth >= kMaxSubgraphDepth)
    fail(loc, "higher-order ops nested deeper than " +
                  std::to_string(kMaxSubgraphDepth));
  const json &inputs = graph["inputs"];
  if (inputs.size() != operands.size())
    fail(loc, "'" + op + "' passes " + std::to_string(operands.size()) +
                  " tensors to a subgraph of " + std::to_string(inputs.size()) +
                  " inputs");
  SmallVector<Value> results = importSubgraph(graph, operands, loc);
  bindSubgraphResults(node, op, results, loc);
}

const json &Importer::readSubgraphCall(const json &node, const std::string &op,
                                       Location loc,
                                       SmallVectorImpl<Value> &operands) {
  const json *graph = nullptr;
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
  return *graph;
}

SmallVector<Value> Importer::importSubgraph(const json &graph,
                                            ArrayRef<Value> operands,
                                            Location loc) {
  // Enter the subgraph's scope; a failure aborts the whole import, so
  // only the successful path restores the outer one.
  ValueScope outer = enterScope(graph["tensor_values"]);
  for (auto [in, operand] : llvm::zip(graph["inputs"], operands)) {
    auto [tag, value] = unionTag(in);
    if (tag != "as_tensor")
      fail(loc, "subgraph input of kind '" + tag + "' is not supported");
    values[(*value)["name"].get<std::string>()] = operand;
  }
  ++subgraphDepth;
  for (const json &inner : graph["nodes"])
    importNode(inner);
  --subgraphDepth;
  SmallVector<Value> results;
  for (const std::string &name : outputNames(graph["outputs"], loc)) {
    auto it = values.find(name);
    if (it == values.end())
      fail(loc, "subgraph output '" + name + "' is never defined");
    results.push_back(it->second);
  }
  restoreScope(std::move(outer));
  return results;
}

ValueScope Importer::enterScope(const json &innerTensorValues) {
  return ValueScope{std::exchange(tensorValues, innerTensorValues),
                    std::exchange(values, {}), std::exchange(viewRoots, {}),
                    std::exchange(viewParents, {}),
                    std::exchange(staleViews, {})};
}

void Importer::restoreScope(ValueScope &&outer) {
  tensorValues = std::move(outer.tensorValues);
  values = std::move(outer.values);
  viewRoots = std::move(outer.viewRoots);
  viewParents = std::move(outer.viewParents);
  staleViews = std::move(outer.staleViews);
}

void Importer::bindSubgraphResults(const json &node, const std::string &op,
                                   ArrayRef<Value> results, Location loc) {
  SmallVector<std::string> names = outputNames(node["outputs"], loc);
  if (names.size() != results.size())
    fail(loc, "'" + op + "' has " + std::to_string(names.size()) +
                  " outputs but its subgraph returns " +
                  std::to_string(results.size()));
  for (auto [name, result] : llvm::zip(names, results))
    if (!values.try_emplace(name, result).second)
      fail(loc, "value '" + name + "' is defined twice");
}

void Importer::importNodeAt(const json &node, const std::string &op,
                            Location loc) {
  const json &outs = node["outputs"];
  if (StringRef(op).starts_with("higher_order.")) {
    if (!isInlinedHigherOrderOp(op))
      fail(loc, "higher-order op '" + op +
                    "' is not supported (wrap_with_set_grad_enabled and "
                    "wrap_with_autocast are, by inlining their subgraph)");
    inlineHigherOrderOp(node, op, loc);
    return;
  }
  if (isShapeGuard(op))
    return;
  if (importSymIntNode(node, op, loc))
    return;

  NodeArguments args = readNodeArguments(node, op, loc);
  NodeResults results = readNodeResults(outs, loc);
  AtenOp aten = createAtenOp(op, args, results, loc);
  bindResultNames(results.names, aten, loc);
  std::string self = firstTensorInput(node);
  recordViews(op, self, results.names, aten);
  // An in-place op mutates its first tensor: later reads of that tensor
  // see the result (functionalization).
  if (isInPlaceOp(op) && aten.getNumResults() == 1 && !self.empty())
    writeInPlace(op, self, aten, loc);
}

NodeArguments Importer::readNodeArguments(const json &node,
                                          const std::string &op, Location loc) {
  NodeArguments args;
  llvm::StringSet<> given;
  for (const json &input : node["inputs"]) {
    std::string name = input["name"].get<std::string>();
    given.insert(name);
    addArgument(name, input["arg"], loc, args);
  }
  addOmittedDefaults(op, given, args);
  return args;
}

void Importer::addOmittedDefaults(const std::string &op,
                                  const llvm::StringSet<> &given,
                                  NodeArguments &args) {
  const AtenSchema *schema = lookupAtenSchema(op);
  if (!schema)
    return;
  for (const AtenArgument &a : schema->arguments)
    if (!given.contains(a.name) && !a.isTensor() && !a.isTensorList())
      if (Attribute d = parseAtenDefault(ctx, a))
        args.attrs.push_back(b.getNamedAttr(a.name, d));
}

NodeResults Importer::readNodeResults(const json &outs, Location loc) {
  NodeResults results;
  for (const json &out : outs) {
    auto [tag, value] = unionTag(out);
    if (tag == "as_tensor") {
      addTensorResult((*value)["name"].get<std::string>(), loc, results);
    } else if (tag == "as_tensors") {
      for (const json &r : *value)
        addTensorResult(r["name"].get<std::string>(), loc, results);
    } else if (tag == "as_none" || tag == "as_sym_int" || tag == "as_int") {
      // No tensor (the SymInt outputs of a fused attention kernel, max_q
      // and max_k, are never read by an inference graph).
      results.types.push_back(b.getNoneType());
      results.names.push_back("");
      results.dims.push_back(b.getArrayAttr({}));
    } else {
      fail(loc, "node output of kind '" + tag + "' is not supported");
    }
  }
  return results;
}

void Importer::addTensorResult(const std::string &name, Location loc,
                               NodeResults &results) {
  SmallVector<std::string> dims;
  results.types.push_back(tensorType(name, loc, &dims));
  results.names.push_back(name);
  ArrayAttr d = dimSymbolsAttr(dims);
  results.anyDynamic |= bool(d);
  results.dims.push_back(d ? Attribute(d) : b.getArrayAttr({}));
}

AtenOp Importer::createAtenOp(const std::string &op, const NodeArguments &args,
                              const NodeResults &results, Location loc) {
  auto aten = AtenOp::create(b, loc, results.types, b.getStringAttr(op),
                             args.operands, b.getArrayAttr(args.tensorArgs),
                             b.getDictionaryAttr(args.attrs));
  if (results.anyDynamic)
    aten->setAttr("spyre.dims", b.getArrayAttr(results.dims));
  return aten;
}

void Importer::bindResultNames(ArrayRef<std::string> names, AtenOp aten,
                               Location loc) {
  for (auto [name, result] : llvm::zip(names, aten.getResults())) {
    if (name.empty())
      continue;
    if (!values.try_emplace(name, result).second)
      fail(loc, "value '" + name + "' is defined twice");
  }
}

void Importer::recordViews(const std::string &op, const std::string &self,
                           ArrayRef<std::string> resultNames, AtenOp aten) {
  const AtenSchema *schema = lookupAtenSchema(op);
  if (!schema || !schema->returnsView() || self.empty())
    return;
  std::string root = viewRoots.lookup(self);
  for (const std::string &name : resultNames)
    if (!name.empty()) {
      viewRoots[name] = root.empty() ? self : root;
      viewParents[name] = {self, aten};
    }
}

void Importer::writeInPlace(const std::string &op, const std::string &self,
                            AtenOp aten, Location loc) {
  // Rebinding inside a subgraph would not reach the tensor its caller
  // passed in.
  if (subgraphDepth > 0)
    fail(loc, "in-place op '" + op +
                  "' inside a higher-order op's "
                  "subgraph is not supported");
  std::string root = viewRoots.count(self) ? viewRoots.lookup(self) : self;
  if (auto it = parameterNames.find(root); it != parameterNames.end())
    fail(loc, "in-place op '" + op + "' mutates parameter '" + it->second +
                  "'; parameters are read-only (register "
                  "the tensor as a buffer to mutate it)");
  std::string written = writeThroughViews(self, aten.getResult(0), op, loc);
  if (mutableInputs.count(written) &&
      !llvm::is_contained(mutatedInPlace, written))
    mutatedInPlace.push_back(written);
}

std::string Importer::writeThroughViews(const std::string &self, Value value,
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

Value Importer::inverseView(AtenOp viewOp, Value parent, Value child,
                            const std::string &op, Location loc) {
  StringRef target = viewOp.getTarget();
  auto type = cast<RankedTensorType>(parent.getType());
  if (target == "aten.slice.Tensor")
    return createViewInverse("aten.slice_scatter.default", type,
                             {parent, child}, {"self", "src"}, viewOp.getArgs(),
                             loc);
  if (target == "aten.select.int")
    return createViewInverse("aten.select_scatter.default", type,
                             {parent, child}, {"self", "src"}, viewOp.getArgs(),
                             loc);
  if (target == "aten.transpose.int" || target == "aten.t.default")
    return createViewInverse(target, type, {child}, {"self"}, viewOp.getArgs(),
                             loc);
  if (target == "aten.permute.default")
    return createViewInverse(target, type, {child}, {"self"},
                             b.getDictionaryAttr(b.getNamedAttr(
                                 "dims", b.getI64ArrayAttr(inversePermutation(
                                             viewOp, type.getRank())))),
                             loc);
  if (llvm::is_contained(kReshapeViews, target) && type.hasStaticShape())
    return createViewInverse("aten.reshape.default", type, {child}, {"self"},
                             b.getDictionaryAttr(b.getNamedAttr(
                                 "shape", b.getI64ArrayAttr(type.getShape()))),
                             loc);
  fail(loc, "in-place op '" + op + "' writes through a view made by '" +
                target.str() +
                "'; only slice, select, transpose, permute "
                "and reshape-like views carry a write back to their base "
                "(export with ep.run_decompositions() to functionalize it)");
}

Value Importer::createViewInverse(StringRef name, RankedTensorType type,
                                  ArrayRef<Value> operands,
                                  ArrayRef<StringRef> argNames,
                                  DictionaryAttr args, Location loc) {
  SmallVector<Attribute> names;
  for (StringRef n : argNames)
    names.push_back(b.getStringAttr(n));
  return AtenOp::create(b, loc, TypeRange{type}, b.getStringAttr(name),
                        operands, b.getArrayAttr(names), args)
      .getResult(0);
}

} // namespace spyre::pt2import
