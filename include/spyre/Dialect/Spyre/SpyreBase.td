//===- SpyreBase.td - The spyre dialect --------------------*- tablegen -*-===//

#ifndef SPYRE_BASE_TD
#define SPYRE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def Spyre_Dialect : Dialect {
  let name = "spyre";
  let cppNamespace = "::spyre";
  let summary = "IBM Spyre dataflow accelerator: graph, compute, schedule "
                "and program levels";
  let description = [{
    One dialect, four levels (docs/ir-levels.md):

    1. Graph level: `spyre.aten` carries one exported PyTorch node unchanged;
       `spyre.weight` carries parameters, buffers and lifted constants.
    2. Compute level: a small set of hardware-executable ops on tensors whose
       types carry a `#spyre.layout` stick-layout encoding.
    3. Schedule level: `spyre.kernel` groups compute ops into one launchable
       unit and states its schedule (core split, tiles, pipeline depth, LX
       buffers, data sources).
    4. Program level: `spyre.program` holds per-core instruction ops with
       symbolic tensor addresses (`spyre.tensor`), ready for `.spy` emission.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // Rewrites that apply to every op of the dialect (EmptyTensors.cpp).
  let hasCanonicalizer = 1;
  // The importer's records on functions and ops (spyre.dims, spyre.output,
  // spyre.range_constraints): checked so that passes may rely on their form.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerOps();
  }];
}

// A signless i64 attribute read as a signed int64_t (I64Attr reads uint64_t).
def Spyre_I64Attr : SignlessIntegerAttrBase<I64, "64-bit integer attribute"> {
  let returnType = [{ int64_t }];
  let convertFromStorage = "$_self.getValue().getSExtValue()";
  let constBuilderCall =
      "$_builder.getIntegerAttr($_builder.getIntegerType(64), $0)";
}

class Spyre_Op<string mnemonic, list<Trait> traits = []>
    : Op<Spyre_Dialect, mnemonic, traits>;

class Spyre_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Spyre_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // SPYRE_BASE_TD
