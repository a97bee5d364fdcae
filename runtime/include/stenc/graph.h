/* Recorded launch sequences (CUDA graphs). A sequence of small kernels, such as the coarse
 * levels of a multigrid cycle, costs launch latency rather than memory traffic: recording it
 * once and replaying it with one launch removes most of that cost. CUDA contexts only.
 *
 *     stenc_graph_begin(ctx);
 *     ... stencil launches, stenc_mg_* transfers, stenc_field_swap, on ctx ...
 *     stenc_graph_end(ctx, &graph);
 *     for (...) stenc_graph_launch(graph);    (each replays every recorded launch, in order)
 *     stenc_graph_free(graph);
 *
 * While recording, launches are recorded and not run. A replay uses the buffers, scalars and
 * sizes of the recording, so host-side changes made between replays are not seen; in
 * particular stenc_field_swap() swaps the host's pointers at recording time only (record an
 * even number of swaps of a pair to leave it as it was). Calls that wait for the device cannot
 * be recorded: uploads, downloads, stenc_ctx_synchronize, stenc_free, timers, reductions that
 * return values, and a stencil's first-time tuning. Such a call fails, and stenc_graph_end
 * then fails too, leaving no graph. While recording, a stencil that has not been tuned on
 * this context runs (when replayed) its default variant. */
#ifndef STENC_GRAPH_H
#define STENC_GRAPH_H

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stenc_graph stenc_graph;

/* Start recording the launches on ctx. STENC_ERR_UNSUPPORTED on a CPU context;
 * STENC_ERR_INVALID_ARGUMENT when ctx is already recording. */
stenc_status stenc_graph_begin(stenc_ctx *ctx);

/* Stop recording and build the graph in *graph. On failure (a call that could not be
 * recorded, or none recorded at all) *graph is NULL and ctx runs launches again. */
stenc_status stenc_graph_end(stenc_ctx *ctx, stenc_graph **graph);

/* Replay the recorded launches on the recording context's stream, asynchronously like a
 * launch: stenc_ctx_synchronize() waits for them. */
stenc_status stenc_graph_launch(stenc_graph *graph);

/* Free a graph (NULL is fine; a graph freed already is STENC_ERR_INVALID_ARGUMENT). Free it
 * before the buffers it uses. */
stenc_status stenc_graph_free(stenc_graph *graph);

/* 1 while ctx is recording, else 0. */
int stenc_graph_recording(const stenc_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* STENC_GRAPH_H */
