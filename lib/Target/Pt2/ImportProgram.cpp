//===- ImportProgram.cpp - The exported program ---------------------------===//
//
// The program's checks (schema version, size), the module and its `main`
// function: user inputs become arguments, parameters/buffers/constants
// `spyre.weight`s, user outputs and mutations the results.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "spyre/Target/Pt2/Pt2Unions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace spyre::pt2import {

namespace {

/// Schema majors and the newest minor this importer knows.
constexpr int kSchemaMajor = 8;
constexpr int kNewestKnownMinor = 20;

/// The most nodes a graph may have: 30 times a 40-layer 8B model's, far
/// below what exhausts host memory (a node costs a few KB).
constexpr size_t kMaxGraphNodes = 100000;

/// User inputs that are constants of the export, not arguments.
constexpr StringLiteral kConstantUserInputKinds[] = {
    "as_none", "as_int", "as_float", "as_bool", "as_string"};

/// Outputs of training or effectful programs, which Spyre does not run.
constexpr StringLiteral kTrainingOutputKinds[] = {
    "loss_output", "gradient_to_parameter", "gradient_to_user_input",
    "parameter_mutation", "token"};

} // namespace

void Importer::checkSchemaVersion(const json &program) {
  if (!program.contains("schema_version"))
    fail(fileLoc, "the exported program has no schema_version");
  const json &v = program["schema_version"];
  int major = v["major"].get<int>();
  schemaMinor = v["minor"].get<int>();
  if (major != kSchemaMajor)
    fail(fileLoc, "exported program schema version " + std::to_string(major) +
                      "." + std::to_string(schemaMinor) +
                      " is not supported; this importer reads 8.x (8.2 "
                      "through 8." +
                      std::to_string(kNewestKnownMinor) + ")");
  if (schemaMinor > kNewestKnownMinor)
    emitWarning(fileLoc) << "exported program schema 8." << schemaMinor
                         << " is newer than the newest known (8."
                         << kNewestKnownMinor
                         << "); unknown fields are ignored";
}

