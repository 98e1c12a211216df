//===- SpyreGraphOps.td - spyre graph-level ops ------------*- tablegen -*-===//

#ifndef SPYRE_GRAPH_OPS_TD
#define SPYRE_GRAPH_OPS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "spyre/Dialect/Spyre/SpyreAttrs.td"
include "spyre/Dialect/Spyre/SpyreEnums.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Graph level
//===----------------------------------------------------------------------===//

def Spyre_AtenOp : Spyre_Op<"aten", [Pure]> {
  let summary = "one node of an exported PyTorch graph, unchanged";
  let description = [{
    Carries an exported node as torch.export wrote it: `target` is the op's
    name with overload (`aten.gelu.default`), the tensor operands bind to the
    schema arguments named in `tensor_args` (one entry per operand, in
    order; a `Tensor[]` argument repeats its name), and every other argument
    is an entry of `args` (None is a unit attribute). A `Tensor?[]`
    argument has its present tensors as operands and, in `args`, an array
    of booleans marking which list positions hold a tensor (the rest are
    None). Results are the node's outputs in order (`none` for an output
    that is None).

    The importer is total: every node becomes a `spyre.aten`. The verifier
    checks ops whose schema is in the op-schema table (argument names, kinds
    and count); `spyre-decompose` rewrites the supported ones into compute
    ops and rejects the rest, naming the op at the node's location.

    ```mlir
    %0 = spyre.aten "aten.gelu.default"(%x) {args = {approximate = "tanh"},
           tensor_args = ["self"]} : (tensor<64x256xf16>) -> tensor<64x256xf16>
    ```
  }];
  let arguments = (ins StrAttr:$target, Variadic<AnyType>:$inputs,
                       StrArrayAttr:$tensor_args, DictionaryAttr:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $target `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The operands bound to schema argument `name`, in order.
    ::llvm::SmallVector<::mlir::Value> getTensorArg(::llvm::StringRef name);
    /// The non-tensor argument `name`, or null.
    ::mlir::Attribute getArg(::llvm::StringRef name) {
      return getArgs().get(name);
    }
  }];
}

def Spyre_WeightOp : Spyre_Op<"weight", [Pure]> {
  let summary = "a parameter, buffer or lifted constant of the model";
  let description = [{
    A tensor whose value is known when the model is compiled. Small values
    are `value` (a dense or `dense_resource` elements attribute); large ones
    stay in the archive they came from (`external`). Exactly one is set.
    `name` is the PyTorch fully qualified name (`layers.0.mlp.fc1.weight`).

    Canonicalization turns a lifted constant, or a buffer that no result of
    the function mutates (`spyre.output = "buffer_mutation:<name>"`), held
    as a dense `value`, into a `spyre.constant` when an op reading it has
    only constant operands, so that the op folds. Parameters stay weights.
  }];
  let arguments = (ins StrAttr:$name, Spyre_WeightKind:$kind,
                       OptionalAttr<ElementsAttr>:$value,
                       OptionalAttr<Spyre_ExternalDataAttr>:$external);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $name $kind (`=` $value^)? (`external` $external^)? attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

#endif // SPYRE_GRAPH_OPS_TD
