/* Autotuning of generated kernels: which variant (strategy, block shape, points per thread)
 * a launcher uses for a given stencil, size, precision and device.
 *
 * A launcher on a CUDA context looks its key up: first in the context's memory, then in the
 * cache file. With tuning on and no entry, it times every variant on the real fields (the
 * outputs are overwritten several times; the inputs are not touched), keeps the fastest in
 * the cache file, and uses it. With no entry and tuning off it uses the stencil's default
 * variant. The cache file is plain text, one line per key: `key<TAB>variant<TAB>ms`.
 */
#ifndef STENC_TUNE_H
#define STENC_TUNE_H

#include <stddef.h>

#include "stenc/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum stenc_tune_mode {
    STENC_TUNE_OFF = 0, /* use the cache when it has the key, else the default variant */
    STENC_TUNE_ON,      /* time the variants for keys the cache lacks */
    STENC_TUNE_FORCE    /* time the variants again for every key seen by this context */
} stenc_tune_mode;

/* Set the tuning mode of a context. A new context takes it from the environment:
 * STENC_TUNE=0|1|force (default 0). */
stenc_status stenc_tune(stenc_ctx *ctx, stenc_tune_mode mode);
stenc_tune_mode stenc_tune_get_mode(const stenc_ctx *ctx);

/* The cache file: env STENC_TUNE_CACHE, else $XDG_CACHE_HOME/stenc/tune-cache.txt, else
 * $HOME/.cache/stenc/tune-cache.txt. */
stenc_status stenc_tune_cache_path(char *path, size_t capacity);

/* Build the key of a launch from the stencil's name and digest (stenc_launch_variants.digest,
 * a hash of its generated code; NULL or "" for none), its size and precision, the device and
 * the stenc version: "heat3d#1f0c9a2b3d4e5f60|512x512x512|float|NVIDIA H100 80GB HBM3 (sm_90,
 * ...)|stenc 0.1.0". Entries written under other keys (another stencil of the same name, an
 * edited stencil, another stenc version) are never matched: stale lines are ignored. */
stenc_status stenc_tune_key(const stenc_ctx *ctx, const char *stencil, const char *digest,
                            const size_t n[3], stenc_type type, char *key, size_t capacity);

/* Look a key up (context memory first, then the file). *found is 0 when absent. */
stenc_status stenc_tune_lookup(stenc_ctx *ctx, const char *key, char *variant, size_t capacity,
                               int *found);

/* Remember a result in the context and in the cache file (replacing an older line). */
stenc_status stenc_tune_store(stenc_ctx *ctx, const char *key, const char *variant, double ms);

#ifdef __cplusplus
}
#endif

#endif /* STENC_TUNE_H */
