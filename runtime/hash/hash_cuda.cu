// The CUDA backend of the hash tables. SLOTS layout: one thread per input item follows its
// eviction chain with atomic exchanges on whole slots (64-bit for 32-bit keys, 128-bit for
// 64-bit keys, sm_90), as in the chapter's Listing 4.1; one thread per query probes the d slots
// in order and stops at the first hit (Listing 4.2). BUCKETS layout: a thread reads a whole
// 32-byte bucket (two 16-byte loads of one sector), claims a free slot with a CAS, and evicts
// only when all d buckets are full. Rank computations (ids, offsets) use CUB's device scan.
// Large BUCKETS builds with 32-bit keys are partitioned by region first and placed in shared
// memory, one block per slice of the table (docs/hash.md, "Partitioned insertion").
#include <algorithm>

#include <cub/device/device_scan.cuh>

#include "cuda_check.h"
#include "hash_backend.h"

namespace {

// Tuning: threads per block of every kernel. The chapter used 64 so that one long chain keeps
// few threads waiting; on sm_90 a block of 128 measured no worse, see docs/hash.md.
struct hash_policy {
    static constexpr int insert_block = 128;
    static constexpr int query_block = 256;
    static constexpr int slot_block = 256;
    // Partitioning (docs/hash.md): the count pass runs count_blocks_per_sm blocks of
    // count_block threads per SM; the scatter sorts a tile of scatter_block * scatter_items
    // items by region in shared memory (so that a region's items go out as one run) and
    // reserves room for each region's share of the tile with one global atomic.
    static constexpr int count_block = 256;
    static constexpr int count_blocks_per_sm = 8;
    static constexpr int scatter_block = 1024;
    static constexpr int scatter_items = 16;
    // The slice insertion: one block of slice_block threads per slice of
    // HASH_PARTITION_SLICE_BUCKETS buckets in shared memory, each thread loading slice_unroll
    // keys of the region's list before placing them (independent loads in flight).
    static constexpr int slice_block = 1024;
    static constexpr int refine_block = 1024;
    static constexpr int slice_unroll = 8;
};
constexpr int partition_tile = hash_policy::scatter_block * hash_policy::scatter_items;
static_assert(partition_tile <= 0x10000, "a tile rank must fit in 16 bits");
static_assert(HASH_PARTITION_MAX_REGIONS <= 0x8000, "a region must fit in 15 bits");

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
__global__ void
insert_kernel(const __grid_constant__ hash_geom g, typename layout<Wide>::slot *slots,
              const typename layout<Wide>::key_t *__restrict__ keys,
              const uint32_t *__restrict__ values, const uint8_t *__restrict__ skip, size_t n,
              const unsigned long long *live, unsigned long long *counters) {
    using L = layout<Wide>;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n || (live && i >= *live) || (skip && skip[i])) return;
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
__global__ void bucket_insert_kernel(const __grid_constant__ hash_geom g,
                                     typename layout<Wide>::slot *slots,
                                     const typename layout<Wide>::key_t *__restrict__ keys,
                                     const uint32_t *__restrict__ values,
                                     const unsigned long long *__restrict__ entries,
                                     const uint8_t *__restrict__ skip, size_t n,
                                     const unsigned long long *live, unsigned long long *counters) {
    using L = layout<Wide>;
    using slot = typename L::slot;
    constexpr int B = bucket_slots<Wide>;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n || (live && i >= *live) || (skip && skip[i])) return;
    // Narrow keys may come as whole entries (the partitioned list), else as keys and values.
    const uint64_t key = entries ? (uint64_t)hash_narrow_key(entries[i]) : (uint64_t)keys[i];
    if (key == L::empty) {
        atomicAdd(&counters[1], 1ull);
        return;
    }
    const slot empty_slot = L::make(L::empty, 0xffffffffu);
    slot carry = L::make(key, entries ? hash_narrow_value(entries[i]) : values ? values[i] : 0u);
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

// ---- partitioned insertion (narrow keys, BUCKETS): a counting sort of the items by region of
// their first bucket, then one block per slice of a region places keys in shared memory ----
__device__ __forceinline__ uint32_t region_of(const hash_geom &g, int shift, uint32_t key) {
    return hash_slot(&g, 0, key) >> shift;
}

// Pass 1: items per region (counts, pre-zeroed), and counters [1] reserved keys (not
// inserted, reported) and [2] items kept (the partitioned list's length). Skipped items drop.
__global__ void __launch_bounds__(hash_policy::count_block)
    partition_count_kernel(const __grid_constant__ hash_geom g, int shift, uint32_t regions,
                           const uint32_t *__restrict__ keys, const uint8_t *__restrict__ skip,
                           size_t n, uint32_t *counts, unsigned long long *counters) {
    __shared__ uint32_t hist[HASH_PARTITION_MAX_REGIONS];
    for (uint32_t r = threadIdx.x; r < regions; r += blockDim.x)
        hist[r] = 0;
    __syncthreads();
    unsigned long long reserved = 0, kept = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (skip && skip[i]) continue;
        const uint32_t key = keys[i];
        if (key == STENC_HASH_EMPTY_KEY32) {
            reserved++;
            continue;
        }
        atomicAdd(&hist[region_of(g, shift, key)], 1u);
        kept++;
    }
    __syncthreads();
    for (uint32_t r = threadIdx.x; r < regions; r += blockDim.x)
        if (hist[r]) atomicAdd(&counts[r], hist[r]);
    warp_add(&counters[1], reserved);
    warp_add(&counters[2], kept);
}

