// The CUDA backend of the hash tables. SLOTS layout: one thread per input item follows its
// eviction chain with atomic exchanges on whole slots (64-bit for 32-bit keys, 128-bit for
// 64-bit keys, sm_90), as in the chapter's Listing 4.1; one thread per query probes the d slots
// in order and stops at the first hit (Listing 4.2). BUCKETS layout: a thread reads a whole
// 32-byte bucket (two 16-byte loads of one sector), claims a free slot with a CAS, and evicts
// only when all d buckets are full. Rank computations (ids, offsets) use CUB's device scan.
#include <cub/device/device_scan.cuh>

#include "cuda_check.h"
#include "hash_internal.h"

namespace {

// Tuning: threads per block of every kernel. The chapter used 64 so that one long chain keeps
// few threads waiting; on sm_90 a block of 128 measured no worse, see docs/hash.md.
struct hash_policy {
    static constexpr int insert_block = 128;
    static constexpr int query_block = 256;
    static constexpr int slot_block = 256;
};

struct __align__(16) wide_t {
    unsigned long long key;
    unsigned value, pad;
};
static_assert(sizeof(wide_t) == sizeof(hash_wide_slot), "wide slot layout");

// The two slot layouts behind one interface.
template <bool Wide> struct layout;

template <> struct layout<false> {
    using slot = unsigned long long;
    using key_t = uint32_t;
    static constexpr uint64_t empty = STENC_HASH_EMPTY_KEY32;
    __device__ static slot make(uint64_t k, uint32_t v) {
        return hash_narrow_entry((uint32_t)k, v);
    }
    __device__ static uint64_t key(slot s) { return hash_narrow_key(s); }
    __device__ static uint32_t value(slot s) { return hash_narrow_value(s); }
    __device__ static slot exchange(slot *p, slot s) { return atomicExch(p, s); }
    __device__ static slot cas(slot *p, slot expect, slot s) { return atomicCAS(p, expect, s); }
    __device__ static slot from_pair(ulonglong2 v, int half) { return half ? v.y : v.x; }
    // Little-endian: the value is the low word of the entry.
    __device__ static uint32_t *value_ptr(slot *p) { return reinterpret_cast<uint32_t *>(p); }
    __device__ static slot set_value(slot s, uint32_t v) { return make(key(s), v); }
};

template <> struct layout<true> {
    using slot = wide_t;
    using key_t = uint64_t;
    static constexpr uint64_t empty = STENC_HASH_EMPTY_KEY64;
    __device__ static slot make(uint64_t k, uint32_t v) { return slot{k, v, 0xffffffffu}; }
    __device__ static uint64_t key(slot s) { return s.key; }
    __device__ static uint32_t value(slot s) { return s.value; }
    __device__ static slot exchange(slot *p, slot s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        return atomicExch(p, s);
#else
        // Not reached: the host refuses 64-bit-key tables below sm_90.
        slot old = *p;
        *p = s;
        return old;
#endif
    }
    __device__ static slot cas(slot *p, slot expect, slot s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        return atomicCAS(p, expect, s);
#else
        // Not reached: the host refuses 64-bit-key tables below sm_90.
        slot old = *p;
        if (old.key == expect.key && old.value == expect.value && old.pad == expect.pad) *p = s;
        return old;
#endif
    }
    __device__ static slot from_pair(ulonglong2 v, int) {
        return slot{v.x, (unsigned)v.y, (unsigned)(v.y >> 32)};
    }
    __device__ static uint32_t *value_ptr(slot *p) {
        return &p->value;
    }
    __device__ static slot set_value(slot s, uint32_t v) {
        return make(s.key, v);
    }
};

// Slots per bucket of the BUCKETS layout: one 32-byte sector.
template <bool Wide>
constexpr int bucket_slots = (int)(HASH_BUCKET_BYTES / sizeof(typename layout<Wide>::slot));

// A whole bucket in two 16-byte loads of one sector. Coherent: through L2 only (__ldcg), for
// the insertion, which must see other threads' atomics when it retries; else the read-only
// path (queries run on a table no kernel is changing).
template <bool Wide, bool Coherent>
__device__ __forceinline__ void
load_bucket(const typename layout<Wide>::slot *p,
            typename layout<Wide>::slot (&out)[bucket_slots<Wide>]) {
    using L = layout<Wide>;
    const ulonglong2 *q = reinterpret_cast<const ulonglong2 *>(p);
    ulonglong2 v[2];
#pragma unroll
    for (int h = 0; h < 2; h++)
        v[h] = Coherent ? __ldcg(q + h) : __ldg(q + h);
    constexpr int per_load = bucket_slots<Wide> / 2;
#pragma unroll
    for (int k = 0; k < bucket_slots<Wide>; k++)
        out[k] = L::from_pair(v[k / per_load], k % per_load);
}

// The slot of bucket b holding `key` (the first), or UINT32_MAX. Any bucket size (1: SLOTS).
template <bool Wide>
__device__ __forceinline__ uint32_t bucket_find(const hash_geom &g,
                                                const typename layout<Wide>::slot *slots,
                                                uint32_t b, uint64_t key) {
    const uint32_t first = b * (uint32_t)g.bucket;
    for (uint32_t s = first; s < first + (uint32_t)g.bucket; s++)
        if (layout<Wide>::key(slots[s]) == key) return s;
    return UINT32_MAX;
}

// The slot holding `key`, or UINT32_MAX (either layout; reads every candidate bucket).
template <bool Wide>
__device__ __forceinline__ uint32_t locate(const hash_geom &g,
                                           const typename layout<Wide>::slot *__restrict__ slots,
                                           uint64_t key) {
    using L = layout<Wide>;
    if (g.capacity == 0 || key == L::empty) return UINT32_MAX;
    for (int i = 0; i < g.d; i++) {
        uint32_t s = bucket_find<Wide>(g, slots, hash_slot(&g, i, key), key);
        if (s != UINT32_MAX) return s;
    }
    return UINT32_MAX;
}

// Sum `v` over the warp and add it to *total once per warp.
__device__ __forceinline__ void warp_add(unsigned long long *total, unsigned long long v) {
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(total, v);
}

template <bool Wide>
__global__ void insert_kernel(const __grid_constant__ hash_geom g,
                              typename layout<Wide>::slot *slots,
                              const typename layout<Wide>::key_t *__restrict__ keys,
                              const uint32_t *__restrict__ values, const uint8_t *__restrict__ skip,
                              size_t n, unsigned long long *counters) {
    using L = layout<Wide>;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n || (skip && skip[i])) return;
    uint64_t key = keys[i];
    if (key == L::empty) {
        atomicAdd(&counters[1], 1ull);
        return;
    }
    typename L::slot carry = L::make(key, values ? values[i] : 0u);
    uint32_t s = hash_slot(&g, 0, key);
    for (uint32_t its = 0; its < g.max_chain; its++) {
        typename L::slot evicted = L::exchange(&slots[s], carry);
        uint64_t ek = L::key(evicted);
        // Done at an empty slot, or on meeting a copy of the same key (one copy is enough).
        if (ek == L::empty || ek == L::key(carry)) return;
        carry = evicted;
        s = hash_slot(&g, hash_next_function(&g, ek, s), ek);
    }
    atomicAdd(&counters[0], 1ull); // the chain was too long: the caller restarts
}

