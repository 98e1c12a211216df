//===- Engine.h - Discrete-event execution of one step ----------*- C++ -*-===//
//
// Runs one step (a program on numCores cores) on the simulator's state:
// walks each core's instruction stream through its loops, issues every
// dynamic instruction in program order into its unit's in-order queue, and
// starts it when the unit is free and no earlier unfinished instruction of
// the same core conflicts with it on LX bytes (RAW, WAR, WAW). Events are
// processed in time order, so requests reach the memory node and the ring
// links in arrival order. In functional mode an instruction computes when it
// starts (its inputs are final then, its outputs protected until it ends);
// a ring receive writes its data when the message is matched.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_ENGINE_H
#define SPYRE_RUNTIME_SIMULATOR_ENGINE_H

#include "DecodedProgram.h"
#include "SimulatorImpl.h"

namespace spyre::rt::sim {

/// Issue window per core: dynamic instructions issued but not retired. A
/// simulator limit, not a machine parameter: it only bounds how far a core
/// runs ahead of its oldest unfinished instruction. Large enough that it
/// does not show in the timing of the kernels the compiler emits: at 256,
/// an attention kernel's held query tiles (48 loads queued at the head's
/// start) kept its compute from issuing (Granite's at 1024 tokens 284 us
/// instead of 233; TimingTest ComputeRunsAheadOfLoadsItDoesNotRead).
/// Not larger: issuing checks an instruction against the unfinished ones
/// of its core's queues, so a deeper window slows the simulation (a
/// Granite-8B-shaped 40-layer prefill, timing only: 2.3 s at 256, 4.1 s at
/// 1024, 7.9 s at 4096).
constexpr uint32_t kIssueWindow = 1024;
/// Slots a core starts a step with (a power of two; the ring doubles up to
/// kIssueWindow as the core runs ahead).
constexpr uint32_t kInitialSlots = 64;

/// Runs `step` (decoded as `program`) from device time `startPs`; sets
/// `endPs` to when its last instruction finishes. `traceStep` names the step
/// in trace events.
Status runStep(SimulatorDevice::Impl &device, const StepRequest &step,
               const DecodedProgram &program, uint32_t traceStep,
               uint64_t startPs, uint64_t &endPs);

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_ENGINE_H
