// Every verifier message of the spyre dialect (SpyreOps.cpp, SpyreAttrs.cpp),
// one chunk each. Machine-dependent checks run against the built-in machine
// description (arch/spyre.json: 32 cores, 2 MiB LX, 128-byte alignment,
// 128-byte sticks) and against a module-level `spyre.arch` describing another
// machine.

// RUN: spyre-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// #spyre.layout
//===----------------------------------------------------------------------===//

// expected-error @+1 {{stick_elems must be positive, got 0}}
func.func @layout_elems(%x: tensor<4xf16, #spyre.layout<stick_dim = 0, stick_elems = 0>>)

// -----

// expected-error @+1 {{stick_dim must be a dimension or -1, got -2}}
func.func @layout_dim(%x: tensor<4xf16, #spyre.layout<stick_dim = -2, stick_elems = 64>>)

// -----

// expected-error @+1 {{dim_order must be a permutation of 0..1}}
func.func @layout_order_repeat(%x: tensor<4x4xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [1, 1]>>)

// -----

// expected-error @+1 {{dim_order must be a permutation of 0..2}}
func.func @layout_order_range(%x: tensor<4x4x4xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [0, 1, 3]>>)

// -----

// expected-error @+1 {{stick_dim 2 is not a dimension of a rank-2 tensor}}
func.func @encoding_dim(%x: tensor<4x4xf16, #spyre.layout<stick_dim = 2, stick_elems = 64>>)

// -----

// expected-error @+1 {{stick_dim -1 is not a dimension of a rank-2 tensor}}
func.func @encoding_dim_scalar_layout(%x: tensor<4x4xf16, #spyre.layout<stick_dim = -1, stick_elems = 64>>)

// -----

// expected-error @+1 {{stick_dim 0 is not a dimension of a rank-0 tensor}}
func.func @encoding_rank0(%x: tensor<f16, #spyre.layout<stick_dim = 0, stick_elems = 64>>)

// -----

// expected-error @+1 {{dim_order has 3 entries for a rank-2 tensor}}
func.func @encoding_order(%x: tensor<4x4xf16, #spyre.layout<stick_dim = 0, stick_elems = 64, dim_order = [2, 0, 1]>>)

// -----

//===----------------------------------------------------------------------===//
// #spyre.arch
//===----------------------------------------------------------------------===//

// expected-error @+1 {{arch field 'cores' is missing}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 2097152 : i64,
    lx_alignment = 128 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{arch field 'lx_bytes' must be an integer}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2.0e6 : f64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{arch field 'memory_efficiency' must be a number}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = "high", memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{arch field 'fp16_storage' must be a string}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = 1 : i64}>} {
}

// -----

// expected-error @+1 {{invalid machine description: cores must be positive}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 0 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: stick_bytes must be a multiple of 8}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 100 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: lx_bytes must be a multiple of lx_alignment}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 1000000 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: memory_ring_position must follow the cores (>= cores)}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 16 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: memory_efficiency must be in (0, 1]}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 1.5 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: memory_write_efficiency must be in (0, 1]}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.0 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: latencies, overheads and synchronization times must not be negative}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = -1 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: latencies, overheads and synchronization times must not be negative}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = -80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: clocks must be positive}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 0.0 : f64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: lx_reserved_fraction must be in [0, 1)}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 1.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: lx_alignment and stick_bytes must divide one another}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 48 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
}

// -----

// expected-error @+1 {{invalid machine description: fp16_storage must be "dl16" or "ieee"}}
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-v1-default", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 128 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "fp16"}>} {
}

// -----

//===----------------------------------------------------------------------===//
// Stick size against the machine
//===----------------------------------------------------------------------===//

func.func @stick_default(%x: tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>) {
  // expected-error @+1 {{'spyre.unary' op layout of 'tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>' has sticks of 64 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.unary exp %x : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>> -> tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
  return
}

// -----

// Results are checked too (f32: 32 elements per 128-byte stick).
func.func @stick_result(%x: tensor<64xf32>) {
  // expected-error @+1 {{'spyre.restickify' op layout of 'tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 64>>' has sticks of 256 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.restickify %x : tensor<64xf32> -> tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  return
}

// -----

// The machine of the module: 64-byte sticks.
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-64b-sticks", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 64 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  func.func @stick_arch(%x: tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>) {
    // 32 fp16 elements make a 64-byte stick here.
    %0 = spyre.unary exp %x : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>> -> tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 32>>
    // expected-error @+1 {{'spyre.weight' op layout of 'tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>' has sticks of 128 bytes; the machine's stick is 64 bytes}}
    %1 = spyre.weight "w" parameter = dense<1.0> : tensor<64xf16> : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
    return
  }
}

// -----

// Nested modules inherit the outermost description that is set.
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-64b-sticks", cores = 32 : i64,
    corelets_per_core = 2 : i64, pt_rows = 8 : i64, pt_cols = 8 : i64,
    pt_simd = 8 : i64, sfp_lanes_per_core = 128 : i64,
    sfp_complex_op_passes = 1 : i64, core_clock_hz = 1100000000 : i64,
    lx_bytes = 2097152 : i64, lx_alignment = 128 : i64,
    lx_reserved_fraction = 0.0 : f64, stick_bytes = 64 : i64,
    ring_bytes_per_cycle = 128 : i64, ring_clock_hz = 1300000000 : i64,
    ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64, memory_bytes = 137438953472 : i64,
    memory_bytes_per_cycle = 128 : i64, memory_clock_hz = 1300000000 : i64,
    memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64, memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64,
    memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  module {
    // expected-error @+1 {{'spyre.tensor' op layout of 'tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>' has sticks of 128 bytes; the machine's stick is 64 bytes}}
    spyre.tensor @t input {io_index = 0 : i64} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  }
}

// -----

// A stick size that does not fit in 64 bits.
func.func @stick_overflow(%x: tensor<64xf32>) {
  // expected-error @+1 {{'spyre.restickify' op layout of 'tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 4611686018427387936>>' has sticks of 4611686018427387936 x 4 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.restickify %x : tensor<64xf32> -> tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 4611686018427387936>>
  return
}

// -----

func.func @stick_constant() {
  // expected-error @+1 {{'spyre.constant' op layout of 'tensor<64xi8, #spyre.layout<stick_dim = 0, stick_elems = 64>>' has sticks of 64 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.constant dense<1> : tensor<64xi8> : tensor<64xi8, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.aten
//===----------------------------------------------------------------------===//

func.func @aten_arity(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op 'tensor_args' names 2 arguments for 1 operands}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {}, tensor_args = ["self", "other"]} : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

// Unknown ops are not checked against the table, but their arity still is.
func.func @aten_arity_unknown(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op 'tensor_args' names 0 arguments for 1 operands}}
  %0 = spyre.aten "aten.not_an_op.default"(%x) {args = {}, tensor_args = []} : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @aten_unknown_tensor_arg(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op 'aten.gelu.default' has no argument 'input'}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {}, tensor_args = ["input"]} : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @aten_not_a_tensor(%x: tensor<4x4xf16>, %d: tensor<i64>) {
  // expected-error @+1 {{'spyre.aten' op argument 'dim' of 'aten.max.dim' is not a tensor (schema type int)}}
  %0:2 = spyre.aten "aten.max.dim"(%x, %d) {args = {}, tensor_args = ["self", "dim"]} : (tensor<4x4xf16>, tensor<i64>) -> (tensor<4xf16>, tensor<4xi64>)
  return
}

// -----