// BUCKETS insertion, one thread per item: the first of the key's buckets (in function order
// from its start function) with a free slot gets it by CAS; a lost CAS re-reads the bucket
// (another thread took a slot, so this retries at most bucket_slots times per bucket). When
// all d buckets are full, the entry is exchanged into a slot of the start function's bucket and
// the evicted one goes on from its next function. Meeting a copy of the key ends the insertion.
template <bool Wide>
__global__ void
bucket_insert_kernel(const __grid_constant__ hash_geom g, typename layout<Wide>::slot *slots,
                     const typename layout<Wide>::key_t *__restrict__ keys,
                     const uint32_t *__restrict__ values, const uint8_t *__restrict__ skip,
                     size_t n, unsigned long long *counters) {
    using L = layout<Wide>;
    using slot = typename L::slot;
    constexpr int B = bucket_slots<Wide>;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n || (skip && skip[i])) return;
    uint64_t key = keys[i];
    if (key == L::empty) {
        atomicAdd(&counters[1], 1ull);
        return;
    }
    const slot empty_slot = L::make(L::empty, 0xffffffffu);
    slot carry = L::make(key, values ? values[i] : 0u);
    int start = 0;
    for (uint32_t evictions = 0;; evictions++) {
        const uint64_t ck = L::key(carry);
        for (int t = 0; t < g.d; t++) {
            const int f = start + t < g.d ? start + t : start + t - g.d;
            slot *bp = slots + (size_t)hash_slot(&g, f, ck) * B;
            for (;;) {
                slot e[B];
                load_bucket<Wide, true>(bp, e);
                int free_at = -1;
                bool own = false;
#pragma unroll
                for (int k = B - 1; k >= 0; k--) {
                    own |= L::key(e[k]) == ck;
                    if (L::key(e[k]) == L::empty) free_at = k;
                }
                if (own) return;
                if (free_at < 0) break; // full: the next bucket
                const uint64_t was = L::key(L::cas(bp + free_at, empty_slot, carry));
                if (was == L::empty || was == ck) return;
            }
        }
        if (evictions == g.max_chain) break;
        const uint32_t b = hash_slot(&g, start, ck);
        slot evicted = L::exchange(slots + (size_t)b * B + hash_victim(ck, evictions, B), carry);
        const uint64_t ek = L::key(evicted);
        if (ek == L::empty || ek == ck) return;
        carry = evicted;
        start = hash_next_function(&g, ek, b);
    }
    atomicAdd(&counters[0], 1ull); // the chain was too long: the caller restarts
}

