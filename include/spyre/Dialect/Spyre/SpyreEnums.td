//===- SpyreEnums.td - spyre enumerations ------------------*- tablegen -*-===//

#ifndef SPYRE_ENUMS_TD
#define SPYRE_ENUMS_TD

include "spyre/Dialect/Spyre/SpyreBase.td"
include "mlir/IR/EnumAttr.td"

// Elementwise functions of one operand. The SFP executes each as one op
// (docs/isa.md); the names match the SFP's, and the values are its op codes
// (isa::UnaryOp), which the constant folder relies on.
def Spyre_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary function", [
    I32EnumAttrCase<"neg", 1>, I32EnumAttrCase<"abs", 2>,
    I32EnumAttrCase<"exp", 3>, I32EnumAttrCase<"log", 4>,
    I32EnumAttrCase<"sqrt", 5>, I32EnumAttrCase<"rsqrt", 6>,
    I32EnumAttrCase<"reciprocal", 7>, I32EnumAttrCase<"tanh", 8>,
    I32EnumAttrCase<"sigmoid", 9>, I32EnumAttrCase<"relu", 10>,
    I32EnumAttrCase<"gelu", 11>, I32EnumAttrCase<"gelu_tanh", 12>,
    I32EnumAttrCase<"silu", 13>, I32EnumAttrCase<"sin", 14>,
    I32EnumAttrCase<"cos", 15>, I32EnumAttrCase<"floor", 16>,
    I32EnumAttrCase<"ceil", 17>, I32EnumAttrCase<"logical_not", 18>,
    I32EnumAttrCase<"erf", 19>, I32EnumAttrCase<"softplus", 20>,
    I32EnumAttrCase<"round", 21>, I32EnumAttrCase<"sign", 22>]> {
  let cppNamespace = "::spyre";
}

// Values are the SFP's op codes (isa::BinaryOp), as ComparePredicate's.
def Spyre_BinaryKind : I32EnumAttr<"BinaryKind", "elementwise binary function", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
    I32EnumAttrCase<"pow", 6>, I32EnumAttrCase<"logical_and", 13, "and">,
    I32EnumAttrCase<"logical_or", 14, "or">, I32EnumAttrCase<"floordiv", 15>,
    I32EnumAttrCase<"remainder", 16>]> {
  let cppNamespace = "::spyre";
}

def Spyre_ComparePredicate : I32EnumAttr<"ComparePredicate", "comparison", [
    I32EnumAttrCase<"eq", 7>, I32EnumAttrCase<"ne", 8>,
    I32EnumAttrCase<"lt", 9>, I32EnumAttrCase<"le", 10>,
    I32EnumAttrCase<"gt", 11>, I32EnumAttrCase<"ge", 12>]> {
  let cppNamespace = "::spyre";
}

// Values are the SFP op codes (isa::ReduceOp).
def Spyre_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"argmax", 3>,
    I32EnumAttrCase<"argmin", 4>, I32EnumAttrCase<"prod", 5>]> {
  let cppNamespace = "::spyre";
}

// What a `spyre.weight` holds, from the exported program's input specs.
def Spyre_WeightKind : I32EnumAttr<"WeightKind", "kind of weight", [
    I32EnumAttrCase<"parameter", 0>, I32EnumAttrCase<"buffer", 1>,
    I32EnumAttrCase<"constant", 2>]> {
  let cppNamespace = "::spyre";
}

// Roles of device tensors in a compiled program (the .spy tensor table).
def Spyre_TensorRole : I32EnumAttr<"TensorRole", "role of a device tensor", [
    I32EnumAttrCase<"input", 0>, I32EnumAttrCase<"output", 1>,
    I32EnumAttrCase<"weight", 2>, I32EnumAttrCase<"constant", 3>,
    I32EnumAttrCase<"workspace", 4>,
    // A kernel result kept in its producer's and consumer's LX: no device
    // memory (spyre-allocate-scratchpad's residency).
    I32EnumAttrCase<"on_chip", 5>]> {
  let cppNamespace = "::spyre";
}

// Where a kernel input comes from / an output goes to.
def Spyre_DataPath : I32EnumAttr<"DataPath", "data path of a kernel operand", [
    I32EnumAttrCase<"dma", 0>,   // device memory by DMA
    I32EnumAttrCase<"ring", 1>,  // another core's LX over the ring
    I32EnumAttrCase<"lx", 2>,    // stays in this core's LX across kernels
    // A result kept in LX for the readers there and stored to device
    // memory for the others.
    I32EnumAttrCase<"lx_dma", 3>]> {
  let cppNamespace = "::spyre";
  let genSpecializedAttr = 0;
}
def Spyre_DataPathAttr : EnumAttr<Spyre_Dialect, Spyre_DataPath, "data_path">;

// Loop kinds of a kernel's iteration space.
def Spyre_IteratorKind : I32EnumAttr<"IteratorKind", "iterator kind", [
    I32EnumAttrCase<"parallel", 0>, I32EnumAttrCase<"reduction", 1>]> {
  let cppNamespace = "::spyre";
  let genSpecializedAttr = 0;
}

#endif // SPYRE_ENUMS_TD