func.func @aten_bound_twice(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op tensor argument 'self' of 'aten.add.Tensor' is bound twice}}
  %0 = spyre.aten "aten.add.Tensor"(%x, %x) {args = {}, tensor_args = ["self", "self"]} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @aten_unknown_attr_arg(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op 'aten.gelu.default' has no argument 'approx'}}
  %0 = spyre.aten "aten.gelu.default"(%x) {args = {approx = "tanh"}, tensor_args = ["self"]} : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @aten_operand_and_attr(%x: tensor<4xf16>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op argument 'other' is given both as an operand and as an attribute}}
  %0 = spyre.aten "aten.add.Tensor"(%x, %y) {args = {other = 1.0 : f64}, tensor_args = ["self", "other"]} : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @aten_missing_tensor(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.aten' op missing required argument 'other' of 'aten.add.Tensor'}}
  %0 = spyre.aten "aten.add.Tensor"(%x) {args = {}, tensor_args = ["self"]} : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @aten_missing_scalar(%x: tensor<4x4xf16>) {
  // expected-error @+1 {{'spyre.aten' op missing required argument 'dim' of 'aten.max.dim'}}
  %0:2 = spyre.aten "aten.max.dim"(%x) {args = {keepdim = true}, tensor_args = ["self"]} : (tensor<4x4xf16>) -> (tensor<4x1xf16>, tensor<4x1xi64>)
  return
}

// -----

func.func @aten_results(%x: tensor<4x4xf16>) {
  // expected-error @+1 {{'spyre.aten' op 'aten.max.dim' returns 2 values, the op has 1 results}}
  %0 = spyre.aten "aten.max.dim"(%x) {args = {dim = 1 : i64}, tensor_args = ["self"]} : (tensor<4x4xf16>) -> tensor<4xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.weight
//===----------------------------------------------------------------------===//

func.func @weight_neither() {
  // expected-error @+1 {{'spyre.weight' op needs exactly one of a value or external data}}
  %0 = spyre.weight "w" parameter : tensor<4xf16>
  return
}

// -----

func.func @weight_both() {
  // expected-error @+1 {{'spyre.weight' op needs exactly one of a value or external data}}
  %0 = spyre.weight "w" parameter = dense<1.0> : tensor<4xf16> external <file = "f", entry = "", offset = 0> : tensor<4xf16>
  return
}

// -----

func.func @weight_value_shape() {
  // expected-error @+1 {{'spyre.weight' op value of type 'tensor<8xf16>' does not match the result type 'tensor<4xf16>'}}
  %0 = spyre.weight "w" parameter = dense<1.0> : tensor<8xf16> : tensor<4xf16>
  return
}

// -----

func.func @weight_value_type() {
  // expected-error @+1 {{'spyre.weight' op value of type 'tensor<4xf32>' does not match the result type 'tensor<4xf16>'}}
  %0 = spyre.weight "w" buffer = dense<1.0> : tensor<4xf32> : tensor<4xf16>
  return
}

// -----

// The static-shape check is shadowed: an elements attribute always has a
// static shape, so a dynamic result never matches it.
func.func @weight_value_dynamic() {
  // expected-error @+1 {{'spyre.weight' op value of type 'tensor<4xf16>' does not match the result type 'tensor<?xf16>'}}
  %0 = spyre.weight "w" constant = dense<1.0> : tensor<4xf16> : tensor<?xf16>
  return
}

// -----

func.func @weight_stick() {
  // expected-error @+1 {{'spyre.weight' op layout of 'tensor<4xf16, #spyre.layout<stick_dim = 0, stick_elems = 128>>' has sticks of 256 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.weight "w" parameter external <file = "f", entry = "", offset = 0> : tensor<4xf16, #spyre.layout<stick_dim = 0, stick_elems = 128>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.matmul
//===----------------------------------------------------------------------===//

func.func @matmul_rank(%a: tensor<32xf16>, %b: tensor<32x16xf16>) {
  // expected-error @+1 {{'spyre.matmul' op operands must have rank >= 2, got 1 and 2}}
  %0 = spyre.matmul %a, %b : tensor<32xf16>, tensor<32x16xf16> -> tensor<16xf16>
  return
}

// -----

func.func @matmul_int(%a: tensor<8x32xi8>, %b: tensor<32x16xi8>) {
  // expected-error @+1 {{'spyre.matmul' op operands must share a float element type, got 'i8' and 'i8'}}
  %0 = spyre.matmul %a, %b : tensor<8x32xi8>, tensor<32x16xi8> -> tensor<8x16xf32>
  return
}

// -----

func.func @matmul_mixed(%a: tensor<8x32xf16>, %b: tensor<32x16xbf16>) {
  // expected-error @+1 {{'spyre.matmul' op operands must share a float element type, got 'f16' and 'bf16'}}
  %0 = spyre.matmul %a, %b : tensor<8x32xf16>, tensor<32x16xbf16> -> tensor<8x16xf32>
  return
}

// -----

func.func @matmul_result_type(%a: tensor<8x32xf16>, %b: tensor<32x16xf16>) {
  // expected-error @+1 {{'spyre.matmul' op result must have a float element type}}
  %0 = spyre.matmul %a, %b : tensor<8x32xf16>, tensor<32x16xf16> -> tensor<8x16xi32>
  return
}

// -----

func.func @matmul_k(%a: tensor<8x32xf16>, %b: tensor<16x32xf16>) {
  // expected-error @+1 {{'spyre.matmul' op contraction sizes differ: lhs has 32, rhs has 16}}
  %0 = spyre.matmul %a, %b : tensor<8x32xf16>, tensor<16x32xf16> -> tensor<8x32xf16>
  return
}

// -----

// With transpose_lhs, lhs is [k, m].
func.func @matmul_k_transposed(%a: tensor<8x32xf16>, %b: tensor<32x16xf16>) {
  // expected-error @+1 {{'spyre.matmul' op contraction sizes differ: lhs has 8, rhs has 32}}
  %0 = spyre.matmul %a, %b {transpose_lhs} : tensor<8x32xf16>, tensor<32x16xf16> -> tensor<32x16xf16>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x8x32xf16>, %b: tensor<3x32x16xf16>) {
  // expected-error @+1 {{'spyre.matmul' op batch dimensions do not broadcast}}
  %0 = spyre.matmul %a, %b : tensor<2x8x32xf16>, tensor<3x32x16xf16> -> tensor<2x8x16xf16>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<2x1x8x32xf16>, %b: tensor<3x32x16xf16>) {
  // expected-error @+1 {{'spyre.matmul' op result shape must be [2, 3, 8, 16], got 'tensor<2x8x16xf16>'}}
  %0 = spyre.matmul %a, %b : tensor<2x1x8x32xf16>, tensor<3x32x16xf16> -> tensor<2x8x16xf16>
  return
}

// -----

func.func @matmul_stick(%a: tensor<8x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, %b: tensor<32x16xf16, #spyre.layout<stick_dim = 1, stick_elems = 128>>) {
  // expected-error @+1 {{'spyre.matmul' op layout of 'tensor<32x16xf16, #spyre.layout<stick_dim = 1, stick_elems = 128>>' has sticks of 256 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.matmul %a, %b : tensor<8x32xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>, tensor<32x16xf16, #spyre.layout<stick_dim = 1, stick_elems = 128>> -> tensor<8x16xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

func.func @unary_type(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.unary' op result element type 'f32' differs from the input's 'f16'}}
  %0 = spyre.unary exp %x : tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @unary_float(%x: tensor<4xi32>) {
  // expected-error @+1 {{'spyre.unary' op 'exp' needs a float element type, got 'i32'}}
  %0 = spyre.unary exp %x : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @unary_shape(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.unary' op requires the same shape for all operands and results}}
  %0 = spyre.unary exp %x : tensor<4xf16> -> tensor<8xf16>
  return
}

// -----

func.func @binary_type(%x: tensor<4xf16>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'spyre.binary' op operands and result must share an element type, got 'f16', 'f32' and 'f16'}}
  %0 = spyre.binary add %x, %y : tensor<4xf16>, tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

func.func @binary_bcast(%x: tensor<4x3xf16>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.binary' op operand shapes do not broadcast}}
  %0 = spyre.binary add %x, %y : tensor<4x3xf16>, tensor<4xf16> -> tensor<4x3xf16>
  return
}

// -----

func.func @binary_result(%x: tensor<4x1xf16>, %y: tensor<3xf16>) {
  // expected-error @+1 {{'spyre.binary' op result shape must be the broadcast shape [4, 3], got 'tensor<4x1xf16>'}}
  %0 = spyre.binary add %x, %y : tensor<4x1xf16>, tensor<3xf16> -> tensor<4x1xf16>
  return
}

// -----

func.func @compare_type(%x: tensor<4xf16>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'spyre.compare' op operands must share an element type, got 'f16' and 'f32'}}
  %0 = spyre.compare lt %x, %y : tensor<4xf16>, tensor<4xf32> -> tensor<4xi1>
  return
}

// -----

func.func @compare_result(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.compare' op result must be an i1 tensor, got 'i8'}}
  %0 = spyre.compare lt %x, %x : tensor<4xf16>, tensor<4xf16> -> tensor<4xi8>
  return
}

// -----

func.func @compare_bcast(%x: tensor<4xf16>, %y: tensor<5xf16>) {
  // expected-error @+1 {{'spyre.compare' op operand shapes do not broadcast}}
  %0 = spyre.compare lt %x, %y : tensor<4xf16>, tensor<5xf16> -> tensor<4xi1>
  return
}

// -----

func.func @select_cond(%c: tensor<4xf16>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.select' op condition must be an i1 tensor, got 'f16'}}
  %0 = spyre.select %c, %x, %x : tensor<4xf16>, tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  return
}

// -----

func.func @select_values(%c: tensor<4xi1>, %x: tensor<4xf16>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'spyre.select' op values and result must share an element type}}
  %0 = spyre.select %c, %x, %y : tensor<4xi1>, tensor<4xf16>, tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