// Exclusive prefix sum of v[0..count) in shared memory, in place, by the whole block of
// scatter_block threads (count at most HASH_PARTITION_MAX_REGIONS); returns the total. Every
// thread must call it.
__device__ uint32_t block_exclusive_scan(uint32_t *v, uint32_t count, uint32_t *warp_sums) {
    constexpr uint32_t per =
        (HASH_PARTITION_MAX_REGIONS + hash_policy::scatter_block - 1) / hash_policy::scatter_block;
    const uint32_t lo = threadIdx.x * per;
    uint32_t mine = 0;
    for (uint32_t k = 0; k < per; k++)
        if (lo + k < count) mine += v[lo + k];
    // Inclusive scan of the per-thread sums across the warp, then across warps.
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t x = mine;
    for (int off = 1; off < 32; off <<= 1) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= (uint32_t)off) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        const uint32_t nw = blockDim.x >> 5;
        uint32_t w = lane < nw ? warp_sums[lane] : 0;
        for (int off = 1; off < 32; off <<= 1) {
            const uint32_t y = __shfl_up_sync(0xffffffffu, w, off);
            if (lane >= (uint32_t)off) w += y;
        }
        if (lane < nw) warp_sums[lane] = w; // inclusive
    }
    __syncthreads();
    uint32_t run = x - mine + (warp ? warp_sums[warp - 1] : 0);
    for (uint32_t k = 0; k < per; k++)
        if (lo + k < count) {
            const uint32_t c = v[lo + k];
            v[lo + k] = run;
            run += c;
        }
    const uint32_t total = warp_sums[(blockDim.x >> 5) - 1];
    __syncthreads();
    return total;
}

