//===- SpyreOps.td - spyre operations ----------------------*- tablegen -*-===//
//
// The ops of the dialect, one file per IR level (docs/ir-levels.md); one
// generated op list for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_OPS_TD
#define SPYRE_OPS_TD

include "spyre/Dialect/Spyre/SpyreGraphOps.td"
include "spyre/Dialect/Spyre/SpyreComputeOps.td"
include "spyre/Dialect/Spyre/SpyreScheduleOps.td"
include "spyre/Dialect/Spyre/SpyreProgramOps.td"

#endif // SPYRE_OPS_TD
