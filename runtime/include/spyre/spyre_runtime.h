/*===- spyre_runtime.h - C API of the Spyre runtime --------------*- C -*-===*\
|*                                                                            *|
|* A C interface to the runtime (docs/runtime.md): devices (the simulator),   *|
|* validated models, and the three phases of DESIGN.md section 6:             *|
|*   spyre_executable_load  - phase 1, load (programs, weights, Load relocs)  *|
|*   spyre_workspace_create - phase 2, bind (workspace, Bind relocs)          *|
|*   spyre_launch           - phase 3, launch (io buffers, run the plan)      *|
|*                                                                            *|
|* Every function returns a status; on failure spyre_last_error() gives a     *|
|* message (per thread, valid until the thread's next failing call). No C++   *|
|* exception crosses this interface. Handles are not thread-safe.             *|
|*                                                                            *|
|* Lifetimes: destroying a handle never invalidates another one. An           *|
|* executable keeps its device and model alive; a workspace may outlive its   *|
|* executable (it is then unusable and holds no device memory).               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SPYRE_SPYRE_RUNTIME_H
#define SPYRE_SPYRE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes (the values of spyre::rt::StatusCode). */
typedef enum spyre_status {
  SPYRE_OK = 0,
  SPYRE_ERROR_INVALID_ARGUMENT = 1,
  SPYRE_ERROR_INVALID_FILE = 2,
  SPYRE_ERROR_VERSION_MISMATCH = 3,
  SPYRE_ERROR_ARCH_MISMATCH = 4,
  SPYRE_ERROR_OUT_OF_MEMORY = 5,
  SPYRE_ERROR_DEVICE = 6,
  SPYRE_ERROR_IO = 7,
  SPYRE_ERROR_INTERNAL = 8
} spyre_status_t;

/** Element types (the values of spyre::isa::DType). */
typedef enum spyre_dtype {
  SPYRE_DTYPE_F32 = 0,
  SPYRE_DTYPE_F16 = 1,
  SPYRE_DTYPE_BF16 = 2,
  SPYRE_DTYPE_I8 = 3,
  SPYRE_DTYPE_I32 = 4,
  SPYRE_DTYPE_I64 = 5,
  SPYRE_DTYPE_BOOL = 6
} spyre_dtype_t;

typedef uint64_t spyre_device_addr_t;
typedef struct spyre_device spyre_device_t;
typedef struct spyre_model spyre_model_t;
typedef struct spyre_executable spyre_executable_t;
typedef struct spyre_workspace spyre_workspace_t;

/** The message of the calling thread's last failure ("" if none). */
const char *spyre_last_error(void);
/** The runtime's version ("0.1.0") and the .spy format it reads ("1.0"). */
const char *spyre_runtime_version(void);
const char *spyre_spy_format_version(void);

/*===--- Devices ----------------------------------------------------------===*/

/** Creates a simulator. `arch_path` names a machine description (JSON);
 *  NULL selects the built-in default. `timing_only` skips data; `trace`
 *  records a Chrome trace. */
spyre_status_t spyre_simulator_create(const char *arch_path, int timing_only,
                                      int trace, spyre_device_t **out);
/** Releases the caller's reference (NULL is ignored). */
void spyre_device_destroy(spyre_device_t *device);

spyre_status_t spyre_device_alloc(spyre_device_t *device, uint64_t size,
                                  uint64_t alignment, spyre_device_addr_t *out);
spyre_status_t spyre_device_free(spyre_device_t *device,
                                 spyre_device_addr_t addr);
spyre_status_t spyre_device_write(spyre_device_t *device,
                                  spyre_device_addr_t dst, const void *src,
                                  uint64_t size);
spyre_status_t spyre_device_read(spyre_device_t *device,
                                 spyre_device_addr_t src, void *dst,
                                 uint64_t size);

/** Accumulated simulator statistics. */
typedef struct spyre_sim_stats {
  double total_ns;
  double roofline_ns;
  uint64_t num_kernels;
  uint64_t bytes_read;
  uint64_t bytes_written;
  uint64_t ring_bytes;
  uint64_t macs;
  uint64_t launches;
} spyre_sim_stats_t;

