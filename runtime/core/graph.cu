// Recorded launch sequences (stenc/graph.h): stream capture of the context's stream.
#include <cstdlib>

#include "cuda_check.h"
#include "stenc/graph.h"

struct stenc_graph {
    stenc_ctx *ctx;
    cudaGraphExec_t exec;
};

static const stenc_handle_kind graph_kind = {"graph"};

extern "C" int stenc_graph_recording(const stenc_ctx *ctx) {
    if (!ctx || stenc_ctx_check(ctx, "stenc_graph_recording") != STENC_OK) return 0;
    if (ctx->device != STENC_DEVICE_CUDA || !ctx->stream) return 0;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stenc_stream(ctx), &status) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return status != cudaStreamCaptureStatusNone;
}

extern "C" stenc_status stenc_graph_begin(stenc_ctx *ctx) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_graph_begin"));
    if (ctx->device != STENC_DEVICE_CUDA)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_graph_begin: recording needs a CUDA context (this one is %s)",
                           ctx->name);
    STENC_REQUIRE(!stenc_graph_recording(ctx),
                  "stenc_graph_begin: the context is recording already");
    // Thread-local mode: an unsafe call from this thread fails instead of corrupting the graph.
    STENC_CUDA_TRY(cudaStreamBeginCapture(stenc_stream(ctx), cudaStreamCaptureModeThreadLocal));
    return STENC_OK;
}

extern "C" stenc_status stenc_graph_end(stenc_ctx *ctx, stenc_graph **graph) {
    STENC_REQUIRE(graph != NULL, "stenc_graph_end: graph pointer is NULL");
    *graph = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_graph_end"));
    STENC_REQUIRE(stenc_graph_recording(ctx), "stenc_graph_end: the context is not recording");
    cudaGraph_t recorded = NULL;
    cudaError_t err = cudaStreamEndCapture(stenc_stream(ctx), &recorded);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        if (recorded) cudaGraphDestroy(recorded);
        return STENC_ERROR(STENC_ERR_CUDA,
                           "stenc_graph_end: the recording failed (%s): a call during it waited "
                           "for the device (upload, download, synchronize, free, timer, "
                           "reduction or first-time tuning)",
                           cudaGetErrorName(err));
    }
    size_t nodes = 0;
    cudaGraphGetNodes(recorded, NULL, &nodes);
    if (nodes == 0) {
        cudaGraphDestroy(recorded);
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "stenc_graph_end: nothing was recorded");
    }
    stenc_graph *g = (stenc_graph *)calloc(1, sizeof *g);
    if (!g) {
        cudaGraphDestroy(recorded);
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_graph_end: out of host memory");
    }
    err = cudaGraphInstantiate(&g->exec, recorded, 0);
    cudaGraphDestroy(recorded);
    if (err != cudaSuccess) {
        free(g);
        STENC_CUDA_TRY(err);
    }
    g->ctx = ctx;
    stenc_status st = stenc_handle_add(g, &graph_kind, "stenc_graph_end");
    if (st != STENC_OK) {
        cudaGraphExecDestroy(g->exec);
        free(g);
        return st;
    }
    *graph = g;
    return STENC_OK;
}

extern "C" stenc_status stenc_graph_launch(stenc_graph *graph) {
    STENC_TRY(stenc_handle_check(graph, &graph_kind, "stenc_graph_launch", "graph"));
    STENC_TRY(stenc_ctx_check(graph->ctx, "stenc_graph_launch"));
    STENC_CUDA_TRY(cudaGraphLaunch(graph->exec, stenc_stream(graph->ctx)));
    return STENC_OK;
}

extern "C" stenc_status stenc_graph_free(stenc_graph *graph) {
    if (!graph) return STENC_OK;
    STENC_TRY(stenc_handle_remove(graph, &graph_kind, "stenc_graph_free", "graph"));
    // A replay may still be running: the executable graph must outlive it. (A destroyed
    // context synchronized its stream before destroying it: nothing to wait for then.)
    if (stenc_ctx_live(graph->ctx)) cudaStreamSynchronize(stenc_stream(graph->ctx));
    cudaGraphExecDestroy(graph->exec);
    free(graph);
    return STENC_OK;
}