void Importer::checkGraphSize(const json &program) {
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

OwningOpRef<ModuleOp> Importer::build(const json &program) {
  checkSchemaVersion(program);
  checkGraphSize(program);
  if (std::optional<std::string> error = checkProgramUnions(program))
    fail(fileLoc, *error);
  const json &gm = program["graph_module"];
  const json &graph = gm["graph"];
  readGraphMetadata(program, graph);
  const json &signature = gm["signature"];
  const json &inputSpecs = signature["input_specs"];
  const json &outputSpecs = signature["output_specs"];

  OwningOpRef<ModuleOp> module = createModule();
  // Bind symbolic sizes of graph inputs from --bind-dims (others stay
  // dynamic and are reported by the passes that need static shapes).
  const json &inputs = graph["inputs"];
  if (inputs.size() != inputSpecs.size())
    fail(fileLoc, "graph has " + std::to_string(inputs.size()) +
                      " inputs but the signature describes " +
                      std::to_string(inputSpecs.size()));
  SmallVector<UserInput> userInputs = readUserInputs(inputSpecs);
  SmallVector<GraphOutput> outputs = readOutputSpecs(outputSpecs);
  func::FuncOp func = createMainFunction(*module, userInputs, outputs);
  for (const json &spec : inputSpecs)
    importWeightInput(spec);

  for (const UserInput &in : userInputs)
    mutableInputs[in.name] = "user_input_mutation:" + in.name;
  for (const json &node : graph["nodes"])
    importNode(node);

  SmallVector<Value> results = lookupOutputs(outputs);
  addMutationResults(func, outputs, results);
  func::ReturnOp::create(b, fileLoc, results);
  if (failed(verify(*module)))
    throw Reported();
  return module;
}

void Importer::readGraphMetadata(const json &program, const json &graph) {
  tensorValues = graph["tensor_values"];
  if (graph.contains("sym_int_values") && graph["sym_int_values"].is_object())
    symIntValues = graph["sym_int_values"];
  readRangeConstraints(program);
}

OwningOpRef<ModuleOp> Importer::createModule() {
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
  return module;
}

SmallVector<UserInput> Importer::readUserInputs(const json &inputSpecs) {
  SmallVector<UserInput> userInputs;
  for (const json &spec : inputSpecs) {
    auto [tag, value] = unionTag(spec);
    if (tag != "user_input")
      continue;
    if (std::optional<UserInput> in = readUserInput((*value)["arg"]))
      userInputs.push_back(std::move(*in));
  }
  return userInputs;
}

std::optional<UserInput> Importer::readUserInput(const json &arg) {
  auto [argTag, value] = unionTag(arg);
  if (argTag == "as_tensor") {
    std::string name = (*value)["name"].get<std::string>();
    SmallVector<std::string> dims;
    Type type = tensorType(name, fileLoc, &dims);
    return UserInput{name, type, dimSymbolsAttr(dims)};
  }
  if (argTag == "as_sym_int")
    fail(fileLoc, "symbolic int user inputs are not supported; bind "
                  "them with --bind-dims");
  if (!llvm::is_contained(kConstantUserInputKinds, argTag))
    fail(fileLoc, "user input of kind '" + argTag + "' is not supported");
  return std::nullopt;
}

SmallVector<GraphOutput> Importer::readOutputSpecs(const json &outputSpecs) {
  SmallVector<GraphOutput> outputs;
  for (const json &spec : outputSpecs)
    outputs.push_back(readOutputSpec(spec));
  return outputs;
}

GraphOutput Importer::readOutputSpec(const json &spec) {
  auto [tag, value] = unionTag(spec);
  const json &arg = (*value)["arg"];
  if (tag == "user_output") {
    auto [t, v] = unionTag(arg);
    if (t != "as_tensor")
      fail(fileLoc, "user output of kind '" + t + "' is not supported");
    return GraphOutput{(*v)["name"].get<std::string>(), "user"};
  }
  if (tag == "buffer_mutation")
    return GraphOutput{arg["name"].get<std::string>(),
                       "buffer_mutation:" +
                           (*value)["buffer_name"].get<std::string>()};
  if (tag == "user_input_mutation")
    return GraphOutput{arg["name"].get<std::string>(),
                       "user_input_mutation:" +
                           (*value)["user_input_name"].get<std::string>()};
  if (llvm::is_contained(kTrainingOutputKinds, tag))
    fail(fileLoc,
         "output of kind '" + tag + "' (training or effects) is not supported");
  fail(fileLoc, "unknown OutputSpec tag '" + tag + "'");
}

func::FuncOp Importer::createMainFunction(ModuleOp module,
                                          ArrayRef<UserInput> userInputs,
                                          ArrayRef<GraphOutput> outputs) {
  SmallVector<Type> argTypes, resultTypes;
  for (const UserInput &in : userInputs)
    argTypes.push_back(in.type);
  for (const GraphOutput &out : outputs)
    resultTypes.push_back(tensorType(out.name, fileLoc));
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, fileLoc, "main",
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  for (auto [i, in] : llvm::enumerate(userInputs)) {
    values[in.name] = entry->getArgument(i);
    func.setArgAttr(i, "spyre.name", b.getStringAttr(in.name));
    if (in.dims)
      func.setArgAttr(i, "spyre.dims", in.dims);
  }
  for (auto [j, out] : llvm::enumerate(outputs)) {
    func.setResultAttr(j, "spyre.output", b.getStringAttr(out.kind));
    func.setResultAttr(j, "spyre.name", b.getStringAttr(out.name));
  }
  b.setInsertionPointToStart(entry);
  return func;
}

void Importer::importWeightInput(const json &spec) {
  auto [tag, value] = unionTag(spec);
  if (tag == "user_input" || tag == "constant_input")
    return;
  const json &arg = (*value)["arg"];
  if (tag == "parameter") {
    values[arg["name"].get<std::string>()] = weight(
        (*value)["parameter_name"], arg["name"], WeightKind::parameter, true);
    parameterNames[arg["name"].get<std::string>()] =
        (*value)["parameter_name"].get<std::string>();
  } else if (tag == "buffer") {
    values[arg["name"].get<std::string>()] =
        weight((*value)["buffer_name"], arg["name"], WeightKind::buffer,
               (*value).value("persistent", true));
    mutableInputs[arg["name"].get<std::string>()] =
        "buffer_mutation:" + (*value)["buffer_name"].get<std::string>();
  } else if (tag == "tensor_constant")
    values[arg["name"].get<std::string>()] =
        weight((*value)["tensor_constant_name"], arg["name"],
               WeightKind::constant, false);
  else if (tag == "custom_obj" || tag == "token")
    fail(fileLoc, "input of kind '" + tag + "' is not supported");
  else
    fail(fileLoc, "unknown InputSpec tag '" + tag + "'");
}

SmallVector<Value> Importer::lookupOutputs(ArrayRef<GraphOutput> outputs) {
  SmallVector<Value> results;
  for (const GraphOutput &out : outputs) {
    auto it = values.find(out.name);
    if (it == values.end())
      fail(fileLoc, "output '" + out.name + "' is never defined");
    results.push_back(it->second);
  }
  return results;
}

void Importer::addMutationResults(func::FuncOp func,
                                  SmallVectorImpl<GraphOutput> &outputs,
                                  SmallVectorImpl<Value> &results) {
  SmallVector<Type> argTypes(func.getArgumentTypes());
  SmallVector<Type> resultTypes(func.getResultTypes());
  for (const std::string &name : mutatedInPlace) {
    const std::string &kind = mutableInputs[name];
    if (llvm::any_of(outputs,
                     [&](const GraphOutput &o) { return o.kind == kind; }))
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
}

} // namespace spyre::pt2import