// The condition broadcasts against both values.
func.func @select_result(%c: tensor<2x1xi1>, %x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.select' op result shape must be the broadcast shape [2, 4], got 'tensor<4xf16>'}}
  %0 = spyre.select %c, %x, %x : tensor<2x1xi1>, tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  return
}

// -----

func.func @reduce_dim(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reduce' op dim 2 is out of range for rank 2}}
  %0 = spyre.reduce sum %x dim 2 : tensor<4x8xf16> -> tensor<4x8xf16>
  return
}

// -----

func.func @reduce_negative_dim(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reduce' op dim -1 is out of range for rank 2}}
  %0 = spyre.reduce sum %x dim -1 : tensor<4x8xf16> -> tensor<4x1xf16>
  return
}

// -----

func.func @reduce_shape(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reduce' op result shape must be [4, 1] (the reduced dim kept with size 1), got 'tensor<4xf16>'}}
  %0 = spyre.reduce sum %x dim 1 : tensor<4x8xf16> -> tensor<4xf16>
  return
}

// -----

func.func @reduce_arg(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reduce' op argmax/argmin produce integer indices, got 'f16'}}
  %0 = spyre.reduce argmax %x dim 1 : tensor<4x8xf16> -> tensor<4x1xf16>
  return
}

// -----

func.func @reduce_type(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reduce' op result element type must be the input's}}
  %0 = spyre.reduce sum %x dim 1 : tensor<4x8xf16> -> tensor<4x1xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.cast' op requires the same shape for all operands and results}}
  %0 = spyre.cast %x : tensor<4xf16> -> tensor<2x2xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'spyre.constant' op value of type 'tensor<4xf32>' does not match the result type 'tensor<4xf16>'}}
  %0 = spyre.constant dense<1.0> : tensor<4xf32> : tensor<4xf16>
  return
}

// -----

func.func @constant_shape() {
  // expected-error @+1 {{'spyre.constant' op value of type 'tensor<1xf16>' does not match the result type 'tensor<4xf16>'}}
  %0 = spyre.constant dense<1.0> : tensor<1xf16> : tensor<4xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

func.func @transpose_size(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.transpose' op permutation has 3 entries for a rank-2 input}}
  %0 = spyre.transpose %x [0, 1, 2] : tensor<4x8xf16> -> tensor<4x8xf16>
  return
}

// -----

func.func @transpose_repeat(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.transpose' op permutation must contain each dim once}}
  %0 = spyre.transpose %x [1, 1] : tensor<4x8xf16> -> tensor<8x8xf16>
  return
}

// -----

func.func @transpose_range(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.transpose' op permutation must contain each dim once}}
  %0 = spyre.transpose %x [0, -1] : tensor<4x8xf16> -> tensor<4x8xf16>
  return
}

// -----

func.func @transpose_result(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.transpose' op result must be the permuted input, got 'tensor<4x8xf16>'}}
  %0 = spyre.transpose %x [1, 0] : tensor<4x8xf16> -> tensor<4x8xf16>
  return
}

// -----

func.func @transpose_type(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.transpose' op result must be the permuted input, got 'tensor<8x4xf32>'}}
  %0 = spyre.transpose %x [1, 0] : tensor<4x8xf16> -> tensor<8x4xf32>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<?x8xf16>) {
  // expected-error @+1 {{'spyre.reshape' op shapes must be static}}
  %0 = spyre.reshape %x : tensor<?x8xf16> -> tensor<32xf16>
  return
}

// -----

func.func @reshape_elements(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reshape' op input 'tensor<4x8xf16>' and result 'tensor<16xf16>' must have the same elements}}
  %0 = spyre.reshape %x : tensor<4x8xf16> -> tensor<16xf16>
  return
}

// -----

func.func @reshape_type(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reshape' op input 'tensor<4x8xf16>' and result 'tensor<32xbf16>' must have the same elements}}
  %0 = spyre.reshape %x : tensor<4x8xf16> -> tensor<32xbf16>
  return
}

// -----

func.func @reshape_stick(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{'spyre.reshape' op layout of 'tensor<32xf16, #spyre.layout<stick_dim = 0, stick_elems = 32>>' has sticks of 64 bytes; the machine's stick is 128 bytes}}
  %0 = spyre.reshape %x : tensor<4x8xf16> -> tensor<32xf16, #spyre.layout<stick_dim = 0, stick_elems = 32>>
  return
}

// -----

func.func @broadcast_shape(%x: tensor<3xf16>) {
  // expected-error @+1 {{'spyre.broadcast' op cannot broadcast 'tensor<3xf16>' to 'tensor<4x4xf16>'}}
  %0 = spyre.broadcast %x : tensor<3xf16> -> tensor<4x4xf16>
  return
}

// -----

// Broadcasting never shrinks.
func.func @broadcast_shrink(%x: tensor<4x4xf16>) {
  // expected-error @+1 {{'spyre.broadcast' op cannot broadcast 'tensor<4x4xf16>' to 'tensor<4xf16>'}}
  %0 = spyre.broadcast %x : tensor<4x4xf16> -> tensor<4xf16>
  return
}

// -----

func.func @broadcast_type(%x: tensor<4xf16>) {
  // expected-error @+1 {{'spyre.broadcast' op cannot broadcast 'tensor<4xf16>' to 'tensor<2x4xf32>'}}
  %0 = spyre.broadcast %x : tensor<4xf16> -> tensor<2x4xf32>
  return
}

// -----

func.func @restickify_type(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.restickify' op must keep the element type}}
  %0 = spyre.restickify %x : tensor<64xf16> -> tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 32>>
  return
}

// -----

func.func @restickify_layout(%x: tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>) {
  // expected-error @+1 {{'spyre.restickify' op result must have a #spyre.layout encoding}}
  %0 = spyre.restickify %x : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>> -> tensor<64xf16>
  return
}

// -----

func.func @restickify_shape(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.restickify' op requires the same shape for all operands and results}}
  %0 = spyre.restickify %x : tensor<64xf16> -> tensor<32xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.kernel
//===----------------------------------------------------------------------===//

func.func @kernel_args(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op body has 0 arguments for 1 inputs}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
    %c = spyre.constant dense<0.0> : tensor<64xf16> : tensor<64xf16>
    spyre.yield %c : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_arg_type(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op body argument type 'tensor<64xf32>' differs from input type 'tensor<64xf16>'}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf32>):
    %c = spyre.constant dense<0.0> : tensor<64xf16> : tensor<64xf16>
    spyre.yield %c : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_iterators(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op has 2 iterators for 1 loops}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel", "parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_iterator_kind(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op iterator must be "parallel" or "reduction", got "window"}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["window"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_space(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op loop sizes must be positive}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 0>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_map_count(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op has 1 indexing maps for 2 inputs and results}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_map_dims(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op indexing map affine_map<(d0, d1) -> (d0)> must have 1 dims}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i, j) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_map_rank(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op indexing map affine_map<(d0) -> (d0, 0)> does not match the rank of 'tensor<64xf16>'}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i, 0)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_schedule_size(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule must give a split and a tile per loop}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1, 1], tile = [64], depth = 1, cost_ns = 0>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_schedule_positive(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule splits and tiles must be positive}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [0], depth = 1, cost_ns = 0>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_tile(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op tile 128 exceeds its loop size 64}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [128], depth = 1, cost_ns = 0>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_cores(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule uses 64 cores; the machine has 32}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64, 64>, iterators = ["parallel", "parallel"], indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], schedule = #spyre.schedule<split = [8, 8], tile = [8, 8], depth = 1, cost_ns = 0>} : (tensor<64x64xf16>) -> tensor<64x64xf16> {
  ^bb0(%a: tensor<64x64xf16>):
    spyre.yield %a : tensor<64x64xf16>
  }
  return
}

