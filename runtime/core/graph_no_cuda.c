/* Recorded launch sequences (stenc/graph.h) in a build without CUDA: every context is a CPU
 * context, which has nothing to record, so no graph ever exists. */
#include "internal.h"
#include "stenc/graph.h"

stenc_status stenc_graph_begin(stenc_ctx *ctx) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_graph_begin"));
    return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                       "stenc_graph_begin: recording needs a CUDA context, and this libstenc "
                       "was built without CUDA");
}

stenc_status stenc_graph_end(stenc_ctx *ctx, stenc_graph **graph) {
    STENC_REQUIRE(graph != NULL, "stenc_graph_end: graph pointer is NULL");
    *graph = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_graph_end"));
    return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "stenc_graph_end: the context is not recording");
}

stenc_status stenc_graph_launch(stenc_graph *graph) {
    STENC_REQUIRE(graph != NULL, "stenc_graph_launch: graph is NULL");
    return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                       "stenc_graph_launch: graph (%p) is not a live graph (none exist without "
                       "CUDA)",
                       (void *)graph);
}

stenc_status stenc_graph_free(stenc_graph *graph) {
    if (!graph) return STENC_OK;
    return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                       "stenc_graph_free: graph (%p) is not a live graph (none exist without "
                       "CUDA)",
                       (void *)graph);
}

int stenc_graph_recording(const stenc_ctx *ctx) {
    (void)ctx;
    return 0;
}
