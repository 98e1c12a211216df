//===- CompileReport.cpp - What the compiler decided, as JSON -------------===//

#include "spyre/Target/Spy/CompileReport.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Transforms/CostModel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

namespace spyre {

void writeCompileReport(ModuleOp module, llvm::raw_ostream &os) {
  Arch arch = getArch(module);
  llvm::json::Array kernels;
  int64_t estimate = 0, macs = 0, kernelBytes = 0, kernelWritten = 0;
  double kernelRoofline = 0;
  for (ProgramOp p : module.getOps<ProgramOp>()) {
    int64_t e = p.getEstimateNs().value_or(0);
    int64_t m = p.getMacs().value_or(0);
    int64_t b = p.getMinBytes().value_or(0);
    int64_t w = p.getMinWrittenBytes().value_or(0);
    double roof = rooflineNs(arch, m, b - w, w);
    int64_t insts = 0;
    p.walk([&](Operation *op) {
      if (op != p.getOperation())
        ++insts;
    });
    llvm::json::Object kernel{{"name", p.getSymName()},
                              {"cores", p.getNumCores()},
                              {"instructions", insts},
                              {"estimate_ns", e},
                              {"macs", m},
                              {"min_bytes", b},
                              {"min_written_bytes", w},
                              {"roofline_ns", roof}};
    if (ScheduleAttr s = p.getScheduleAttr())
      kernel["schedule"] =
          llvm::json::Object{{"split", llvm::json::Array(s.getSplit())},
                             {"tile", llvm::json::Array(s.getTile())},
                             {"depth", s.getDepth()},
                             {"hold", llvm::json::Array(s.getHold())},
                             {"keep", llvm::json::Array(s.getKeep())}};
    if (std::optional<int64_t> lx = p.getLxBytes())
      kernel["lx_bytes"] = *lx;
    kernels.push_back(std::move(kernel));
    estimate += e;
    macs += m;
    kernelBytes += b;
    kernelWritten += w;
    kernelRoofline += roof;
  }
  // Model level: only weights, constants, inputs and outputs must move.
  int64_t modelBytes = 0, modelWritten = 0;
  for (TensorOp t : module.getOps<TensorOp>()) {
    if (t.getRole() == TensorRole::workspace ||
        t.getRole() == TensorRole::on_chip)
      continue; // between kernels
    modelBytes += t.getDeviceBytes();
    if (t.getRole() == TensorRole::output)
      modelWritten += t.getDeviceBytes();
  }
  // What a launch costs beyond its kernels: its overhead and a barrier
  // between consecutive kernels (the simulator charges the same; each
  // kernel's synchronization is in its estimate).
  int64_t numKernels = int64_t(kernels.size());
  int64_t launch = arch.launchOverheadNs +
                   std::max<int64_t>(numKernels - 1, 0) * arch.barrierLatencyNs;
  llvm::json::Object report{
      {"arch", arch.name},
      {"kernels", std::move(kernels)},
      {"estimate_ns", estimate},
      {"estimate_with_launch_ns", estimate + launch},
      {"macs", macs},
      {"kernel_min_bytes", kernelBytes},
      {"kernel_min_written_bytes", kernelWritten},
      {"kernel_roofline_ns", kernelRoofline},
      {"model_min_bytes", modelBytes},
      {"model_written_bytes", modelWritten},
      {"model_roofline_ns",
       rooflineNs(arch, macs, modelBytes - modelWritten, modelWritten)},
      {"launch_overhead_ns", arch.launchOverheadNs},
      {"barrier_latency_ns", arch.barrierLatencyNs},
      {"kernel_sync_ns", arch.kernelSyncNs},
      {"core_sync_ns", arch.coreSyncNs}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
}

} // namespace spyre