// -----

module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-8-cores", cores = 8 : i64, corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 2097152 : i64,
    lx_alignment = 128 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 8 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  func.func @kernel_cores_arch(%x: tensor<64x64xf16>) {
    // expected-error @+1 {{'spyre.kernel' op schedule uses 16 cores; the machine has 8}}
    %0 = spyre.kernel "k"(%x) {space = array<i64: 64, 64>, iterators = ["parallel", "parallel"], indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], schedule = #spyre.schedule<split = [4, 4], tile = [16, 16], depth = 1, cost_ns = 0>} : (tensor<64x64xf16>) -> tensor<64x64xf16> {
    ^bb0(%a: tensor<64x64xf16>):
      spyre.yield %a : tensor<64x64xf16>
    }
    return
  }
}

// -----

// A split whose core count does not fit in 64 bits.
func.func @kernel_cores_overflow(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule split [4294967296, 4294967296] uses more cores than the machine's 32}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64, 64>, iterators = ["parallel", "parallel"], indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], schedule = #spyre.schedule<split = [4294967296, 4294967296], tile = [1, 1], depth = 1, cost_ns = 0>} : (tensor<64x64xf16>) -> tensor<64x64xf16> {
  ^bb0(%a: tensor<64x64xf16>):
    spyre.yield %a : tensor<64x64xf16>
  }
  return
}

// -----

func.func @kernel_depth(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op pipeline depth must be at least 1}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [64], depth = 0, cost_ns = 0>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_malformed(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 'in0' is malformed}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 128, copies = 0>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_negative(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 'out0' is malformed}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "out0", offset = -128, bytes = 128, copies = 1>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_align(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 'in0' must be aligned to 128 bytes}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "in0", offset = 64, bytes = 128, copies = 1>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_capacity(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 'acc' ends at byte 2162688, past the 2097152-byte scratchpad}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "acc", offset = 65536, bytes = 1048576, copies = 2>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

// A machine with 1 MiB of LX, aligned to 256 bytes.
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-1mib-lx", cores = 32 : i64, corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 1048576 : i64,
    lx_alignment = 256 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  func.func @kernel_buffer_capacity_arch(%x: tensor<64xf16>) {
    // expected-error @+1 {{'spyre.kernel' op buffer 'in0' ends at byte 1049600, past the 1048576-byte scratchpad}}
    %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "in0", offset = 1024, bytes = 524288, copies = 2>]} : (tensor<64xf16>) -> tensor<64xf16> {
    ^bb0(%a: tensor<64xf16>):
      spyre.yield %a : tensor<64xf16>
    }
    return
  }
}

// -----

module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-1mib-lx", cores = 32 : i64, corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 1048576 : i64,
    lx_alignment = 256 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  func.func @kernel_buffer_align_arch(%x: tensor<64xf16>) {
    // expected-error @+1 {{'spyre.kernel' op buffer 'in0' must be aligned to 256 bytes}}
    %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "in0", offset = 128, bytes = 256, copies = 1>]} : (tensor<64xf16>) -> tensor<64xf16> {
    ^bb0(%a: tensor<64xf16>):
      spyre.yield %a : tensor<64xf16>
    }
    return
  }
}

// -----

func.func @kernel_buffer_overflow(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 'in0' (4 copies of 4611686018427387904 bytes at byte 0) does not fit in the 2097152-byte scratchpad}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "in0", offset = 0, bytes = 4611686018427387904, copies = 4>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_live_size(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 't0' live range must be [first, last]}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "t0", offset = 0, bytes = 128, copies = 1, live = [0, 1, 2]>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_live_order(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op buffer 't0' live range must be [first, last]}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "t0", offset = 0, bytes = 128, copies = 1, live = [2, 1]>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

// Live ranges that meet at one position overlap; a buffer without `live`
// lives for the whole kernel.
func.func @kernel_buffer_overlap_live(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op LX buffers 1 and 2 overlap at byte 128 while both are live}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "in0", offset = 1024, bytes = 128, copies = 1>, #spyre.buffer<name = "t0", offset = 0, bytes = 256, copies = 1, live = [0, 1]>, #spyre.buffer<name = "t1", offset = 128, bytes = 128, copies = 1, live = [1, 2]>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_buffer_overlap(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op LX buffers 0 and 1 overlap at byte 256 while both are live}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], buffers = [#spyre.buffer<name = "out0", offset = 256, bytes = 128, copies = 1>, #spyre.buffer<name = "in0", offset = 0, bytes = 256, copies = 2>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_sources_count(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op sources has 2 entries for 1 values}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["dma", "dma"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_sources_kind(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op sources entry "pcie" is not one of dma, ring, lx, lx_dma}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["pcie"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_destinations_count(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op destinations has 0 entries for 1 values}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], destinations = []} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_destinations_kind(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op destinations entry "DMA" is not one of dma, ring, lx, lx_dma}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], destinations = ["DMA"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

// An input read from LX must be a result kept in LX.
func.func @kernel_source_lx_from_memory(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op input 0 is read from LX, but it is not a kernel result kept in LX}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["lx"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

// Every use of a result kept in LX must be an input read from LX.
func.func @kernel_destination_lx_read_from_memory(%x: tensor<64xf16>) -> tensor<64xf16> {
  // expected-error @+1 {{'spyre.kernel' op result 0 is kept in LX, but one of its uses is not a kernel input read from LX}}
  %0 = spyre.kernel "a"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], destinations = ["lx"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  %1 = spyre.kernel "b"(%0) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return %1 : tensor<64xf16>
}

// -----

func.func @kernel_schedule_hold(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule holds input 1, but the kernel has 1 inputs}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [64], depth = 1, cost_ns = 0, hold = [1]>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_schedule_hold_twice(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule holds input 0 twice}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [64], depth = 1, cost_ns = 0, hold = [0, 0]>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_schedule_keep(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule keeps result 1, but the kernel has 1 results}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [64], depth = 1, cost_ns = 0, keep = [1]>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_schedule_keep_twice(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op schedule keeps result 0 twice}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], schedule = #spyre.schedule<split = [1], tile = [64], depth = 1, cost_ns = 0, keep = [0, 0]>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