// Pass 2, one tile of scatter_block * scatter_items items per block: count the tile's items per
// region in shared memory, reserve each region's share at its cursor (the exclusive scan of
// pass 1's counts) with one atomic, sort the tile by region in shared memory, and write it out
// so that each region's items go out as one run (coalesced). Items become whole slot entries
// (key and value in one word). Order within a region is unspecified (insertion order is the
// backend's; no rule depends on it).
__global__ void __launch_bounds__(hash_policy::scatter_block)
    partition_scatter_kernel(const __grid_constant__ hash_geom g, int shift, uint32_t regions,
                             const uint32_t *__restrict__ keys, const uint32_t *__restrict__ values,
                             const uint8_t *__restrict__ skip, size_t n, uint32_t *cursor,
                             unsigned long long *__restrict__ out) {
    constexpr int items = hash_policy::scatter_items;
    constexpr uint32_t none = 0xffffffffu;
    extern __shared__ unsigned long long stage[]; // partition_tile entries, then the arrays below
    uint32_t *hist = reinterpret_cast<uint32_t *>(stage + partition_tile);
    uint32_t *base = hist + HASH_PARTITION_MAX_REGIONS;
    uint32_t *warp_sums = base + HASH_PARTITION_MAX_REGIONS;
    for (uint32_t r = threadIdx.x; r < regions; r += blockDim.x)
        hist[r] = 0;
    __syncthreads();
    const size_t first = (size_t)blockIdx.x * partition_tile + threadIdx.x;
    unsigned long long e[items];
    uint32_t tag[items]; // region << 16 | rank in the tile, or none
#pragma unroll
    for (int j = 0; j < items; j++) {
        const size_t i = first + (size_t)j * blockDim.x;
        tag[j] = none;
        e[j] = 0;
        if (i < n && !(skip && skip[i])) {
            const uint32_t key = keys[i];
            if (key != STENC_HASH_EMPTY_KEY32) {
                const uint32_t r = region_of(g, shift, key);
                tag[j] = r << 16 | atomicAdd(&hist[r], 1u);
                e[j] = hash_narrow_entry(key, values ? values[i] : 0u);
            }
        }
    }
    __syncthreads();
    for (uint32_t r = threadIdx.x; r < regions; r += blockDim.x)
        base[r] = hist[r] ? atomicAdd(&cursor[r], hist[r]) : 0;
    const uint32_t total = block_exclusive_scan(hist, regions, warp_sums); // hist: tile offsets
#pragma unroll
    for (int j = 0; j < items; j++)
        if (tag[j] != none) stage[hist[tag[j] >> 16] + (tag[j] & 0xffffu)] = e[j];
    __syncthreads();
    for (uint32_t t = threadIdx.x; t < total; t += blockDim.x) {
        const unsigned long long entry = stage[t];
        const uint32_t r = region_of(g, shift, hash_narrow_key(entry));
        out[base[r] + (t - hist[r])] = entry;
    }
}

// Pass 3, only when a region has several slices: one block per region splits the region's
// list by slice (a counting sort with warp-aggregated shared-memory cursors, so that a warp's
// entries for one slice go out together) from `in` to `out`, and writes the slices' ends.
// Order within a slice is unspecified.
__global__ void __launch_bounds__(hash_policy::refine_block)
    refine_kernel(const __grid_constant__ hash_geom g, int shift, int slice_shift,
                  const uint32_t *__restrict__ region_ends,
                  const unsigned long long *__restrict__ in, unsigned long long *__restrict__ out,
                  uint32_t *__restrict__ slice_ends) {
    __shared__ uint32_t cur[HASH_PARTITION_MAX_SLICES];
    const uint32_t per_log = (uint32_t)(shift - slice_shift), spr = 1u << per_log;
    const uint32_t r = blockIdx.x, lane = threadIdx.x & 31;
    const uint32_t begin = r ? region_ends[r - 1] : 0, end = region_ends[r];
    const uint32_t region_first = r << shift;
    for (uint32_t j = threadIdx.x; j < spr; j += blockDim.x)
        cur[j] = 0;
    __syncthreads();
    for (int pass = 0; pass < 2; pass++) {
        // The loop bound is the same for the whole block, so every lane of a warp takes part.
        for (uint32_t p0 = begin; p0 < end; p0 += blockDim.x) {
            const uint32_t p = p0 + threadIdx.x;
            const bool ok = p < end;
            uint32_t j = 0;
            unsigned long long e = 0;
            if (ok) {
                e = in[p];
                j = (hash_slot(&g, 0, hash_narrow_key(e)) - region_first) >> slice_shift;
            }
            const unsigned active = __ballot_sync(0xffffffffu, ok);
            unsigned peers = 0;
            int leader = 0;
            uint32_t at = 0;
            if (ok) {
                peers = __match_any_sync(active, j);
                leader = __ffs(peers) - 1;
                if ((int)lane == leader) at = atomicAdd(&cur[j], (uint32_t)__popc(peers));
            }
            if (pass == 1) {
                at = __shfl_sync(0xffffffffu, at, leader);
                if (ok) out[at + (uint32_t)__popc(peers & ((1u << lane) - 1))] = e;
            }
        }
        __syncthreads();
        if (pass == 0 && threadIdx.x == 0) { // counts to starting positions
            uint32_t run = begin;
            for (uint32_t j = 0; j < spr; j++) {
                const uint32_t c = cur[j];
                cur[j] = run;
                run += c;
                slice_ends[(r << per_log) + j] = run;
            }
        }
        __syncthreads();
    }
}