// Keep each key's copy at its lowest-numbered function (and lowest slot in that bucket). That
// copy is never erased, so the result does not depend on the order in which threads read
// slots that others erase. counters: [0] kept, [1] erased.
template <bool Wide>
__global__ void dedupe_kernel(const __grid_constant__ hash_geom g,
                              typename layout<Wide>::slot *slots, unsigned long long *counters) {
    using L = layout<Wide>;
    unsigned long long kept = 0, erased = 0;
    for (size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x; s < g.capacity;
         s += (size_t)gridDim.x * blockDim.x) {
        uint64_t key = L::key(slots[s]);
        if (key == L::empty) continue;
        const uint32_t b = (uint32_t)s / (uint32_t)g.bucket;
        bool duplicate = bucket_find<Wide>(g, slots, b, key) != (uint32_t)s;
        int first = hash_function_of(&g, key, b);
        for (int j = 0; j < first && !duplicate; j++) {
            uint32_t other = hash_slot(&g, j, key);
            duplicate = other != b && bucket_find<Wide>(g, slots, other, key) != UINT32_MAX;
        }
        if (duplicate) {
            slots[s] = L::make(L::empty, 0xffffffffu);
            erased++;
        } else {
            kept++;
        }
    }
    warp_add(&counters[0], kept);
    warp_add(&counters[1], erased);
}

template <bool Wide>
__global__ void apply_min_kernel(const __grid_constant__ hash_geom g,
                                 typename layout<Wide>::slot *slots,
                                 const typename layout<Wide>::key_t *__restrict__ keys,
                                 const uint32_t *__restrict__ values, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t s = locate<Wide>(g, slots, keys[i]);
    if (s != UINT32_MAX) atomicMin(layout<Wide>::value_ptr(&slots[s]), values[i]);
}

template <bool Wide>
__global__ void find_kernel(const __grid_constant__ hash_geom g,
                            const typename layout<Wide>::slot *__restrict__ slots,
                            const typename layout<Wide>::key_t *__restrict__ queries, size_t n,
                            uint32_t *__restrict__ results, uint8_t *__restrict__ found,
                            unsigned long long *found_count) {
    using L = layout<Wide>;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    bool hit = false;
    if (i < n) {
        uint64_t key = queries[i];
        uint32_t value = STENC_HASH_NOT_FOUND;
        if (g.capacity != 0 && key != L::empty) {
            for (int f = 0; f < g.d; f++) {
                typename L::slot e = slots[hash_slot(&g, f, key)];
                if (L::key(e) == key) {
                    hit = true;
                    value = L::value(e);
                    break;
                }
            }
        }
        if (results) results[i] = value;
        if (found) found[i] = hit;
    }
    if (found_count) warp_add(found_count, hit);
}