// `lx_dma` (kept in LX and stored) is where a result goes, not where an
// input comes from.
func.func @kernel_source_lx_dma(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op input 0 has source lx_dma, which only a result can have (kept in LX and stored)}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["lx_dma"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

// An input gathered over the ring must be a result kept in its producer's
// LX.
func.func @kernel_source_ring_from_memory(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op input 0 is read from other cores' LX over the ring, but it is not a kernel result kept in LX}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], sources = ["ring"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

// A result does not go over the ring: its reader gathers it.
func.func @kernel_destination_ring(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op result 0 goes over the ring; a result stays in its producer's LX (`lx`) and a reader gathers it (`ring`)}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], destinations = ["ring"]} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    %r = spyre.unary neg %a : tensor<64xf16> -> tensor<64xf16>
    spyre.yield %r : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_result_offsets(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op result_offsets has 2 entries for 1 results}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], result_offsets = array<i64: 0, 128>} : (tensor<64xf16>) -> tensor<64xf16> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @kernel_yield(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.kernel' op yields 'tensor<64xf16>' but returns 'tensor<64xf32>'}}
  %0 = spyre.kernel "k"(%x) {space = array<i64: 64>, iterators = ["parallel"], indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (tensor<64xf16>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf16>):
    spyre.yield %a : tensor<64xf16>
  }
  return
}

// -----

func.func @yield_parent(%x: tensor<64xf16>) {
  // expected-error @+1 {{'spyre.yield' op expects parent op to be one of 'spyre.kernel, spyre.reference'}}
  spyre.yield %x : tensor<64xf16>
}

// -----

//===----------------------------------------------------------------------===//
// spyre.tensor
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'spyre.tensor' op type must be a statically shaped tensor}}
spyre.tensor @t input {io_index = 0 : i64} : tensor<?x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op type must be a statically shaped tensor}}
spyre.tensor @t input {io_index = 0 : i64} : memref<64xf16>

// -----

// expected-error @+1 {{'spyre.tensor' op type must have a #spyre.layout encoding}}
spyre.tensor @t input {io_index = 0 : i64} : tensor<64xf16>

// -----

// expected-error @+1 {{'spyre.tensor' op inputs and outputs need an io_index}}
spyre.tensor @t output : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op only inputs and outputs have an io_index}}
spyre.tensor @t workspace {io_index = 0 : i64, workspace_offset = 0 : i64} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op weights and constants need exactly one of value or external data}}
spyre.tensor @t weight : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op weights and constants need exactly one of value or external data}}
spyre.tensor @t constant {value = dense<0.0> : tensor<64xf16>, external = #spyre.external<file = "f", entry = "", offset = 0>} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op only weights and constants carry data}}
spyre.tensor @t input {io_index = 0 : i64, value = dense<0.0> : tensor<64xf16>} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op only weights and constants carry data}}
spyre.tensor @t workspace {workspace_offset = 0 : i64, external = #spyre.external<file = "f", entry = "", offset = 0>} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op workspace tensors (and only they) need a workspace_offset}}
spyre.tensor @t workspace : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op workspace tensors (and only they) need a workspace_offset}}
spyre.tensor @t output {io_index = 0 : i64, workspace_offset = 0 : i64} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// Mutations: only an output holds a buffer's new contents.
spyre.tensor @w weight {value = dense<0.0> : tensor<64xf16>} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// expected-error @+1 {{'spyre.tensor' op only outputs may update a buffer}}
spyre.tensor @t input {io_index = 0 : i64, updates = @w} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

spyre.tensor @w weight {value = dense<0.0> : tensor<64xf16>} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// expected-error @+1 {{'spyre.tensor' op an output updates an input or a buffer, not both}}
spyre.tensor @t output {io_index = 0 : i64, aliases_input = 0 : i64, updates = @w} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

spyre.tensor @c constant {value = dense<0.0> : tensor<64xf16>} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// expected-error @+1 {{'spyre.tensor' op updates @c, which is not a weight}}
spyre.tensor @t output {io_index = 0 : i64, updates = @c} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op updates @missing, which is not a weight}}
spyre.tensor @t output {io_index = 0 : i64, updates = @missing} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

spyre.tensor @w weight {value = dense<0.0> : tensor<128xf16>} : tensor<128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// expected-error @+1 {{'spyre.tensor' op updates @w of type 'tensor<128xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>', not 'tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>'}}
spyre.tensor @t output {io_index = 0 : i64, updates = @w} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op only outputs may alias an input}}
spyre.tensor @t input {io_index = 1 : i64, aliases_input = 0 : i64} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

// expected-error @+1 {{'spyre.tensor' op layout of 'tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 64>>' has sticks of 256 bytes; the machine's stick is 128 bytes}}
spyre.tensor @t input {io_index = 0 : i64} : tensor<64xf32, #spyre.layout<stick_dim = 0, stick_elems = 64>>

// -----