// Pass 4: one block per slice of a region. The slice's buckets live in shared memory (empty
// when the table is fresh, else loaded); the block reads its slice's partitioned entries
// (ends[s - 1] to ends[s]) and places each there by the global insertion's rule (first free
// slot by CAS, a lost CAS re-reads, a copy of the key ends it). Entries whose first bucket is
// full are left for the ordinary insertion: placed[p] = 0 for them, 1 for the others. Then the
// slice is written back whole. `ends`: the slices' ends (the regions' when a region is one
// slice).
__global__ void __launch_bounds__(hash_policy::slice_block)
    slice_insert_kernel(const __grid_constant__ hash_geom g, int shift, int slice_shift,
                        const uint32_t *__restrict__ ends,
                        const unsigned long long *__restrict__ entries, int fresh,
                        unsigned long long *slots, uint8_t *__restrict__ placed) {
    using L = layout<false>;
    constexpr int B = bucket_slots<false>;
    constexpr int U = hash_policy::slice_unroll;
    extern __shared__ unsigned long long sm[]; // (1 << slice_shift) buckets of B slots
    const uint32_t per_region_log = (uint32_t)(shift - slice_shift);
    const uint32_t r = blockIdx.x >> per_region_log;
    const uint32_t first =
        (r << shift) + ((blockIdx.x & ((1u << per_region_log) - 1)) << slice_shift);
    if (first >= g.buckets) return; // past the table's end (the last region may be short)
    const uint32_t nb = min(1u << slice_shift, g.buckets - first);
    unsigned long long *gs = slots + (size_t)first * B;
    for (uint32_t k = threadIdx.x; k < nb * B; k += blockDim.x)
        sm[k] = fresh ? HASH_EMPTY_NARROW : gs[k];
    __syncthreads();
    const uint32_t begin = blockIdx.x ? ends[blockIdx.x - 1] : 0, end = ends[blockIdx.x];
    for (uint32_t p0 = begin + threadIdx.x; p0 < end; p0 += U * blockDim.x) {
        unsigned long long e[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const uint32_t p = p0 + (uint32_t)u * blockDim.x;
            e[u] = p < end ? entries[p] : HASH_EMPTY_NARROW;
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const uint32_t key = hash_narrow_key(e[u]);
            if (key == STENC_HASH_EMPTY_KEY32) continue; // past the end (no reserved keys here)
            const uint32_t b = hash_slot(&g, 0, key) - first;
            if (b >= nb) continue; // not reached: the list holds this slice's entries only
            volatile unsigned long long *bp = sm + (size_t)b * B;
            bool done = false;
            for (;;) {
                int free_at = -1;
                bool own = false;
#pragma unroll
                for (int s = B - 1; s >= 0; s--) {
                    const uint32_t k = hash_narrow_key(bp[s]);
                    own |= k == key;
                    if (k == STENC_HASH_EMPTY_KEY32) free_at = s;
                }
                if (own) {
                    done = true;
                    break;
                }
                if (free_at < 0) break; // full: the ordinary insertion takes it on
                const unsigned long long was = atomicCAS(
                    const_cast<unsigned long long *>(bp + free_at), HASH_EMPTY_NARROW, e[u]);
                if (L::key(was) == L::empty || L::key(was) == key) {
                    done = true;
                    break;
                }
            }
            placed[p0 + (uint32_t)u * blockDim.x] = done;
        }
    }
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < nb * B; k += blockDim.x)
        gs[k] = sm[k];
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