// BUCKETS queries: one bucket read per probe. Without holes a bucket with a free slot ends a
// miss (a key sits behind a bucket only when that bucket was full, and buckets never empty).
template <bool Wide>
__global__ void bucket_find_kernel(const __grid_constant__ hash_geom g,
                                   const typename layout<Wide>::slot *__restrict__ slots,
                                   const typename layout<Wide>::key_t *__restrict__ queries,
                                   size_t n, uint32_t *__restrict__ results,
                                   uint8_t *__restrict__ found, unsigned long long *found_count) {
    using L = layout<Wide>;
    constexpr int B = bucket_slots<Wide>;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    bool hit = false;
    if (i < n) {
        uint64_t key = queries[i];
        uint32_t value = STENC_HASH_NOT_FOUND;
        if (g.capacity != 0 && key != L::empty) {
            for (int f = 0; f < g.d && !hit; f++) {
                typename L::slot e[B];
                load_bucket<Wide, false>(slots + (size_t)hash_slot(&g, f, key) * B, e);
                bool free_slot = false;
#pragma unroll
                for (int k = B - 1; k >= 0; k--) {
                    if (L::key(e[k]) == key) {
                        hit = true;
                        value = L::value(e[k]);
                    }
                    free_slot |= L::key(e[k]) == L::empty;
                }
                if (free_slot && !g.holes) break;
            }
        }
        if (results) results[i] = value;
        if (found) found[i] = hit;
    }
    if (found_count) warp_add(found_count, hit);
}

template <bool Wide>
__global__ void gather_kernel(const __grid_constant__ hash_geom g,
                              const typename layout<Wide>::slot *__restrict__ slots,
                              typename layout<Wide>::key_t *keys_out, uint32_t *values_out,
                              unsigned long long *cursor, size_t capacity_out) {
    using L = layout<Wide>;
    for (size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x; s < g.capacity;
         s += (size_t)gridDim.x * blockDim.x) {
        typename L::slot e = slots[s];
        if (L::key(e) == L::empty) continue;
        unsigned long long k = atomicAdd(cursor, 1ull);
        if (k < capacity_out) {
            keys_out[k] = (typename L::key_t)L::key(e);
            values_out[k] = L::value(e);
        }
    }
}

template <bool Wide>
__global__ void occupied_flags_kernel(const __grid_constant__ hash_geom g,
                                      const typename layout<Wide>::slot *slots, uint32_t *flags) {
    size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (s < g.capacity) flags[s] = layout<Wide>::key(slots[s]) != layout<Wide>::empty;
}

template <bool Wide>
__global__ void write_ids_kernel(const __grid_constant__ hash_geom g,
                                 typename layout<Wide>::slot *slots,
                                 const uint32_t *__restrict__ rank,
                                 typename layout<Wide>::key_t *keys_out, size_t count) {
    using L = layout<Wide>;
    size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (s >= g.capacity) return;
    typename L::slot e = slots[s];
    if (L::key(e) == L::empty || rank[s] >= count) return;
    keys_out[rank[s]] = (typename L::key_t)L::key(e);
    slots[s] = L::set_value(e, rank[s]);
}

template <bool Wide>
__global__ void multi_count_kernel(const __grid_constant__ hash_geom g,
                                   const typename layout<Wide>::slot *slots,
                                   const typename layout<Wide>::key_t *__restrict__ keys, size_t n,
                                   uint32_t *counts, unsigned long long *missing) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t s = locate<Wide>(g, slots, keys[i]);
    if (s == UINT32_MAX)
        atomicAdd(missing, 1ull);
    else
        atomicAdd(&counts[layout<Wide>::value(slots[s])], 1u);
}

__global__ void multi_info_kernel(const uint32_t *counts, const uint32_t *offsets, size_t count,
                                  uint32_t *info) {
    size_t id = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (id >= count) return;
    info[2 * id] = offsets[id];
    info[2 * id + 1] = counts[id];
}