//===----------------------------------------------------------------------===//
// spyre.ring_send / spyre.ring_recv
//===----------------------------------------------------------------------===//

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 1, 0>} {
  // expected-error @+1 {{'spyre.ring_send' op bytes must be positive}}
  spyre.ring_send {lx = #spyre.lx<offset = 0>, peer = 0 : i64, peer_param = 0 : i64, tag = 0 : i64, bytes = 0 : i64}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 1, 0>} {
  // expected-error @+1 {{'spyre.ring_recv' op peer parameter slot 1 is out of range (num_params = 1)}}
  spyre.ring_recv {lx = #spyre.lx<offset = 0>, peer = 0 : i64, peer_param = 1 : i64, tag = 0 : i64, bytes = 128 : i64}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.ring_recv' op peer and tag must not be negative}}
  spyre.ring_recv {lx = #spyre.lx<offset = 0>, peer = -1 : i64, tag = 0 : i64, bytes = 128 : i64}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.ring_send' op peer_param must not be negative, got -1}}
  spyre.ring_send {lx = #spyre.lx<offset = 0>, peer = 1 : i64, peer_param = -1 : i64, tag = 0 : i64, bytes = 128 : i64}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.ring_send' op LX range [2097024, 2097280) is outside the 2097152-byte scratchpad}}
  spyre.ring_send {lx = #spyre.lx<offset = 2097024>, peer = 1 : i64, tag = 0 : i64, bytes = 256 : i64}
}

// -----

// Partial sums are f32 added by the receiver: only a partial-sum receive
// accumulates, and of whole f32 values.
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.ring_send' op accumulate adds f32 partial sums: only a partial_sum ring_recv of whole f32 values has it}}
  spyre.ring_send {lx = #spyre.lx<offset = 0>, peer = 1 : i64, tag = 0 : i64, bytes = 256 : i64, partial_sum, accumulate}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.ring_recv' op accumulate adds f32 partial sums: only a partial_sum ring_recv of whole f32 values has it}}
  spyre.ring_recv {lx = #spyre.lx<offset = 0>, peer = 1 : i64, tag = 0 : i64, bytes = 256 : i64, accumulate}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.ring_recv' op accumulate adds f32 partial sums: only a partial_sum ring_recv of whole f32 values has it}}
  spyre.ring_recv {lx = #spyre.lx<offset = 0>, peer = 1 : i64, tag = 0 : i64, bytes = 254 : i64, partial_sum, accumulate}
}

// -----

// Every iteration's bytes lie in LX: here the fourth row's do not.
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 4 {
    // expected-error @+1 {{'spyre.ring_recv' op LX range [2097024, 2097280) is outside the 2097152-byte scratchpad in its last iteration}}
    spyre.ring_recv {lx = #spyre.lx<offset = 2096256, strides = [256]>, peer = 1 : i64, tag = 0 : i64, bytes = 256 : i64}
  }
}

// -----

// A trip count from a parameter: the largest core's (core 1 runs 5 times).
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 1, 5>} {
  spyre.loop 1 attributes {count_param = 0 : i64} {
    // expected-error @+1 {{'spyre.ring_send' op LX range [2097024, 2097280) is outside the 2097152-byte scratchpad in its last iteration}}
    spyre.ring_send {lx = #spyre.lx<offset = 2096000, strides = [256]>, peer = 0 : i64, tag = 0 : i64, bytes = 256 : i64}
  }
}

// -----

// A parameter count so large its last offset does not fit in 64 bits.
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 1, 9223372036854775807>} {
  spyre.loop 1 attributes {count_param = 0 : i64} {
    // expected-error @+1 {{'spyre.ring_send' op LX range of its loops' iterations does not fit in 64 bits}}
    spyre.ring_send {lx = #spyre.lx<offset = 0, strides = [256]>, peer = 0 : i64, tag = 0 : i64, bytes = 256 : i64}
  }
}

// -----

// Rotating through two copies: the second one's bytes.
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 8 {
    // expected-error @+1 {{'spyre.ring_recv' op LX range [2097024, 2097280) is outside the 2097152-byte scratchpad in its last iteration}}
    spyre.ring_recv {lx = #spyre.lx<offset = 2096768, strides = [256], wrap = 512>, peer = 1 : i64, tag = 0 : i64, bytes = 256 : i64}
  }
}

// -----

//===----------------------------------------------------------------------===//
// spyre.reference
//===----------------------------------------------------------------------===//

spyre.tensor @x input {io_index = 0 : i64} : tensor<2x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
}
// expected-error @+1 {{'spyre.reference' op refers to unknown program @q}}
spyre.reference @q [@x] -> [@x] {
^bb0(%a: tensor<2x64xf16>):
  spyre.yield %a : tensor<2x64xf16>
}

// -----

spyre.tensor @x input {io_index = 0 : i64} : tensor<2x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
}
// expected-error @+1 {{'spyre.reference' op body has 0 arguments for 1 inputs}}
spyre.reference @p [@x] -> [] {
  spyre.yield
}

// -----

spyre.tensor @x input {io_index = 0 : i64} : tensor<2x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
}
// expected-error @+1 {{'spyre.reference' op body yields 1 values for 0 results}}
spyre.reference @p [@x] -> [] {
^bb0(%a: tensor<2x64xf16>):
  spyre.yield %a : tensor<2x64xf16>
}

// -----

spyre.tensor @x input {io_index = 0 : i64} : tensor<2x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
}
// expected-error @+1 {{'spyre.reference' op refers to unknown tensor @y}}
spyre.reference @p [@x] -> [@y] {
^bb0(%a: tensor<2x64xf16>):
  spyre.yield %a : tensor<2x64xf16>
}

// -----

spyre.tensor @x input {io_index = 0 : i64} : tensor<2x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
}
// expected-error @+1 {{'spyre.reference' op value of type 'tensor<2x32xf16>' is not a view of tensor @x ('tensor<2x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>')}}
spyre.reference @p [@x] -> [] {
^bb0(%a: tensor<2x32xf16>):
  spyre.yield
}

// -----

//===----------------------------------------------------------------------===//
// spyre.program, spyre.plan
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'spyre.program' op num_cores must be in 1..32, got 0}}
spyre.program @p attributes {kernel = "k", num_cores = 0 : i64, num_params = 0 : i64, params = array<i64>} {
}

// -----

// expected-error @+1 {{'spyre.program' op num_cores must be in 1..32, got 33}}
spyre.program @p attributes {kernel = "k", num_cores = 33 : i64, num_params = 0 : i64, params = array<i64>} {
}

// -----

module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-4-cores", cores = 4 : i64, corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 2097152 : i64,
    lx_alignment = 128 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 4 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  // expected-error @+1 {{'spyre.program' op num_cores must be in 1..4, got 8}}
  spyre.program @p attributes {kernel = "k", num_cores = 8 : i64, num_params = 0 : i64, params = array<i64>} {
  }
}

// -----

// expected-error @+1 {{'spyre.program' op num_params must be in 0..254}}
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 255 : i64, params = array<i64>} {
}

// -----

// expected-error @+1 {{'spyre.program' op num_params must be in 0..254}}
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = -1 : i64, params = array<i64>} {
}

// -----

// expected-error @+1 {{'spyre.program' op params has 3 values; num_cores * num_params is 4}}
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 2 : i64, params = array<i64: 0, 1, 2>} {
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
}
// expected-error @+1 {{'spyre.plan' op refers to unknown program @q}}
spyre.plan [@p, @q]

// -----

// A plan's entries must be programs, not any symbol.
spyre.tensor @t input {io_index = 0 : i64} : tensor<64xf16, #spyre.layout<stick_dim = 0, stick_elems = 64>>
// expected-error @+1 {{'spyre.plan' op refers to unknown program @t}}
spyre.plan [@t]

// -----

func.func @plan_parent() {
  // expected-error @+1 {{'spyre.plan' op expects parent op 'builtin.module'}}
  spyre.plan []
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.loop
//===----------------------------------------------------------------------===//

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.loop' op count must not be negative}}
  spyre.loop -1 {
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 2 {
    spyre.loop 2 {
      spyre.loop 2 {
        // expected-error @+1 {{'spyre.loop' op hardware loops nest at most 3 deep}}
        spyre.loop 2 {
        }
      }
    }
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 4, 3>} {
  // expected-error @+1 {{'spyre.loop' op count parameter slot 1 is out of range (num_params = 1)}}
  spyre.loop 4 attributes {count_param = 1 : i64} {
  }
}

// -----

// An absent count_param means none; a negative one is an error (not -1).
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 4, 3>} {
  // expected-error @+1 {{'spyre.loop' op count_param must not be negative, got -1}}
  spyre.loop 4 attributes {count_param = -1 : i64} {
  }
}

// -----

func.func @loop_parent() {
  // expected-error @+1 {{'spyre.loop' op expects parent op to be one of 'spyre.program, spyre.loop'}}
  spyre.loop 2 {
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.dma_load / spyre.dma_store
//===----------------------------------------------------------------------===//

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op box and pitch must have 3 entries}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 64, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_store' op box and pitch must have 3 entries}}
  spyre.dma_store {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 64, 1, 1>, pitch = array<i64: 128, 0, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op box counts must be positive}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 64, 0, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op run must be positive}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 64, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 0 : i64}
}

// -----

// A tensor kept on chip has no device memory for a DMA to move.
spyre.tensor @kept on_chip : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_store' op moves tensor @kept, which is kept on chip and has no device memory}}
  spyre.dma_store {mem = #spyre.mem<tensor = @kept, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 64, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_store' op refers to unknown tensor @missing}}
  spyre.dma_store {mem = #spyre.mem<tensor = @missing, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 64, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 4 {
    // expected-error @+1 {{'spyre.dma_load' op memory address has more loop strides than enclosing loops}}
    spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0, strides = [2048, 128]>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
  }
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 0, 4096>} {
  // expected-error @+1 {{'spyre.dma_load' op memory parameter slot 2 is out of range (num_params = 1)}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0, param = 2>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op LX range [2088960, 2105344) is outside the 2097152-byte scratchpad}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 2088960>, box = array<i64: 64, 2, 1>, pitch = array<i64: 128, 64, 0>, run = 128 : i64}
}

// -----

// The last of 4 tiles, 16 KiB apart, would end past LX.
spyre.tensor @t input {io_index = 0 : i64} : tensor<256x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 4 {
    // expected-error @+1 {{'spyre.dma_load' op LX range [2088960, 2105344) is outside the 2097152-byte scratchpad in its last iteration}}
    spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0, strides = [16384]>, lx = #spyre.lx<offset = 2039808, strides = [16384]>, box = array<i64: 128, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
  }
}

