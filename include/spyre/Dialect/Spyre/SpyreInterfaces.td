//===- SpyreInterfaces.td - spyre op interfaces ------------*- tablegen -*-===//

#ifndef SPYRE_INTERFACES_TD
#define SPYRE_INTERFACES_TD

include "mlir/IR/OpBase.td"

// Pointwise compute ops (TileLowering.h): fusable and collapsible anywhere.
def Spyre_Pointwise : NativeOpTrait<"PointwiseOp"> {
  let cppNamespace = "::spyre::OpTrait";
}

def Spyre_ComputeOpInterface : OpInterface<"ComputeOpInterface"> {
  let cppNamespace = "::spyre";
  let description = [{
    A compute-level op that the schedule passes can place in a kernel. It
    describes itself as a loop nest (like a `linalg.generic`): the sizes and
    kinds of its loops and, for each operand and result, an affine map from
    loops to tensor indices (a broadcast dimension maps to the constant 0).
    Kernel formation composes these maps, the core scheduler splits and
    tiles the loops, and the program lowering turns each op into SFP or PT
    instructions on tiles.
  }];
  let methods = [
    InterfaceMethod<"Returns the op's loop nest and indexing maps.",
      "::spyre::IterationSpace", "getIterationSpace">,
    InterfaceMethod<[{
        Returns the multiply-accumulates and element operations the op
        performs (for cost models and rooflines): only the work its
        result needs (a causal attention's scores above the diagonal are
        not computed).
      }],
      "::spyre::OpWork", "getWork">,
    InterfaceMethod<[{
        Returns the layout operand `index` must have, given the machine's
        stick size in bytes; null when any layout will do. The default is
        the canonical layout (sticks along the innermost dim).
      }],
      "::spyre::LayoutAttr", "getRequiredLayout",
      (ins "unsigned":$index, "int64_t":$stickBytes), [{}], [{
        return ::spyre::LayoutAttr::getCanonical(
            ::llvm::cast<::mlir::RankedTensorType>(
                $_op->getOperand(index).getType()),
            stickBytes);
      }]>,
    InterfaceMethod<[{
        Whether the op can also run on operand `index` in another layout
        than the required one (at some cost, e.g. a transpose that moves
        the stick dim): the required layout is then only a preference,
        honoured where it is free (weights, graph inputs).
      }],
      "bool", "isLayoutFlexible", (ins "unsigned":$index), [{}], [{
        return false;
      }]>,
    InterfaceMethod<[{
        Returns the role the op plays in a kernel body, from which the
        kernel's kind follows (KernelPlan).
      }],
      "::spyre::KernelRole", "getKernelRole">,
    InterfaceMethod<[{
        Returns the instruction that computes the op on a tile (form and
        SFP function name), or form None when it has none of its own.
      }],
      "::spyre::TileLowering", "getTileLowering">,
  ];
}

def Spyre_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::spyre";
  let description = [{
    A program-level instruction op (docs/isa.md). It encodes itself into
    one or more `isa::Inst` words through an `InstEncoder`, which checks
    that every field fits and records relocations; the `.spy` emitter
    needs no list of instruction ops.
  }];
  let methods = [
    InterfaceMethod<[{
        Appends the op's instruction words (a loop: its body's too) to
        `encoder`; emits a diagnostic at the op and fails when a field does
        not fit its encoding.
      }],
      "::mlir::LogicalResult", "encode",
      (ins "::spyre::InstEncoder &":$encoder)>,
  ];
}

#endif // SPYRE_INTERFACES_TD