spyre_status_t spyre_simulator_stats(const spyre_device_t *device,
                                     spyre_sim_stats_t *out);
spyre_status_t spyre_simulator_reset_stats(spyre_device_t *device);
/** Writes the statistics JSON of docs/runtime.md. */
spyre_status_t spyre_simulator_write_stats(const spyre_device_t *device,
                                           const char *path);
/** Writes the Chrome trace (the device must have been created with trace). */
spyre_status_t spyre_simulator_write_trace(const spyre_device_t *device,
                                           const char *path);

/*===--- Models -----------------------------------------------------------===*/

/** Maps and validates a .spy file for `device` (NULL: validate against the
 *  machine description embedded in the file). */
spyre_status_t spyre_model_open(const char *path, const spyre_device_t *device,
                                spyre_model_t **out);
void spyre_model_destroy(spyre_model_t *model);

size_t spyre_model_num_inputs(const spyre_model_t *model);
size_t spyre_model_num_outputs(const spyre_model_t *model);
/** Warnings found while validating (e.g. a newer minor format version). */
size_t spyre_model_num_warnings(const spyre_model_t *model);
const char *spyre_model_warning(const spyre_model_t *model, size_t index);

/** Describes an input or output; pointers stay valid while the model lives. */
typedef struct spyre_tensor_info {
  /** The model's name of it (the exported input or output name), or the
   *  file's symbol (`in0`) when the model recorded none. */
  const char *name;
  spyre_dtype_t dtype;
  size_t rank;
  const int64_t *shape;
  /** Bytes of the row-major host buffer. */
  uint64_t host_bytes;
  /** Bytes and alignment of the device buffer (stick layout). */
  uint64_t device_bytes;
  uint64_t device_alignment;
  /** Outputs holding the new contents of a mutated input (copied into that
   *  input's buffer after each launch): the input's index, else -1. */
  int64_t aliases_input;
  /** Outputs holding the new contents of a mutated buffer (copied over the
   *  buffer after each launch, so the next launch sees it): the buffer's
   *  name, else NULL. */
  const char *updates_buffer;
} spyre_tensor_info_t;

spyre_status_t spyre_model_input_info(const spyre_model_t *model, size_t index,
                                      spyre_tensor_info_t *out);
spyre_status_t spyre_model_output_info(const spyre_model_t *model, size_t index,
                                       spyre_tensor_info_t *out);

/*===--- The three phases -------------------------------------------------===*/

/** Phase 1 (load). */
spyre_status_t spyre_executable_load(spyre_device_t *device,
                                     const spyre_model_t *model,
                                     spyre_executable_t **out);
void spyre_executable_destroy(spyre_executable_t *executable);

/** Phase 2 (bind). */
spyre_status_t spyre_workspace_create(spyre_executable_t *executable,
                                      spyre_workspace_t **out);
void spyre_workspace_destroy(spyre_workspace_t *workspace);

/** Phase 3 (launch): device buffers of the inputs and outputs, io order. */
spyre_status_t
spyre_launch(spyre_executable_t *executable, spyre_workspace_t *workspace,
             const spyre_device_addr_t *inputs, size_t num_inputs,
             const spyre_device_addr_t *outputs, size_t num_outputs);

/*===--- Host data --------------------------------------------------------===*/

/** Copies a row-major host tensor (host_bytes) into a device buffer, in the
 *  input's stick layout. */
spyre_status_t spyre_copy_input_to_device(const spyre_model_t *model,
                                          spyre_device_t *device, size_t index,
                                          const void *host, uint64_t size,
                                          spyre_device_addr_t dst);
/** Copies an output's device buffer back into a row-major host buffer. */
spyre_status_t spyre_copy_output_from_device(const spyre_model_t *model,
                                             spyre_device_t *device,
                                             size_t index,
                                             spyre_device_addr_t src,
                                             void *host, uint64_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SPYRE_SPYRE_RUNTIME_H */