// -----

module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-1mib-lx", cores = 32 : i64, corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 1048576 : i64,
    lx_alignment = 128 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    // expected-error @+1 {{'spyre.dma_store' op LX range [1048576, 1048704) is outside the 1048576-byte scratchpad}}
    spyre.dma_store {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 1048576>, box = array<i64: 1, 1, 1>, pitch = array<i64: 0, 0, 0>, run = 128 : i64}
  }
}

// -----

// A box whose size does not fit in 64 bits.
spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op box [4611686018427387904, 4, 1] of 128-byte runs does not fit in the 2097152-byte scratchpad}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 4611686018427387904, 4, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64}
}

// -----

// A negative LX offset passes the range check and fails the address check.
spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op lx LX offset -128 is outside the 2097152-byte scratchpad}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = -128>, box = array<i64: 1, 1, 1>, pitch = array<i64: 0, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op lx has 1 loop strides inside 0 loops}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0, strides = [128]>, box = array<i64: 1, 1, 1>, pitch = array<i64: 0, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op lx wrap must not be negative}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0, wrap = -1>, box = array<i64: 1, 1, 1>, pitch = array<i64: 0, 0, 0>, run = 128 : i64}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op clamp level 3 is not a hardware loop level (0..2) or -1 (none)}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64, clamp = #spyre.clamp<level = 3, arg = 0, step = 16, total = 64>}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_store' op clamp argument 4 cannot be clamped}}
  spyre.dma_store {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64, clamp = #spyre.clamp<level = 0, arg = 4, step = 16, total = 64>}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op clamp step must be positive and total non-negative}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64, clamp = #spyre.clamp<level = 0, arg = 0, step = 0, total = 64>}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.dma_load' op clamp step must be positive and total non-negative}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64, clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = -1>}
}

// -----

spyre.tensor @t input {io_index = 0 : i64} : tensor<64x64xf16, #spyre.layout<stick_dim = 1, stick_elems = 64>>
spyre.program @p attributes {kernel = "k", num_cores = 2 : i64, num_params = 1 : i64, params = array<i64: 0, 32>} {
  // expected-error @+1 {{'spyre.dma_load' op clamp parameter slot 1 is out of range (num_params = 1)}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0, param = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 16, 1, 1>, pitch = array<i64: 128, 0, 0>, run = 128 : i64, clamp = #spyre.clamp<level = 0, arg = 0, step = 16, total = 64, param = 1>}
}

// -----

func.func @dma_parent() {
  // expected-error @+1 {{'spyre.dma_load' op expects parent op to be one of 'spyre.program, spyre.loop'}}
  spyre.dma_load {mem = #spyre.mem<tensor = @t, offset = 0>, lx = #spyre.lx<offset = 0>, box = array<i64: 1, 1, 1>, pitch = array<i64: 0, 0, 0>, run = 128 : i64}
  return
}

// -----

//===----------------------------------------------------------------------===//
// spyre.pt_matmul
//===----------------------------------------------------------------------===//

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.pt_matmul' op pitch must have 3 entries}}
  spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.pt_matmul' op m, k and n must be positive}}
  spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 0 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.pt_matmul' op the accumulator must be f32}}
  spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 128, 128, 128>, dst_type = f16, lhs_type = f16, rhs_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.pt_matmul' op dst LX offset 2097152 is outside the 2097152-byte scratchpad}}
  spyre.pt_matmul {dst = #spyre.lx<offset = 2097152>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 2 {
    // expected-error @+1 {{'spyre.pt_matmul' op lhs has 2 loop strides inside 1 loops}}
    spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192, strides = [128, 128]>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16}
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.pt_matmul' op rhs wrap must not be negative}}
  spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384, wrap = -4096>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16}
}

// -----

// A machine with 1 MiB of LX.
module attributes {spyre.arch = #spyre.arch<{
    name = "spyre-1mib-lx", cores = 32 : i64, corelets_per_core = 2 : i64,
    pt_rows = 8 : i64, pt_cols = 8 : i64, pt_simd = 8 : i64,
    sfp_lanes_per_core = 128 : i64, sfp_complex_op_passes = 1 : i64,
    core_clock_hz = 1100000000 : i64, lx_bytes = 1048576 : i64,
    lx_alignment = 128 : i64, lx_reserved_fraction = 0.0 : f64,
    stick_bytes = 128 : i64, ring_bytes_per_cycle = 128 : i64,
    ring_clock_hz = 1300000000 : i64, ring_hop_latency_cycles = 4 : i64, psum_ring_bytes_per_cycle = 32 : i64,
    memory_bytes = 137438953472 : i64, memory_bytes_per_cycle = 128 : i64,
    memory_clock_hz = 1300000000 : i64, memory_efficiency = 0.86 : f64,
    memory_write_efficiency = 0.47 : f64,
    memory_latency_ns = 500 : i64, memory_setup_ns = 20 : i64,
    memory_turnaround_ns = 10 : i64, memory_burst_bytes = 128 : i64, memory_ring_position = 32 : i64,
    max_span_per_core_bytes = 268435456 : i64,
    launch_overhead_ns = 10000 : i64, barrier_latency_ns = 200 : i64,
    kernel_sync_ns = 8000 : i64, core_sync_ns = 80 : i64,
    pcie_bytes_per_s = 53600000000.0 : f64, pcie_latency_ns = 1000 : i64,
    fp16_storage = "dl16"}>} {
  spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
    // expected-error @+1 {{'spyre.pt_matmul' op rhs LX offset 1048576 is outside the 1048576-byte scratchpad}}
    spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 1048576>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16}
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 2 {
    // expected-error @+1 {{'spyre.pt_matmul' op init_level 1 is not an enclosing loop}}
    spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16, accumulate, init_level = 1 : i64}
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 2 {
    // expected-error @+1 {{'spyre.pt_matmul' op only k (argument 1) can be clamped, not argument 2}}
    spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16, clamp = #spyre.clamp<level = 0, arg = 2, step = 64, total = 100>}
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.pt_matmul' op clamp level -2 is not a hardware loop level (0..2) or -1 (none)}}
  spyre.pt_matmul {dst = #spyre.lx<offset = 0>, lhs = #spyre.lx<offset = 8192>, rhs = #spyre.lx<offset = 16384>, m = 8 : i64, k = 64 : i64, n = 64 : i64, pitch = array<i64: 256, 128, 128>, dst_type = f32, lhs_type = f16, rhs_type = f16, clamp = #spyre.clamp<level = -2, arg = 1, step = 64, total = 100>}
}

// -----

//===----------------------------------------------------------------------===//
// SFP ops
//===----------------------------------------------------------------------===//

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_unary' op unknown function 'add'}}
  spyre.sfp_unary "add" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_binary' op unknown function 'exp'}}
  spyre.sfp_binary "exp" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, src1 = #spyre.lx<offset = 256>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 128>, dst_type = f16, src0_type = f16, src1_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_select' op unknown function 'where'}}
  spyre.sfp_select "where" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, src1 = #spyre.lx<offset = 256>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 128>, dst_type = f16, src0_type = i1, src1_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_reduce' op unknown function 'mean'}}
  spyre.sfp_reduce "mean" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f32, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_transpose' op unknown function 'permute'}}
  spyre.sfp_transpose "permute" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 8192>, rows = 64 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_unary' op pitch must have 3 entries}}
  spyre.sfp_unary "exp" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_unary' op rows and cols must be positive}}
  spyre.sfp_unary "exp" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 0 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_binary' op needs a src1 operand}}
  spyre.sfp_binary "add" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 128>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_reduce' op takes no src1 operand}}
  spyre.sfp_reduce "sum" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, src1 = #spyre.lx<offset = 256>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f32, src0_type = f16, src1_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_unary' op dst LX offset -128 is outside the 2097152-byte scratchpad}}
  spyre.sfp_unary "exp" {dst = #spyre.lx<offset = -128>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_unary' op src0 has 1 loop strides inside 0 loops}}
  spyre.sfp_unary "exp" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128, strides = [128]>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_select' op src1 LX offset 4194304 is outside the 2097152-byte scratchpad}}
  spyre.sfp_select "select" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, src1 = #spyre.lx<offset = 4194304>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 128>, dst_type = f16, src0_type = i1, src1_type = f16}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.sfp_reduce' op init_level 0 is not an enclosing loop}}
  spyre.sfp_reduce "sum" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f32, src0_type = f16, accumulate, init_level = 0 : i64}
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 4 {
    // expected-error @+1 {{'spyre.sfp_transpose' op clamp argument 2 cannot be clamped}}
    spyre.sfp_transpose "transpose" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 8192>, rows = 64 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16, clamp = #spyre.clamp<level = 0, arg = 2, step = 64, total = 100>}
  }
}