template <bool Wide>
__global__ void multi_scatter_kernel(const __grid_constant__ hash_geom g,
                                     const typename layout<Wide>::slot *slots,
                                     const typename layout<Wide>::key_t *__restrict__ keys,
                                     const uint32_t *__restrict__ values, size_t n,
                                     uint32_t *cursor, uint32_t *values_out) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t s = locate<Wide>(g, slots, keys[i]);
    if (s == UINT32_MAX) return; // counted by multi_count_kernel
    values_out[atomicAdd(&cursor[layout<Wide>::value(slots[s])], 1u)] = values[i];
}

template <bool Wide>
__global__ void find_multi_kernel(const __grid_constant__ hash_geom g,
                                  const typename layout<Wide>::slot *__restrict__ slots,
                                  const uint32_t *__restrict__ info,
                                  const typename layout<Wide>::key_t *__restrict__ queries,
                                  size_t n, uint32_t *counts, uint32_t *offsets) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t s = locate<Wide>(g, slots, queries[i]);
    if (s == UINT32_MAX) {
        counts[i] = 0;
        offsets[i] = STENC_HASH_NOT_FOUND;
    } else {
        uint32_t id = layout<Wide>::value(slots[s]);
        offsets[i] = info[2 * (size_t)id];
        counts[i] = info[2 * (size_t)id + 1];
    }
}

// ---- host side -----------------------------------------------------------------------------

unsigned grid_for(size_t n, int block) {
    return (unsigned)((n + block - 1) / block);
}

// Enough blocks to fill the device for grid-stride loops over the slots.
unsigned grid_for_slots(const stenc_ctx *ctx, size_t n) {
    size_t g = (n + hash_policy::slot_block - 1) / hash_policy::slot_block;
    size_t cap = (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 1) * 32;
    return (unsigned)(g < cap ? (g ? g : 1) : cap);
}

// Stream-ordered scratch memory, freed when it goes out of scope.
struct scratch {
    void *p = nullptr;
    cudaStream_t stream;
    explicit scratch(cudaStream_t s) : stream(s) {}
    ~scratch() {
        if (p) cudaFreeAsync(p, stream);
    }
    stenc_status alloc(size_t bytes) {
        STENC_CUDA_TRY(cudaMallocAsync(&p, bytes ? bytes : 1, stream));
        return STENC_OK;
    }
    template <class T> T *as() const { return static_cast<T *>(p); }
};

stenc_status read_counters(stenc_ctx *ctx, const unsigned long long *dev, unsigned long long *host,
                           int count) {
    STENC_CUDA_TRY(cudaMemcpyAsync(host, dev, count * sizeof *host, cudaMemcpyDeviceToHost,
                                   stenc_stream(ctx)));
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    return STENC_OK;
}

stenc_status zeroed_counters(stenc_ctx *ctx, scratch &c, int count) {
    STENC_TRY(c.alloc(count * sizeof(unsigned long long)));
    STENC_CUDA_TRY(cudaMemsetAsync(c.p, 0, count * sizeof(unsigned long long), stenc_stream(ctx)));
    return STENC_OK;
}

stenc_status check_wide(const stenc_ctx *ctx, const hash_geom *g) {
    if (g->wide && ctx->cc_major < 9)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "hash: 64-bit keys need 128-bit atomics (sm_90), device is sm_%d%d",
                           ctx->cc_major, ctx->cc_minor);
    return STENC_OK;
}

template <bool Wide> using slot_t = typename layout<Wide>::slot;
template <bool Wide> using key_of = typename layout<Wide>::key_t;

// The bucket kernels are compiled for one bucket size per slot layout.
template <bool Wide> stenc_status check_bucket(const hash_geom *g) {
    if (g->bucket != 1 && g->bucket != bucket_slots<Wide>)
        return STENC_ERROR(STENC_ERR_INTERNAL, "hash: %d slots per bucket, kernels expect 1 or %d",
                           g->bucket, bucket_slots<Wide>);
    return STENC_OK;
}

stenc_status cuda_clear(stenc_ctx *ctx, const hash_geom *g, void *slots) {
    STENC_CUDA_TRY(
        cudaMemsetAsync(slots, 0xff, (size_t)g->capacity * hash_slot_bytes(g), stenc_stream(ctx)));
    return STENC_OK;
}