stenc_status exclusive_sum(stenc_ctx *ctx, const uint32_t *in, uint32_t *out, size_t n);

// Where partitioning applies (hash_get_partition_policy): regions of 2^shift buckets, each
// cut into slices of 2^slice_shift buckets for the slice insertion.
struct partition_plan {
    int shift = 0, slice_shift = 0;
    uint32_t regions = 0; // 0: insert directly
};

partition_plan plan_partition(const hash_geom *g, size_t n) {
    partition_plan plan;
    const hash_partition_policy pol = hash_get_partition_policy();
    const size_t table_bytes = (size_t)g->capacity * hash_slot_bytes(g);
    // The slice insertion is written for the BUCKETS layout with 32-bit keys.
    if (g->wide || g->bucket != bucket_slots<false> || g->buckets < 2) return plan;
    if (n < pol.min_keys || table_bytes < pol.min_table_bytes) return plan;
    // Every slice is read and written back, so a batch much smaller than the table does not pay.
    if (pol.max_slots_per_key && (size_t)g->capacity / pol.max_slots_per_key > n) return plan;
    const uint32_t max_regions = pol.max_regions < 2 ? 2
                                 : pol.max_regions > HASH_PARTITION_MAX_REGIONS
                                     ? HASH_PARTITION_MAX_REGIONS
                                     : pol.max_regions;
    const size_t bucket_bytes = (size_t)g->bucket * hash_slot_bytes(g);
    const size_t want = pol.region_bytes > bucket_bytes ? pol.region_bytes / bucket_bytes : 1;
    int shift = 0;
    while (shift < 31 && ((size_t)1 << shift) < want)
        shift++;
    uint64_t regions;
    while ((regions = ((uint64_t)g->buckets + (1ull << shift) - 1) >> shift) > max_regions)
        shift++;
    int slice_shift = 0;
    while (slice_shift < shift && (2u << slice_shift) <= HASH_PARTITION_SLICE_BUCKETS)
        slice_shift++;
    if (regions >= 2 && shift - slice_shift <= HASH_PARTITION_MAX_SLICES_LOG) {
        plan.shift = shift;
        plan.slice_shift = slice_shift;
        plan.regions = (uint32_t)regions;
    }
    return plan;
}

size_t align_up(size_t x, size_t a) {
    return (x + a - 1) / a * a;
}

// The table's scratch, at least `bytes`: false (with CUDA's error cleared) when it cannot be
// had, and the caller inserts directly.
bool scratch_reserve(stenc_ctx *ctx, hash_scratch *part, size_t bytes) {
    if (part->p && part->bytes >= bytes) return true;
    const hash_partition_policy pol = hash_get_partition_policy();
    if (part->p) {
        stenc_free(ctx, part->p); // waits for queued work that may still read it
        part->p = nullptr;
        part->bytes = 0;
    }
    if (pol.fail_alloc == 1) return false; // tests: as if the allocation had failed
    void *p = nullptr;
    const size_t ask = pol.fail_alloc ? ~(size_t)0 >> 4 : bytes; // 2: a real failing cudaMalloc
    if (cudaMalloc(&p, ask) != cudaSuccess) {
        (void)cudaGetLastError(); // an allocation failure is not sticky; clear it
        return false;
    }
    part->p = p;
    part->bytes = ask;
    return true;
}