// -----

func.func @sfp_parent() {
  // expected-error @+1 {{'spyre.sfp_unary' op expects parent op to be one of 'spyre.program, spyre.loop'}}
  spyre.sfp_unary "exp" {dst = #spyre.lx<offset = 0>, src0 = #spyre.lx<offset = 128>, rows = 1 : i64, cols = 64 : i64, pitch = array<i64: 128, 128, 0>, dst_type = f16, src0_type = f16}
  return
}

// -----

// The identity order has one spelling: none.
// expected-error @+1 {{dim_order is the identity; omit it}}
func.func private @identity_order(tensor<4x8xf32, #spyre.layout<stick_dim = 1, stick_elems = 32, dim_order = [0, 1]>>)

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  // expected-error @+1 {{'spyre.loop' op count_level 0 is not an enclosing loop}}
  spyre.loop 4 attributes {count_step = 1 : i64, count_level = 0 : i64} {
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 4 {
    // expected-error @+1 {{'spyre.loop' op count_step and count_level go together}}
    spyre.loop 4 attributes {count_step = 1 : i64} {
    }
  }
}

// -----

spyre.program @p attributes {kernel = "k", num_cores = 1 : i64, num_params = 0 : i64, params = array<i64>} {
  spyre.loop 4 {
    // expected-error @+1 {{'spyre.loop' op count_step must be a non-zero 32-bit integer}}
    spyre.loop 4 attributes {count_step = 4294967296 : i64, count_level = 0 : i64} {
    }
  }
}

// -----

func.func @attention_rank(%q: tensor<8xf16>, %k: tensor<8xf16>, %v: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'spyre.attention' op query, key, value and result must share one rank >= 2}}
  %0 = spyre.attention %q, %k, %v {scale = 1.0 : f64} : tensor<8xf16>, tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @attention_types(%q: tensor<4x8xf16>, %k: tensor<6x8xf32>, %v: tensor<6x8xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op query, key and value must share a float element type, and the result be float}}
  %0 = spyre.attention %q, %k, %v {scale = 1.0 : f64} : tensor<4x8xf16>, tensor<6x8xf32>, tensor<6x8xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @attention_batch(%q: tensor<4x3x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>) -> tensor<4x3x8xf16> {
  // expected-error @+1 {{'spyre.attention' op key and value batch dims must be the query's or 1}}
  %0 = spyre.attention %q, %k, %v {scale = 1.0 : f64} : tensor<4x3x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16> -> tensor<4x3x8xf16>
  return %0 : tensor<4x3x8xf16>
}

// -----

func.func @attention_head_dim(%q: tensor<4x8xf16>, %k: tensor<6x16xf16>, %v: tensor<6x8xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op key must be [..., S, 8] and value [..., 6, Ev] for the query's head dim 8}}
  %0 = spyre.attention %q, %k, %v {scale = 1.0 : f64} : tensor<4x8xf16>, tensor<6x16xf16>, tensor<6x8xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @attention_causal(%q: tensor<8x8xf16>, %k: tensor<6x8xf16>, %v: tensor<6x8xf16>) -> tensor<8x8xf16> {
  // expected-error @+1 {{'spyre.attention' op a causal attention needs no more queries (8) than keys (6)}}
  %0 = spyre.attention %q, %k, %v {causal, scale = 1.0 : f64} : tensor<8x8xf16>, tensor<6x8xf16>, tensor<6x8xf16> -> tensor<8x8xf16>
  return %0 : tensor<8x8xf16>
}

// -----

func.func @attention_result(%q: tensor<4x8xf16>, %k: tensor<6x8xf16>, %v: tensor<6x16xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op result shape must be [4, 16]}}
  %0 = spyre.attention %q, %k, %v {scale = 1.0 : f64} : tensor<4x8xf16>, tensor<6x8xf16>, tensor<6x16xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @attention_mask(%q: tensor<4x8xf16>, %k: tensor<6x8xf16>, %v: tensor<6x8xf16>, %m: tensor<4x5xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op mask must be a float tensor that broadcasts to [4, 6]}}
  %0 = spyre.attention %q, %k, %v mask %m {scale = 1.0 : f64} : tensor<4x8xf16>, tensor<6x8xf16>, tensor<6x8xf16>, tensor<4x5xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @attention_sinks_shape(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>, %s: tensor<2x4x2xf16>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op sinks must be a float tensor that broadcasts to [2, 4, 1]}}
  %0 = spyre.attention %q, %k, %v sinks(%s : tensor<2x4x2xf16>) {scale = 1.0 : f64} : tensor<2x4x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16> -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}

// -----

func.func @attention_sinks_type(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>, %s: tensor<2x1x1xi32>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op sinks must be a float tensor that broadcasts to [2, 4, 1]}}
  %0 = spyre.attention %q, %k, %v sinks(%s : tensor<2x1x1xi32>) {scale = 1.0 : f64} : tensor<2x4x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16> -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}

// -----

func.func @attention_rope_table(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>, %c: tensor<5x8xf16>, %r: tensor<8x8xf16>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op rope cos and sin must be 'f16' tensors that broadcast to [2, 4, 8]}}
  %0 = spyre.attention %q, %k, %v rope(%c, %c, %r : tensor<5x8xf16>, tensor<5x8xf16>, tensor<8x8xf16>) {scale = 1.0 : f64} : tensor<2x4x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16> -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}

// -----

func.func @attention_rope_table_type(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>, %c: tensor<4x8xf32>, %r: tensor<8x8xf16>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op rope cos and sin must be 'f16' tensors that broadcast to [2, 4, 8]}}
  %0 = spyre.attention %q, %k, %v rope(%c, %c, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf16>) {scale = 1.0 : f64} : tensor<2x4x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16> -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}

// -----

func.func @attention_rope_rotation(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>, %c: tensor<4x8xf16>, %r: tensor<8x4xf16>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op rope rotation must be a [8, 8] 'f16' tensor}}
  %0 = spyre.attention %q, %k, %v rope(%c, %c, %r : tensor<4x8xf16>, tensor<4x8xf16>, tensor<8x4xf16>) {scale = 1.0 : f64} : tensor<2x4x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16> -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}

// -----

func.func @attention_rope_partial(%q: tensor<2x4x8xf16>, %k: tensor<2x6x8xf16>, %v: tensor<2x6x8xf16>, %c: tensor<4x8xf16>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'spyre.attention' op rope needs cos, sin and rotation together}}
  %0 = "spyre.attention"(%q, %k, %v, %c) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0>, scale = 1.0 : f64}> : (tensor<2x4x8xf16>, tensor<2x6x8xf16>, tensor<2x6x8xf16>, tensor<4x8xf16>) -> tensor<2x4x8xf16>
  return %0 : tensor<2x4x8xf16>
}