template <bool Wide>
stenc_status insert_t(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                      const uint32_t *values, const uint8_t *skip, size_t n,
                      hash_insert_result *result) {
    result->failed = result->reserved = 0;
    if (n == 0) return STENC_OK;
    STENC_TRY(check_wide(ctx, g));
    STENC_TRY(check_bucket<Wide>(g));
    scratch c(stenc_stream(ctx));
    STENC_TRY(zeroed_counters(ctx, c, 2));
    const unsigned grid = grid_for(n, hash_policy::insert_block);
    if (g->bucket > 1) {
        bucket_insert_kernel<Wide><<<grid, hash_policy::insert_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<slot_t<Wide> *>(slots), static_cast<const key_of<Wide> *>(keys), values,
            skip, n, c.as<unsigned long long>());
        STENC_CUDA_CHECK_LAUNCH("bucket_insert_kernel");
    } else {
        insert_kernel<Wide><<<grid, hash_policy::insert_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<slot_t<Wide> *>(slots), static_cast<const key_of<Wide> *>(keys), values,
            skip, n, c.as<unsigned long long>());
        STENC_CUDA_CHECK_LAUNCH("insert_kernel");
    }
    unsigned long long h[2];
    STENC_TRY(read_counters(ctx, c.as<unsigned long long>(), h, 2));
    result->failed = h[0];
    result->reserved = h[1];
    return STENC_OK;
}

stenc_status cuda_insert(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                         const uint32_t *values, const uint8_t *skip, size_t n,
                         hash_insert_result *result) {
    return g->wide ? insert_t<true>(ctx, g, slots, keys, values, skip, n, result)
                   : insert_t<false>(ctx, g, slots, keys, values, skip, n, result);
}

template <bool Wide>
stenc_status dedupe_t(stenc_ctx *ctx, const hash_geom *g, void *slots, size_t *occupied,
                      size_t *erased) {
    scratch c(stenc_stream(ctx));
    STENC_TRY(zeroed_counters(ctx, c, 2));
    dedupe_kernel<Wide>
        <<<grid_for_slots(ctx, g->capacity), hash_policy::slot_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<slot_t<Wide> *>(slots), c.as<unsigned long long>());
    STENC_CUDA_CHECK_LAUNCH("dedupe_kernel");
    unsigned long long h[2];
    STENC_TRY(read_counters(ctx, c.as<unsigned long long>(), h, 2));
    *occupied = (size_t)h[0];
    *erased = (size_t)h[1];
    return STENC_OK;
}

stenc_status cuda_dedupe(stenc_ctx *ctx, const hash_geom *g, void *slots, size_t *occupied,
                         size_t *erased) {
    *occupied = *erased = 0;
    if (g->capacity == 0) return STENC_OK;
    return g->wide ? dedupe_t<true>(ctx, g, slots, occupied, erased)
                   : dedupe_t<false>(ctx, g, slots, occupied, erased);
}

stenc_status cuda_apply_min(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                            const uint32_t *values, size_t n) {
    if (n == 0) return STENC_OK;
    const unsigned grid = grid_for(n, hash_policy::query_block);
    if (g->wide)
        apply_min_kernel<true><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<slot_t<true> *>(slots), static_cast<const uint64_t *>(keys), values, n);
    else
        apply_min_kernel<false><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<slot_t<false> *>(slots), static_cast<const uint32_t *>(keys), values,
            n);
    STENC_CUDA_CHECK_LAUNCH("apply_min_kernel");
    return STENC_OK;
}