// The partition scratch of n pairs: region counts (then ends), slice ends, the entries by
// region, and then either the entries by slice (several slices per region; the placed flags
// reuse the first list) or the placed flags.
struct partition_layout {
    size_t slice_ends_at, first_at, second_at, placed_at, bytes;
    partition_layout(size_t n, const partition_plan &plan) {
        const size_t slices = (size_t)plan.regions << (plan.shift - plan.slice_shift);
        const bool refine = plan.shift > plan.slice_shift;
        slice_ends_at = align_up(HASH_PARTITION_MAX_REGIONS * sizeof(uint32_t), 256);
        first_at = slice_ends_at + align_up(slices * sizeof(uint32_t), 256);
        second_at = first_at + align_up(n * sizeof(unsigned long long), 256);
        placed_at = refine ? first_at : second_at;
        bytes = second_at + (refine ? n * sizeof(unsigned long long) : n);
    }
};

// The partitioned insertion of n narrow keys (see the kernels): the input is counted and
// scattered by region into `base` (partition_layout), the slices place what their first
// buckets hold, and the rest (placed[p] == 0) is left for the caller's ordinary insertion over
// the returned entries. counters: [1] reserved keys, [2] the partitioned list's length.
stenc_status partition_and_place(stenc_ctx *ctx, const hash_geom *g, const partition_plan &plan,
                                 unsigned long long *slots, const uint32_t *keys,
                                 const uint32_t *values, const uint8_t *skip, size_t n, int fresh,
                                 char *base, unsigned long long *counters,
                                 const unsigned long long **out_entries,
                                 const uint8_t **out_placed) {
    cudaStream_t stream = stenc_stream(ctx);
    const partition_layout at(n, plan);
    uint32_t *counts = reinterpret_cast<uint32_t *>(base);
    uint32_t *slice_ends = reinterpret_cast<uint32_t *>(base + at.slice_ends_at);
    auto *entries = reinterpret_cast<unsigned long long *>(base + at.first_at);
    uint8_t *placed = reinterpret_cast<uint8_t *>(base + at.placed_at);
    STENC_CUDA_TRY(cudaMemsetAsync(counts, 0, plan.regions * sizeof(uint32_t), stream));
    const size_t count_cap =
        (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 1) * hash_policy::count_blocks_per_sm;
    const size_t count_grid = std::min((size_t)grid_for(n, hash_policy::count_block), count_cap);
    partition_count_kernel<<<(unsigned)count_grid, hash_policy::count_block, 0, stream>>>(
        *g, plan.shift, plan.regions, keys, skip, n, counts, counters);
    STENC_CUDA_CHECK_LAUNCH("partition_count_kernel");
    STENC_TRY(exclusive_sum(ctx, counts, counts, plan.regions));
    const size_t scatter_smem = partition_tile * sizeof(unsigned long long) +
                                (2 * HASH_PARTITION_MAX_REGIONS + 32) * sizeof(uint32_t);
    STENC_CUDA_TRY(cudaFuncSetAttribute(
        partition_scatter_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)scatter_smem));
    partition_scatter_kernel<<<grid_for(n, partition_tile), hash_policy::scatter_block,
                               scatter_smem, stream>>>(*g, plan.shift, plan.regions, keys, values,
                                                       skip, n, counts, entries);
    STENC_CUDA_CHECK_LAUNCH("partition_scatter_kernel");
    const uint32_t *ends = counts;
    if (plan.shift > plan.slice_shift) {
        auto *by_slice = reinterpret_cast<unsigned long long *>(base + at.second_at);
        refine_kernel<<<plan.regions, hash_policy::refine_block, 0, stream>>>(
            *g, plan.shift, plan.slice_shift, counts, entries, by_slice, slice_ends);
        STENC_CUDA_CHECK_LAUNCH("refine_kernel");
        entries = by_slice;
        ends = slice_ends;
    }
    *out_entries = entries;
    *out_placed = placed;
    if (hash_get_partition_policy().partition_only == 1) return STENC_OK;
    const size_t smem = ((size_t)1 << plan.slice_shift) * HASH_BUCKET_BYTES;
    STENC_CUDA_TRY(cudaFuncSetAttribute(slice_insert_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const unsigned slices = plan.regions << (plan.shift - plan.slice_shift);
    slice_insert_kernel<<<slices, hash_policy::slice_block, smem, stream>>>(
        *g, plan.shift, plan.slice_shift, ends, entries, fresh, slots, placed);
    STENC_CUDA_CHECK_LAUNCH("slice_insert_kernel");
    return STENC_OK;
}

template <bool Wide>
stenc_status insert_t(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                      const uint32_t *values, const uint8_t *skip, size_t n, int fresh,
                      hash_scratch *part, hash_insert_result *result) {
    result->failed = result->reserved = 0;
    if (n == 0) {
        if (fresh) STENC_TRY(cuda_clear(ctx, g, slots));
        return STENC_OK;
    }
    STENC_TRY(check_wide(ctx, g));
    STENC_TRY(check_bucket<Wide>(g));
    cudaStream_t stream = stenc_stream(ctx);
    scratch c(stream);
    STENC_TRY(zeroed_counters(ctx, c, 3));
    unsigned long long *counters = c.as<unsigned long long>();
    const auto *in_keys = static_cast<const key_of<Wide> *>(keys);
    const uint32_t *in_values = values;
    const unsigned long long *in_entries = nullptr;
    const uint8_t *in_skip = skip;
    const unsigned long long *live = nullptr;
    const partition_plan plan = part && !Wide ? plan_partition(g, n) : partition_plan{};
    bool partitioned = false;
    if (plan.regions) {
        partitioned = scratch_reserve(ctx, part, partition_layout(n, plan).bytes);
        hash_partition_note(!partitioned);
    }
    if (partitioned) {
        STENC_TRY(partition_and_place(ctx, g, plan, static_cast<unsigned long long *>(slots),
                                      static_cast<const uint32_t *>(keys), values, skip, n, fresh,
                                      static_cast<char *>(part->p), counters, &in_entries,
                                      &in_skip));
        if (hash_get_partition_policy().partition_only) {
            STENC_CUDA_TRY(cudaStreamSynchronize(stream));
            return STENC_OK;
        }
        in_keys = nullptr;
        in_values = nullptr;
        live = counters + 2;
    } else if (fresh) {
        STENC_TRY(cuda_clear(ctx, g, slots));
    }
    const unsigned grid = grid_for(n, hash_policy::insert_block);
    if (g->bucket > 1) {
        bucket_insert_kernel<Wide><<<grid, hash_policy::insert_block, 0, stream>>>(
            *g, static_cast<slot_t<Wide> *>(slots), in_keys, in_values, in_entries, in_skip, n,
            live, counters);
        STENC_CUDA_CHECK_LAUNCH("bucket_insert_kernel");
    } else {
        insert_kernel<Wide><<<grid, hash_policy::insert_block, 0, stream>>>(
            *g, static_cast<slot_t<Wide> *>(slots), in_keys, in_values, in_skip, n, live, counters);
        STENC_CUDA_CHECK_LAUNCH("insert_kernel");
    }
    unsigned long long h[2];
    STENC_TRY(read_counters(ctx, counters, h, 2));
    result->failed = h[0];
    result->reserved = h[1];
    return STENC_OK;
}

stenc_status cuda_insert(stenc_ctx *ctx, const hash_geom *g, void *slots, const void *keys,
                         const uint32_t *values, const uint8_t *skip, size_t n, int fresh,
                         hash_scratch *scratch, hash_insert_result *result) {
    return g->wide ? insert_t<true>(ctx, g, slots, keys, values, skip, n, fresh, scratch, result)
                   : insert_t<false>(ctx, g, slots, keys, values, skip, n, fresh, scratch, result);
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
    // One query per thread: the grid's x extent (2^31 - 1 blocks) bounds a call.
    static const hash_backend be = {(size_t)INT32_MAX * hash_policy::query_block,
                                    cuda_clear,
                                    cuda_insert,
                                    cuda_dedupe,
                                    cuda_apply_min,
                                    cuda_find,
                                    cuda_gather,
                                    cuda_assign_ids,
                                    cuda_multi_fill,
                                    cuda_find_multi};
    return &be;
}
