/* The CUDA half of the sort in a build without CUDA: a CUDA context cannot exist there, so
 * this is only reached by mistake; it fails cleanly. */
#include "sort_internal.h"

stenc_status stsort_cuda_sort(stenc_ctx *ctx, int key_bytes, stsort_kind kind, void *keys,
                              int value_bytes, void *values, size_t segment_len,
                              size_t num_segments, int descending, const stsort_config *cfg,
                              const stsort_split *split) {
    (void)ctx, (void)key_bytes, (void)kind, (void)keys, (void)value_bytes, (void)values;
    (void)segment_len, (void)num_segments, (void)descending, (void)cfg, (void)split;
    return STENC_ERROR(STENC_ERR_NO_DEVICE, "stenc_sort: this libstenc was built without CUDA");
}

int stsort_set_overlap_launches(int on) {
    (void)on;
    return 0;
}

int stsort_set_tile_merge(int on) {
    (void)on;
    return 0;
}

int stsort_set_replay(int on) {
    (void)on;
    return 0;
}

unsigned long long stsort_replays(void) {
    return 0;
}

int stsort_set_fixed_passes(int on) {
    (void)on;
    return 0;
}

int stsort_max_active_clusters(int key_bytes, int value_bytes, int tile_log2, int narrow,
                               int cluster_log2) {
    (void)key_bytes, (void)value_bytes, (void)tile_log2, (void)narrow, (void)cluster_log2;
    return -1;
}