stenc_status cuda_find(stenc_ctx *ctx, const hash_geom *g, const void *slots, const void *queries,
                       size_t n, uint32_t *results, uint8_t *found, size_t *found_count) {
    if (n == 0) {
        if (found_count) *found_count = 0;
        return STENC_OK;
    }
    scratch c(stenc_stream(ctx));
    if (found_count) STENC_TRY(zeroed_counters(ctx, c, 1));
    const unsigned grid = grid_for(n, hash_policy::query_block);
    STENC_TRY(g->wide ? check_bucket<true>(g) : check_bucket<false>(g));
    if (g->bucket > 1 && g->wide)
        bucket_find_kernel<true><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<true> *>(slots), static_cast<const uint64_t *>(queries), n,
            results, found, c.as<unsigned long long>());
    else if (g->bucket > 1)
        bucket_find_kernel<false><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<false> *>(slots), static_cast<const uint32_t *>(queries),
            n, results, found, c.as<unsigned long long>());
    else if (g->wide)
        find_kernel<true><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<true> *>(slots), static_cast<const uint64_t *>(queries), n,
            results, found, c.as<unsigned long long>());
    else
        find_kernel<false><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<false> *>(slots), static_cast<const uint32_t *>(queries),
            n, results, found, c.as<unsigned long long>());
    STENC_CUDA_CHECK_LAUNCH("find_kernel");
    if (found_count) {
        unsigned long long h;
        STENC_TRY(read_counters(ctx, c.as<unsigned long long>(), &h, 1));
        *found_count = (size_t)h;
    }
    return STENC_OK;
}

stenc_status cuda_gather(stenc_ctx *ctx, const hash_geom *g, const void *slots, void *keys_out,
                         uint32_t *values_out, size_t expected) {
    if (g->capacity == 0 || expected == 0) return STENC_OK;
    scratch c(stenc_stream(ctx));
    STENC_TRY(zeroed_counters(ctx, c, 1));
    const unsigned grid = grid_for_slots(ctx, g->capacity);
    if (g->wide)
        gather_kernel<true><<<grid, hash_policy::slot_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<true> *>(slots), static_cast<uint64_t *>(keys_out),
            values_out, c.as<unsigned long long>(), expected);
    else
        gather_kernel<false><<<grid, hash_policy::slot_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<false> *>(slots), static_cast<uint32_t *>(keys_out),
            values_out, c.as<unsigned long long>(), expected);
    STENC_CUDA_CHECK_LAUNCH("gather_kernel");
    unsigned long long h;
    STENC_TRY(read_counters(ctx, c.as<unsigned long long>(), &h, 1));
    if (h != expected)
        return STENC_ERROR(STENC_ERR_INTERNAL, "hash gather: %llu entries, expected %zu", h,
                           expected);
    return STENC_OK;
}

// Exclusive prefix sum of n uint32 values (in place allowed).
stenc_status exclusive_sum(stenc_ctx *ctx, const uint32_t *in, uint32_t *out, size_t n) {
    size_t temp_bytes = 0;
    STENC_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, (int64_t)n, stenc_stream(ctx)));
    scratch temp(stenc_stream(ctx));
    STENC_TRY(temp.alloc(temp_bytes));
    STENC_CUDA_TRY(
        cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in, out, (int64_t)n, stenc_stream(ctx)));
    return STENC_OK;
}

template <bool Wide>
stenc_status assign_ids_t(stenc_ctx *ctx, const hash_geom *g, void *slots, void *keys_out,
                          size_t count) {
    scratch rank(stenc_stream(ctx));
    STENC_TRY(rank.alloc((size_t)g->capacity * sizeof(uint32_t)));
    const unsigned grid = grid_for(g->capacity, hash_policy::slot_block);
    occupied_flags_kernel<Wide><<<grid, hash_policy::slot_block, 0, stenc_stream(ctx)>>>(
        *g, static_cast<const slot_t<Wide> *>(slots), rank.as<uint32_t>());
    STENC_CUDA_CHECK_LAUNCH("occupied_flags_kernel");
    STENC_TRY(exclusive_sum(ctx, rank.as<uint32_t>(), rank.as<uint32_t>(), g->capacity));
    write_ids_kernel<Wide><<<grid, hash_policy::slot_block, 0, stenc_stream(ctx)>>>(
        *g, static_cast<slot_t<Wide> *>(slots), rank.as<uint32_t>(),
        static_cast<key_of<Wide> *>(keys_out), count);
    STENC_CUDA_CHECK_LAUNCH("write_ids_kernel");
    STENC_CUDA_TRY(cudaStreamSynchronize(stenc_stream(ctx)));
    return STENC_OK;
}

