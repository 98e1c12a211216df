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
|* exception crosses this interface. Every function may be called from any   *|
|* thread: calls that touch a device take its lock (docs/runtime.md,        *|
|* "Threads").                                                                *|
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
  SPYRE_ERROR_INTERNAL = 8,
  /** Not an error: spyre_stream_query / spyre_event_query found work still
   *  pending (spyre_last_error() is unchanged). */
  SPYRE_NOT_READY = 9
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
typedef struct spyre_tensor spyre_tensor_t;
typedef struct spyre_stream spyre_stream_t;
typedef struct spyre_event spyre_event_t;

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

/*===--- Device tensors ---------------------------------------------------===*/

/* A tensor that stays in device memory, in the stick layout of a model's
 * input, output or weight: passed to launches without copies, or shared by
 * two executables on one device (a KV cache a prefill and a decode model
 * both update). A handle keeps its device and its memory alive; the memory
 * is freed when the last holder (handles, executables bound to it) lets go. */

/** A new tensor in the layout of the model's input (or output) `index`
 *  (contents undefined until written). */
spyre_status_t spyre_tensor_create_input(spyre_device_t *device,
                                         const spyre_model_t *model,
                                         size_t index, spyre_tensor_t **out);
spyre_status_t spyre_tensor_create_output(spyre_device_t *device,
                                          const spyre_model_t *model,
                                          size_t index, spyre_tensor_t **out);
/** A handle on the executable's weight or buffer `name` (its exported name
 *  or symbol): the same device memory, not a copy. */
spyre_status_t spyre_executable_weight(spyre_executable_t *executable,
                                       const char *name, spyre_tensor_t **out);
/** From now on the executable reads and updates its weight or buffer `name`
 *  in `tensor` (same device, type and layout), as it is: binding one tensor
 *  to two executables makes them share the buffer. */
spyre_status_t spyre_executable_bind_weight(spyre_executable_t *executable,
                                            const char *name,
                                            spyre_tensor_t *tensor);
void spyre_tensor_destroy(spyre_tensor_t *tensor);

/** Type, shape and sizes (name: the tensor it was made for; the pointers
 *  live as long as the handle). */
spyre_status_t spyre_tensor_info(const spyre_tensor_t *tensor,
                                 spyre_tensor_info_t *out);
spyre_device_addr_t spyre_tensor_address(const spyre_tensor_t *tensor);
/** Row-major host data (host_bytes) in and out of the device layout. */
spyre_status_t spyre_tensor_upload(spyre_tensor_t *tensor, const void *host,
                                   uint64_t size);
spyre_status_t spyre_tensor_download(const spyre_tensor_t *tensor, void *host,
                                     uint64_t size);

/** Phase 3 on device tensors: each must fit its input or output (type and
 *  layout) and live on the executable's device, else nothing runs. */
spyre_status_t spyre_launch_tensors(spyre_executable_t *executable,
                                    spyre_workspace_t *workspace,
                                    spyre_tensor_t *const *inputs,
                                    size_t num_inputs,
                                    spyre_tensor_t *const *outputs,
                                    size_t num_outputs);

/*===--- Streams and events ---------------------------------------------===*/

/* Work enqueued on a stream runs in order, asynchronously; an event recorded
 * on one stream can be waited on by another. Every device runs the work of
 * all its streams in the order it was enqueued. In simulated time, uploads
 * and downloads cross PCIe (the machine description's pcie_bytes_per_s and
 * pcie_latency_ns, each direction on its own) and overlap launches of other
 * streams; the trace shows each stream and each PCIe direction as a track.
 * Host buffers given to uploads and downloads must stay valid until the
 * stream has passed them; handles may be destroyed at any time (enqueued
 * work keeps what it uses alive). A failed command is the stream's error:
 * its later work is skipped and synchronize returns it until the stream is
 * destroyed. */

spyre_status_t spyre_stream_create(spyre_device_t *device,
                                   spyre_stream_t **out);
/** Waits for the stream's work, then destroys it; returns its error. */
spyre_status_t spyre_stream_destroy(spyre_stream_t *stream);
/** Enqueue: row-major host data into a device tensor (host_bytes), back
 *  out, and a launch on device tensors (phase 3, as spyre_launch_tensors). */
spyre_status_t spyre_stream_upload(spyre_stream_t *stream,
                                   spyre_tensor_t *tensor, const void *host,
                                   uint64_t size);
spyre_status_t spyre_stream_download(spyre_stream_t *stream,
                                     const spyre_tensor_t *tensor, void *host,
                                     uint64_t size);
spyre_status_t
spyre_stream_launch(spyre_stream_t *stream, spyre_executable_t *executable,
                    spyre_workspace_t *workspace, spyre_tensor_t *const *inputs,
                    size_t num_inputs, spyre_tensor_t *const *outputs,
                    size_t num_outputs);
/** The stream's later work starts after the event's last record (as
 *  enqueued now; an event never recorded is no wait). */
spyre_status_t spyre_stream_wait_event(spyre_stream_t *stream,
                                       spyre_event_t *event);
/** Blocks until the stream's work is done; returns its error. */
spyre_status_t spyre_stream_synchronize(spyre_stream_t *stream);
/** SPYRE_OK when done (or its error), SPYRE_NOT_READY while work is
 *  pending. */
spyre_status_t spyre_stream_query(spyre_stream_t *stream);

spyre_status_t spyre_event_create(spyre_device_t *device, spyre_event_t **out);
void spyre_event_destroy(spyre_event_t *event);
/** Enqueues a record: the event happens when the stream gets there. */
spyre_status_t spyre_event_record(spyre_event_t *event, spyre_stream_t *stream);
spyre_status_t spyre_event_synchronize(spyre_event_t *event);
spyre_status_t spyre_event_query(spyre_event_t *event);
/** Simulated ns between two events' last records (both happened). */
spyre_status_t spyre_event_elapsed_ns(const spyre_event_t *start,
                                      const spyre_event_t *end, double *ns);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SPYRE_SPYRE_RUNTIME_H */