stenc_status cuda_assign_ids(stenc_ctx *ctx, const hash_geom *g, void *slots, void *keys_out,
                             size_t count) {
    if (g->capacity == 0 || count == 0) return STENC_OK;
    return g->wide ? assign_ids_t<true>(ctx, g, slots, keys_out, count)
                   : assign_ids_t<false>(ctx, g, slots, keys_out, count);
}

template <bool Wide>
stenc_status multi_fill_t(stenc_ctx *ctx, const hash_geom *g, const void *slots, const void *keys,
                          const uint32_t *values, size_t n, size_t count, uint32_t *info,
                          uint32_t *values_out) {
    cudaStream_t stream = stenc_stream(ctx);
    const auto *sl = static_cast<const slot_t<Wide> *>(slots);
    const auto *k = static_cast<const key_of<Wide> *>(keys);
    scratch counts(stream), cursor(stream), missing(stream);
    STENC_TRY(counts.alloc(count * sizeof(uint32_t)));
    STENC_TRY(cursor.alloc(count * sizeof(uint32_t)));
    STENC_TRY(zeroed_counters(ctx, missing, 1));
    STENC_CUDA_TRY(cudaMemsetAsync(counts.p, 0, count * sizeof(uint32_t), stream));
    const unsigned grid_n = grid_for(n, hash_policy::query_block);
    multi_count_kernel<Wide><<<grid_n, hash_policy::query_block, 0, stream>>>(
        *g, sl, k, n, counts.as<uint32_t>(), missing.as<unsigned long long>());
    STENC_CUDA_CHECK_LAUNCH("multi_count_kernel");
    STENC_TRY(exclusive_sum(ctx, counts.as<uint32_t>(), cursor.as<uint32_t>(), count));
    multi_info_kernel<<<grid_for(count, hash_policy::query_block), hash_policy::query_block, 0,
                        stream>>>(counts.as<uint32_t>(), cursor.as<uint32_t>(), count, info);
    STENC_CUDA_CHECK_LAUNCH("multi_info_kernel");
    multi_scatter_kernel<Wide><<<grid_n, hash_policy::query_block, 0, stream>>>(
        *g, sl, k, values, n, cursor.as<uint32_t>(), values_out);
    STENC_CUDA_CHECK_LAUNCH("multi_scatter_kernel");
    unsigned long long lost;
    STENC_TRY(read_counters(ctx, missing.as<unsigned long long>(), &lost, 1));
    if (lost) return STENC_ERROR(STENC_ERR_INTERNAL, "hash multi_fill: %llu keys not stored", lost);
    return STENC_OK;
}

stenc_status cuda_multi_fill(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                             const void *keys, const uint32_t *values, size_t n, size_t count,
                             uint32_t *info, uint32_t *values_out) {
    if (n == 0 || count == 0) return STENC_OK;
    return g->wide ? multi_fill_t<true>(ctx, g, slots, keys, values, n, count, info, values_out)
                   : multi_fill_t<false>(ctx, g, slots, keys, values, n, count, info, values_out);
}

stenc_status cuda_find_multi(stenc_ctx *ctx, const hash_geom *g, const void *slots,
                             const uint32_t *info, const void *queries, size_t n, uint32_t *counts,
                             uint32_t *offsets) {
    if (n == 0) return STENC_OK;
    const unsigned grid = grid_for(n, hash_policy::query_block);
    if (g->wide)
        find_multi_kernel<true><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<true> *>(slots), info,
            static_cast<const uint64_t *>(queries), n, counts, offsets);
    else
        find_multi_kernel<false><<<grid, hash_policy::query_block, 0, stenc_stream(ctx)>>>(
            *g, static_cast<const slot_t<false> *>(slots), info,
            static_cast<const uint32_t *>(queries), n, counts, offsets);
    STENC_CUDA_CHECK_LAUNCH("find_multi_kernel");
    return STENC_OK;
}

} // namespace

extern "C" const hash_backend *hash_cuda_backend(void) {
    static const hash_backend be = {cuda_clear,      cuda_insert,     cuda_dedupe,
                                    cuda_apply_min,  cuda_find,       cuda_gather,
                                    cuda_assign_ids, cuda_multi_fill, cuda_find_multi};
    return &be;
}
