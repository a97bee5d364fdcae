// The device code of the sort's CUDA path (sort_cuda.cu launches it; the host simulation in
// tests/sort runs its schedules and helpers): a bitonic network over a virtual index space, run
// tile by tile.
//
// Each segment of length L is sorted as a bitonic network over 2^k >= L virtual elements;
// the missing ones are +infinity. Phase q (sorting runs of 2^q) sorts the run holding virtual
// index i ascending iff bit q of i equals bit q of L-1, so the run that holds both the last
// real and the first missing element is always ascending: a comparator there never moves a
// missing element (it is >= everything and already at the higher index), and runs wholly
// beyond L are all equal. Missing elements therefore never move and are never stored.
//
// One launch = one pass over global memory over tiles of 2^t elements of the virtual index
// space, either contiguous (all steps on bits < t of one or more phases) or strided:
// contiguous runs of 2^low elements (coalesced) at offsets varying in `high_bits` higher bits,
// for the steps on those bits. A block of 2^(t-RB) threads holds the tile in registers, 2^RB
// elements per thread, loaded straight from global memory. A step whose bit is one of the
// thread's register bits is a compare-exchange inside the thread; when the next step's bit is
// not, the tile moves through shared memory into the layout that holds it (one barrier, or
// only __syncwarp between the two layouts that keep a warp's elements in the warp). Keys are
// mapped to order-preserving unsigned integers on the load, and the keys of descending runs
// are complemented for the duration of a phase, so every compare-exchange is an ascending
// min/max. The first pass sorts a tile that lies in one segment with a merge sort instead of
// the bitonic phases 1..t (merge_level; the later passes never see how a tile got sorted).
#ifndef STENC_SORT_KERNELS_CUH
#define STENC_SORT_KERNELS_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <type_traits>
#include <utility>

#include "sort_internal.h"

// Helpers are __host__ __device__ so that a host simulation (tests/sort/test_sort_sim.cu) runs the
// very same code on every thread of a block.
#define SORT_HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define SORT_UNROLL _Pragma("unroll")
#else
#define SORT_UNROLL
#endif

namespace stsort_kernels {

struct NoValue {};

struct PassArgs {
    unsigned long long seg_len, num_segs;
    int seg_log2;
    int low_bits, high_lo, high_bits;
    int phase_first, phase_last;
    int cluster_log2; // > 0: blocks form clusters of 2^this (a contiguous first pass)
    int tile_merge;   // a first pass sorts each whole tile with merge sort (tile_merge_applies)
};

template <class K> SORT_HD K map_key(K x, int kind);
template <> SORT_HD uint32_t map_key<uint32_t>(uint32_t x, int kind) {
    return stsort_map32(x, kind);
}
template <> SORT_HD uint64_t map_key<uint64_t>(uint64_t x, int kind) {
    return stsort_map64(x, kind);
}
template <class K> SORT_HD K unmap_key(K x, int kind);
template <> SORT_HD uint32_t unmap_key<uint32_t>(uint32_t x, int kind) {
    return stsort_unmap32(x, kind);
}
template <> SORT_HD uint64_t unmap_key<uint64_t>(uint64_t x, int kind) {
    return stsort_unmap64(x, kind);
}

// Shared-memory slot of tile position s in an array of 8-byte elements: one pad slot per 32
// keeps the layouts below off a single bank (registers 32 apart, or lanes 32 apart).
SORT_HD uint32_t padded(uint32_t s) {
    return s + (s >> 5);
}
// ... in an array of 4-byte elements: an XOR swizzle that keeps every aligned group of 4 slots
// (16 bytes) whole, so that layout 0 (a thread's registers are consecutive positions) moves
// with 16-byte accesses. Bits 2..4 of s (the 16-byte chunk within a row of 32 slots, i.e. the
// bank group) are XORed with H(row bits 0..4): rows 1, 2, 4 -> chunk 1, 2, 4, rows 8, 16 ->
// chunk 3, 6. Chosen by exhaustive search over linear H (bench/logs/sort_history.md, "Sixth revision"):
// conflict-free 16-byte accesses in layout 0 and scalar accesses in every layout >= 2 for
// RB = 3 and 5 (RB = 4: layout 4 two-way); layout 1 is two-way for any map that keeps the
// 16-byte chunks whole. Linear over GF(2): swizzle(a ^ b) = swizzle(a) ^ swizzle(b).
SORT_HD uint32_t swizzle(uint32_t s) {
    return s ^ ((s >> 3) & 0x1Cu) ^ ((s >> 6) & 0x0Cu) ^ ((s >> 5) & 0x18u);
}
// The wide kernels (32 registers) whose shared-memory arrays all hold 4-byte elements (u32/i32/
// f32 keys, alone or with u32 values) use the swizzle; every other kernel keeps the pad (and its
// code). Measured on the H100 (bench/logs/sort_history.md, "Sixth revision"): wide +2-5% at 2^22-2^27; the
// narrow kernel (RB = 3) lost 5% at 2^18 with the swizzle, so it keeps the pad.
template <int RB, class K, class V> __host__ __device__ constexpr bool swizzled() {
    return RB == STSORT_REG_LOG2 && sizeof(K) == 4 &&
           (std::is_same<V, NoValue>::value || sizeof(V) == 4);
}
template <int RB, class K, class V> SORT_HD uint32_t smem_slot(uint32_t s) {
    return swizzled<RB, K, V>() ? swizzle(s) : padded(s);
}
// Slots between registers m and m+1 of layout r in a padded array (padded() is linear there),
// or 0 if not.
SORT_HD uint32_t slot_stride(int r) {
    return r == 0 ? 1u : r >= 5 ? (1u << r) + (1u << (r - 5)) : 0u;
}

template <class V> __host__ __device__ constexpr bool has_values() {
    return !std::is_same<V, NoValue>::value;
}

// log2 of the elements a thread holds in registers in the wide kernels (the host side:
// stsort_reg_log2); every element type also has a narrow kernel (STSORT_REG_LOG2_NARROW).
template <class K, class V> __host__ __device__ constexpr int reg_log2() {
    return sizeof(K) + (has_values<V>() ? sizeof(V) : 0) <= 8 ? STSORT_REG_LOG2
                                                              : STSORT_REG_LOG2_WIDE;
}

// Keys-only 4-byte sorts fit in 64 registers: blocks of up to 1024 threads (tiles of 2^15),
// or two 512-thread blocks per SM. Larger elements: up to 128 registers, 512 threads. The
// narrow kernels (8 elements per thread) fit in 64 registers for every element size.
template <class K, class V, int RB> __host__ __device__ constexpr int max_threads() {
    return (sizeof(K) == 4 && !has_values<V>()) || RB == STSORT_REG_LOG2_NARROW
               ? STSORT_MAX_THREADS_4B
               : STSORT_MAX_THREADS;
}

struct TileMap {
    unsigned long long block_v, low_mask;
    int low_bits, high_lo, high_bits;
    SORT_HD unsigned long long vindex(uint32_t s) const {
        return block_v | (s & low_mask) | ((unsigned long long)(s >> low_bits) << high_lo);
    }
    // The tile bit that holds virtual bit q, or -1 if q is a bit of the block index.
    SORT_HD int tile_bit(int q) const {
        if (q < low_bits) return q;
        if (q >= high_lo && q < high_lo + high_bits) return low_bits + q - high_lo;
        return -1;
    }
};

// A layout r gives each thread E = 2^RB elements: the tile positions whose bits r..r+RB-1 are
// the register index m and whose other bits are the thread index, in order. Layouts 0 and 5
// give a warp the same 2^(RB+5) positions, so moving between them needs only __syncwarp.
template <int RB> SORT_HD uint32_t layout_base(uint32_t tid, int r) {
    return (tid & ((1u << r) - 1)) | ((tid >> r) << (r + RB));
}

// Bit m set: register m of layout r holds an element of a descending run of phase q. Runs go
// ascending iff bit q of the virtual index equals bit q of L-1 (see the top of this file).
template <int RB>
SORT_HD uint32_t desc_bits(int q, int r, uint32_t base, const TileMap &map,
                           unsigned long long seg_len, int seg_log2) {
    if (q >= seg_log2) return 0;
    const int sb = map.tile_bit(q);
    uint32_t pat;
    if (sb < 0) {
        pat = ((map.block_v >> q) & 1) ? ~0u : 0u;
    } else if (sb >= r && sb < r + RB) {
        switch (sb - r) { // the registers whose index has bit sb - r set
        case 0:
            pat = 0xAAAAAAAAu;
            break;
        case 1:
            pat = 0xCCCCCCCCu;
            break;
        case 2:
            pat = 0xF0F0F0F0u;
            break;
        case 3:
            pat = 0xFF00FF00u;
            break;
        default:
            pat = 0xFFFF0000u;
            break;
        }
    } else {
        pat = ((base >> sb) & 1) ? ~0u : 0u;
    }
    return (((seg_len - 1) >> q) & 1) ? ~pat : pat;
}

// Keys of descending runs are complemented, so that every compare-exchange sorts ascending.
template <int E, class K> SORT_HD void flip_desc(K (&k)[E], uint32_t bits) {
    constexpr uint32_t all = E >= 32 ? ~0u : (1u << E) - 1;
    bits &= all;
    if (bits == 0) return;
    if (bits == all) { // one direction for the whole thread (every later pass)
        SORT_UNROLL
        for (int m = 0; m < E; m++)
            k[m] = ~k[m];
        return;
    }
    // Predicated complements, not XORs with a mask per register: the compiler would merge
    // those with the uniform case above into 2^RB live masks, and spill.
    SORT_UNROLL
    for (int m = 0; m < E; m++)
        if ((bits >> m) & 1u) k[m] = ~k[m];
}

// XOR with the descending-run masks of phase q and of phase `next` (-1: none): entering a
// phase (at the load), moving from q to next, or leaving the last phase (before the store).
template <int RB, class K>
SORT_HD void flip_phases(K (&k)[1 << RB], uint32_t tid, int r, int q, int next, const TileMap &map,
                         const PassArgs &a) {
    const uint32_t base = layout_base<RB>(tid, r);
    uint32_t bits = desc_bits<RB>(q, r, base, map, a.seg_len, a.seg_log2);
    if (next >= 0) bits ^= desc_bits<RB>(next, r, base, map, a.seg_len, a.seg_log2);
    flip_desc<1 << RB>(k, bits);
}

template <class K, class V> SORT_HD void compare_exchange(K &a, K &b, V &va, V &vb) {
    if constexpr (has_values<V>()) {
        const bool c = a > b;
        const K ka = c ? b : a, kb = c ? a : b;
        const V xa = c ? vb : va, xb = c ? va : vb;
        a = ka, b = kb, va = xa, vb = xb;
    } else {
        const K lo = a < b ? a : b, hi = a < b ? b : a;
        a = lo, b = hi;
    }
}

// One step on register bit J: all compare-exchanges inside a thread, no memory traffic.
template <int J, int E, class K, class V> SORT_HD void step_regs(K (&k)[E], V (&v)[E]) {
    SORT_UNROLL
    for (int m = 0; m < E; m++)
        if (!(m & (1 << J))) compare_exchange(k[m], k[m | (1 << J)], v[m], v[m | (1 << J)]);
}
// The steps on register bits hi, hi-1, ..., lo (one window of a layout), in one dispatch.
template <int RB, class K, class V>
SORT_HD void run_steps(int hi, int lo, K (&k)[1 << RB], V (&v)[1 << RB]) {
    constexpr int E = 1 << RB;
    switch (hi) {
    default: // 4 (only when RB == 5)
        if constexpr (RB > 4) {
            step_regs<4, E>(k, v);
            if (lo == 4) return;
        }
        [[fallthrough]];
    case 3: // (only when RB >= 4)
        if constexpr (RB > 3) {
            step_regs<3, E>(k, v);
            if (lo == 3) return;
        }
        [[fallthrough]];
    case 2:
        step_regs<2, E>(k, v);
        if (lo == 2) return;
        [[fallthrough]];
    case 1:
        step_regs<1, E>(k, v);
        if (lo == 1) return;
        [[fallthrough]];
    case 0:
        step_regs<0, E>(k, v);
    }
}

// Batcher's odd-even merge sort of registers LO..LO+N-1 (N a power of two), ascending: 191
// compare-exchanges for 32 registers against bitonic's 240 (63 against 80 for 16), used for
// the first RB phases of a tile, which sort each thread's registers (see run_pass).
template <int LO, int N, int R, int E, class K, class V>
SORT_HD void oem_merge(K (&k)[E], V (&v)[E]) {
    constexpr int M = R * 2;
    if constexpr (M < N) {
        oem_merge<LO, N, M>(k, v);
        oem_merge<LO + R, N, M>(k, v);
        SORT_UNROLL
        for (int i = LO + R; i + R < LO + N; i += M)
            compare_exchange(k[i], k[i + R], v[i], v[i + R]);
    } else {
        compare_exchange(k[LO], k[LO + R], v[LO], v[LO + R]);
    }
}
template <int LO, int N, int E, class K, class V> SORT_HD void oem_sort(K (&k)[E], V (&v)[E]) {
    if constexpr (N > 1) {
        oem_sort<LO, N / 2>(k, v);
        oem_sort<LO + N / 2, N / 2>(k, v);
        oem_merge<LO, N, 1>(k, v);
    }
}

// The highest layout of any kernel: tiles of at most 2^(RB+10) (1024 threads).
constexpr int kMaxLayout = 10; // run_plan_rb refuses larger tiles

// Call f(std::integral_constant<int, R>) with R = r, so that the slot of every register of
// layout R is the thread's base slot combined with a compile-time constant.
template <int R = 0, class F> SORT_HD void with_layout(int r, F &&f) {
    if constexpr (R < kMaxLayout) {
        if (r == R)
            f(std::integral_constant<int, R>());
        else
            with_layout<R + 1>(r, f);
    } else {
        f(std::integral_constant<int, R>());
    }
}

// One swizzled array's share of layout R to shared memory (and back, load_slots). Position
// base | m << R of register m has slot swizzle(base) ^ swizzle(m << R): one XOR with a
// constant per register, or 16-byte accesses in layout 0.
template <int RB, int R, class T>
SORT_HD void store_slots(const T (&x)[1 << RB], T *s, uint32_t base) {
    constexpr int E = 1 << RB;
    const uint32_t p = swizzle(base);
    if constexpr (R == 0) { // registers are 16-byte chunks
        SORT_UNROLL
        for (int j = 0; j < E; j += 4) {
            T *c = s + (p ^ (uint32_t)j);
#ifdef __CUDA_ARCH__
            *reinterpret_cast<uint4 *>(c) = make_uint4(x[j], x[j + 1], x[j + 2], x[j + 3]);
#else
            c[0] = x[j], c[1] = x[j + 1], c[2] = x[j + 2], c[3] = x[j + 3];
#endif
        }
    } else {
        SORT_UNROLL
        for (int m = 0; m < E; m++)
            s[p ^ swizzle((uint32_t)m << R)] = x[m];
    }
}
template <int RB, int R, class T>
SORT_HD void load_slots(T (&x)[1 << RB], const T *s, uint32_t base) {
    constexpr int E = 1 << RB;
    const uint32_t p = swizzle(base);
    if constexpr (R == 0) {
        SORT_UNROLL
        for (int j = 0; j < E; j += 4) {
            const T *c = s + (p ^ (uint32_t)j);
#ifdef __CUDA_ARCH__
            const uint4 u = *reinterpret_cast<const uint4 *>(c);
            x[j] = u.x, x[j + 1] = u.y, x[j + 2] = u.z, x[j + 3] = u.w;
#else
            x[j] = c[0], x[j + 1] = c[1], x[j + 2] = c[2], x[j + 3] = c[3];
#endif
        }
    } else {
        SORT_UNROLL
        for (int m = 0; m < E; m++)
            x[m] = s[p ^ swizzle((uint32_t)m << R)];
    }
}

// This thread's registers in layout r to shared memory (and back, read_layout): padded arrays.
// f(m, slot) for each register m: one stride where padded() is linear across the registers,
// else each slot on its own.
template <int RB, class F> SORT_HD void for_padded_slots(uint32_t tid, int r, F &&f) {
    constexpr int E = 1 << RB;
    const uint32_t base = layout_base<RB>(tid, r), stride = slot_stride(r);
    if (stride) {
        const uint32_t p = padded(base);
        SORT_UNROLL
        for (int m = 0; m < E; m++)
            f(m, p + m * stride);
    } else {
        SORT_UNROLL
        for (int m = 0; m < E; m++)
            f(m, padded(base | ((uint32_t)m << r)));
    }
}
template <int RB, class K, class V>
SORT_HD void write_padded(const K (&k)[1 << RB], const V (&v)[1 << RB], K *sk, V *sv, uint32_t tid,
                          int r) {
    for_padded_slots<RB>(tid, r, [&](int m, uint32_t p) {
        sk[p] = k[m];
        if constexpr (has_values<V>()) sv[p] = v[m];
    });
}
template <int RB, class K, class V>
SORT_HD void read_padded(K (&k)[1 << RB], V (&v)[1 << RB], const K *sk, const V *sv, uint32_t tid,
                         int r) {
    for_padded_slots<RB>(tid, r, [&](int m, uint32_t p) {
        k[m] = sk[p];
        if constexpr (has_values<V>()) v[m] = sv[p];
    });
}

// ... swizzled arrays: the layout as a compile-time constant.
template <int RB, class K, class V>
SORT_HD void write_swizzled(const K (&k)[1 << RB], const V (&v)[1 << RB], K *sk, V *sv,
                            uint32_t tid, int r) {
    with_layout(r, [&](auto layout) {
        constexpr int R = decltype(layout)::value;
        const uint32_t base = layout_base<RB>(tid, R);
        store_slots<RB, R>(k, sk, base);
        if constexpr (has_values<V>()) store_slots<RB, R>(v, sv, base);
    });
}
template <int RB, class K, class V>
SORT_HD void read_swizzled(K (&k)[1 << RB], V (&v)[1 << RB], const K *sk, const V *sv, uint32_t tid,
                           int r) {
    with_layout(r, [&](auto layout) {
        constexpr int R = decltype(layout)::value;
        const uint32_t base = layout_base<RB>(tid, R);
        load_slots<RB, R>(k, sk, base);
        if constexpr (has_values<V>()) load_slots<RB, R>(v, sv, base);
    });
}
template <int RB, class K, class V>
SORT_HD void write_layout(const K (&k)[1 << RB], const V (&v)[1 << RB], K *sk, V *sv, uint32_t tid,
                          int r) {
    if constexpr (swizzled<RB, K, V>())
        write_swizzled<RB>(k, v, sk, sv, tid, r);
    else
        write_padded<RB>(k, v, sk, sv, tid, r);
}
template <int RB, class K, class V>
SORT_HD void read_layout(K (&k)[1 << RB], V (&v)[1 << RB], const K *sk, const V *sv, uint32_t tid,
                         int r) {
    if constexpr (swizzled<RB, K, V>())
        read_swizzled<RB>(k, v, sk, sv, tid, r);
    else
        read_padded<RB>(k, v, sk, sv, tid, r);
}

// Registers of layout r -> shared memory -> registers of layout nr. Each slot written here
// was last read by this same thread (when it read layout r), so no barrier comes before.
template <int RB, class K, class V>
__device__ __forceinline__ void exchange_layouts(K (&k)[1 << RB], V (&v)[1 << RB], K *sk, V *sv,
                                                 uint32_t tid, int r, int nr, bool warp_local) {
    write_layout<RB>(k, v, sk, sv, tid, r);
    if (warp_local)
        __syncwarp();
    else
        __syncthreads();
    read_layout<RB>(k, v, sk, sv, tid, nr);
}

// Steps across the blocks of a cluster (the first pass's phases beyond the tile). Block
// rank R holds tile bits 0..t-1 of positions R * 2^t + s; a step on bit t + j pairs each
// element with the one at the same tile position in block R ^ 2^j. Every block runs the same
// schedule, so the partner's thread `tid` holds that element in the same register: each
// thread publishes its registers at slots m * threads + tid (conflict-free, any layout), and
// reads its partner's from the other block's shared memory.
template <int RB, class K, class V>
SORT_HD void cross_publish(const K (&k)[1 << RB], const V (&v)[1 << RB], K *sk, V *sv, uint32_t tid,
                           uint32_t threads) {
    SORT_UNROLL
    for (int m = 0; m < (1 << RB); m++) {
        sk[m * threads + tid] = k[m];
        if constexpr (has_values<V>()) sv[m * threads + tid] = v[m];
    }
}
// Keys ascend in every run at this point (descending runs are complemented), so the block
// with the lower index keeps the smaller of each pair. Ties keep their own element on both
// sides (strict comparisons), so the values stay a permutation.
template <int RB, class K, class V>
SORT_HD void cross_step(K (&k)[1 << RB], V (&v)[1 << RB], const K *pk, const V *pv, uint32_t tid,
                        uint32_t threads, bool upper) {
    SORT_UNROLL
    for (int m = 0; m < (1 << RB); m++) {
        const K y = pk[m * threads + tid];
        const bool take = upper ? y > k[m] : k[m] > y;
        if constexpr (has_values<V>()) {
            const V yv = pv[m * threads + tid];
            v[m] = take ? yv : v[m];
        }
        k[m] = take ? y : k[m];
    }
}

// Merge sort of a whole tile (ninth revision): the first pass of a tile that lies in one
// segment sorts it with one odd-even merge sort per thread (layout 0: 2^RB consecutive
// positions) and then t - RB levels of stable pairwise merges through shared memory, instead
// of the bitonic phases 1..t: O(t) work per element instead of O(t^2). Position p lives at
// slot padded(p), so a thread's 2^RB positions are consecutive slots and the writes of
// layout 0 are conflict-free. The pad slot after each row of 32 holds a copy of the next
// row's first element, so the element after p is always at slot padded(p) + 1 (one address
// for both cases). Stability keeps the missing elements (+infinity, only ever at the top of
// an ascending tile) after every real key, equal ones included, so they end at the top
// again and are never stored.
//
// Whether the merges of runs of 2^w stay inside each warp's positions (whole warps only):
// then only __syncwarp orders them, and the copy of a warp's first element is not written
// into the previous warp's last pad slot (a read there is one past a pair, never taken).
SORT_HD bool merge_warp_local(int w, int RB, int t) {
    return t - RB >= 5 && w + 1 <= RB + 5;
}
template <int RB, class K, class V>
SORT_HD void merge_publish(const K (&k)[1 << RB], const V (&v)[1 << RB], K *sk, V *sv, uint32_t tid,
                           bool warp_local) {
    const uint32_t first = tid << RB, p = padded(first); // padded(first | m) = p + m, m < 32
    SORT_UNROLL
    for (int m = 0; m < (1 << RB); m++) {
        sk[p + m] = k[m];
        if constexpr (has_values<V>()) sv[p + m] = v[m];
    }
    const uint32_t warp_positions = 1u << (RB + 5);
    if (first != 0 && first % 32 == 0 && !(warp_local && first % warp_positions == 0)) {
        sk[p - 1] = k[0];
        if constexpr (has_values<V>()) sv[p - 1] = v[0];
    }
}
// How many of the first d outputs of the stable merge of A = [a0, a0 + n) and
// B = [a0 + n, a0 + 2n) come from A (merge path; A's element first on ties).
template <class K> SORT_HD uint32_t merge_split(const K *sk, uint32_t a0, uint32_t n, uint32_t d) {
    uint32_t lo = d > n ? d - n : 0, hi = d < n ? d : n;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (sk[padded(a0 + mid)] <= sk[padded(a0 + n + d - 1 - mid)])
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
// This thread's 2^RB outputs of merging the sorted runs of 2^w (pairwise) into runs of
// 2^(w+1): a merge path search (merge_split) for the split before its first output, then a
// serial merge into the registers. Reads stay inside the pair of runs, except one past its
// end (B used up), which is never taken. (Measured on the H100: merging the upper half
// backwards at the same time, for two independent chains of loads, was slower: it needs a
// second search.)
template <int RB, class K, class V>
SORT_HD void merge_level(K (&k)[1 << RB], V (&v)[1 << RB], const K *sk, const V *sv, uint32_t tid,
                         int w) {
    const uint32_t n = 1u << w, out0 = tid << RB;
    const uint32_t a0 = out0 & ~(2 * n - 1), b0 = a0 + n, b_end = b0 + n, d = out0 - a0;
    const uint32_t split = merge_split(sk, a0, n, d);
    uint32_t ia = a0 + split, ib = b0 + d - split; // the next to take from A and from B
    K ka = sk[padded(ia)], kb = sk[padded(ib - 1) + 1];
    SORT_UNROLL
    for (int m = 0; m < (1 << RB); m++) {
        const bool take_a = ia < b0 && (ib >= b_end || ka <= kb);
        const uint32_t from = take_a ? ia : ib;
        k[m] = take_a ? ka : kb;
        if constexpr (has_values<V>()) v[m] = sv[padded(from)];
        const K next = sk[padded(from) + 1];
        if (take_a)
            ia = from + 1, ka = next;
        else
            ib = from + 1, kb = next;
    }
}

// The layout that holds step bit s and the bits just below it, down to bit `lo` (the lowest
// step bit of the pass), in registers: greedy windows of RB bits from the top, so a run of
// steps on bits s..lo takes the fewest layouts. top_r = t - RB is the highest layout.
template <int RB> SORT_HD constexpr int layout_for(int s, int top_r, int lo) {
    int r = s - RB + 1;
    if (r < lo) r = lo;
    if (r > top_r) r = top_r;
    if (r < 0) r = 0;
    return r;
}
// Every layout r <= 5 gives a warp the same positions (tile bits 0..RB+4 fixed by the warp
// index: lanes hold bits 0..r-1 and r+RB..RB+4, registers bits r..r+RB-1), when a block has
// whole warps; moving between two of them needs only __syncwarp.
SORT_HD constexpr bool warp_local_move(int r, int nr, int top_r) {
    return top_r >= 5 && r <= 5 && nr <= 5;
}

// The global positions of this thread's elements in layout r. When the registers map to
// evenly spaced virtual indices of one segment (always, unless a tile holds several
// segments or the registers straddle a strided tile's low and high bits), element m is at
// g0 + (m << shift) and exists iff m < count. When they straddle (bits r..low_bits-1 low,
// the rest high), the first 2^split registers are 2^shift apart and the groups of them
// 2^shift_hi apart; this form is used only when all 2^RB elements exist. Else `general`.
struct Span {
    unsigned long long g0;
    int shift, split, shift_hi;
    uint32_t count;
    bool general;
};
template <int RB>
SORT_HD Span span_of(uint32_t base, int r, const TileMap &map, const PassArgs &a) {
    constexpr int E = 1 << RB;
    Span sp{0, 0, RB, 0, 0, true};
    const unsigned long long v0 = map.vindex(base);
    const unsigned long long seg = v0 >> a.seg_log2, i0 = v0 & ((1ull << a.seg_log2) - 1);
    if (r < map.low_bits && r + RB > map.low_bits) { // straddles: two strides
        const int split = map.low_bits - r;
        const unsigned long long span =
            (((1ull << split) - 1) << r) + (((1ull << (RB - split)) - 1) << map.high_lo);
        if (seg >= a.num_segs || i0 + span >= a.seg_len || i0 + span >= (1ull << a.seg_log2))
            return sp;
        sp.general = false;
        sp.shift = r;
        sp.split = split;
        sp.shift_hi = map.high_lo;
        sp.count = E;
        sp.g0 = seg * a.seg_len + i0;
        return sp;
    }
    int shift = -1;
    if (r + RB <= map.low_bits)
        shift = r;
    else if (r >= map.low_bits)
        shift = r - map.low_bits + map.high_lo;
    if (shift < 0) return sp;
    const unsigned long long last = v0 + ((unsigned long long)(E - 1) << shift);
    if ((v0 >> a.seg_log2) != (last >> a.seg_log2)) return sp;
    sp.general = false;
    sp.shift = shift;
    if (seg < a.num_segs && i0 < a.seg_len) {
        const unsigned long long c = ((a.seg_len - 1 - i0) >> shift) + 1;
        sp.count = c < (unsigned long long)E ? (uint32_t)c : (uint32_t)E;
        sp.g0 = seg * a.seg_len + i0;
    }
    return sp;
}
// Offsets from g0 of the registers of a span whose elements all exist, in register order:
// a running offset, since 2^RB 64-bit offsets computed up front would spill.
struct SpanWalk {
    size_t o, step, jump;
    uint32_t low_mask;
    SORT_HD SpanWalk(const Span &sp)
        : o(0), step((size_t)1 << sp.shift),
          jump(((size_t)1 << sp.shift_hi) - (((size_t)1 << sp.split) - 1) * step),
          low_mask((1u << sp.split) - 1) {}
    // Advance from register m to m + 1.
    SORT_HD void next(int m) { o += ((uint32_t)(m + 1) & low_mask) ? step : jump; }
};
// The global index of tile position s, or false if it is a missing (+infinity) element.
SORT_HD bool global_index(uint32_t s, const TileMap &map, const PassArgs &a, size_t *g) {
    const unsigned long long v = map.vindex(s), seg = v >> a.seg_log2,
                             i = v & ((1ull << a.seg_log2) - 1);
    *g = (size_t)(seg * a.seg_len + i);
    return seg < a.num_segs && i < a.seg_len;
}

template <int RB, class K, int KIND, class V>
SORT_HD void sort_load(K (&k)[1 << RB], V (&v)[1 << RB], const K *keys, const V *values,
                       uint32_t tid, int r, const TileMap &map, const PassArgs &a, K flip) {
    constexpr int E = 1 << RB;
    const uint32_t base = layout_base<RB>(tid, r);
    const Span sp = span_of<RB>(base, r, map, a);
    if (!sp.general) {
        const K *pk = keys + sp.g0;
        const V *pv = has_values<V>() ? values + sp.g0 : values;
        if (sp.count == (uint32_t)E && sp.split >= RB) { // all present: all loads in flight
            // A running offset: 2^RB 64-bit offsets at once would spill (64 registers).
            const size_t step = (size_t)1 << sp.shift;
            size_t o = 0;
            SORT_UNROLL
            for (int m = 0; m < E; m++, o += step) {
                k[m] = map_key<K>(pk[o], KIND) ^ flip;
                if constexpr (has_values<V>()) v[m] = pv[o];
            }
            return;
        }
        if (sp.count == (uint32_t)E) { // two strides
            SpanWalk w(sp);
            SORT_UNROLL
            for (int m = 0; m < E; w.next(m), m++) {
                k[m] = map_key<K>(pk[w.o], KIND) ^ flip;
                if constexpr (has_values<V>()) v[m] = pv[w.o];
            }
            return;
        }
        const size_t step = (size_t)1 << sp.shift;
        size_t o = 0;
        SORT_UNROLL
        for (int m = 0; m < E; m++, o += step) {
            if ((uint32_t)m < sp.count) {
                k[m] = map_key<K>(pk[o], KIND) ^ flip;
                if constexpr (has_values<V>()) v[m] = pv[o];
            } else {
                k[m] = ~K(0); // missing: +infinity
                if constexpr (has_values<V>()) v[m] = V(0);
            }
        }
        return;
    }
    SORT_UNROLL
    for (int m = 0; m < E; m++) {
        size_t g;
        if (global_index(base | ((uint32_t)m << r), map, a, &g)) {
            k[m] = map_key<K>(keys[g], KIND) ^ flip;
            if constexpr (has_values<V>()) v[m] = values[g];
        } else {
            k[m] = ~K(0); // missing: +infinity
            if constexpr (has_values<V>()) v[m] = V(0);
        }
    }
}

template <int RB, class K, int KIND, class V>
SORT_HD void sort_store(const K (&k)[1 << RB], const V (&v)[1 << RB], K *keys, V *values,
                        uint32_t tid, int r, const TileMap &map, const PassArgs &a, K flip) {
    constexpr int E = 1 << RB;
    const uint32_t base = layout_base<RB>(tid, r);
    const Span sp = span_of<RB>(base, r, map, a);
    if (!sp.general) {
        K *pk = keys + sp.g0;
        V *pv = has_values<V>() ? values + sp.g0 : values;
        if (sp.count == (uint32_t)E && sp.split >= RB) {
            const size_t step = (size_t)1 << sp.shift;
            size_t o = 0;
            SORT_UNROLL
            for (int m = 0; m < E; m++, o += step) {
                pk[o] = unmap_key<K>(k[m] ^ flip, KIND);
                if constexpr (has_values<V>()) pv[o] = v[m];
            }
            return;
        }
        if (sp.count == (uint32_t)E) { // two strides
            SpanWalk w(sp);
            SORT_UNROLL
            for (int m = 0; m < E; w.next(m), m++) {
                pk[w.o] = unmap_key<K>(k[m] ^ flip, KIND);
                if constexpr (has_values<V>()) pv[w.o] = v[m];
            }
            return;
        }
        const size_t step = (size_t)1 << sp.shift;
        size_t o = 0;
        SORT_UNROLL
        for (int m = 0; m < E; m++, o += step) {
            if ((uint32_t)m >= sp.count) break;
            pk[o] = unmap_key<K>(k[m] ^ flip, KIND);
            if constexpr (has_values<V>()) pv[o] = v[m];
        }
        return;
    }
    SORT_UNROLL
    for (int m = 0; m < E; m++) {
        size_t g;
        if (global_index(base | ((uint32_t)m << r), map, a, &g)) {
            keys[g] = unmap_key<K>(k[m] ^ flip, KIND);
            if constexpr (has_values<V>()) values[g] = v[m];
        }
    }
}

// The block's view of a pass.
struct PassShape {
    TileMap map;
    int t, top_r, io_r, bottom;
    SORT_HD int phase_top(int q) const {
        return map.high_bits == 0 ? (q < map.low_bits ? q : map.low_bits) - 1 : t - 1;
    }
};
template <int RB> SORT_HD PassShape pass_shape(const PassArgs &a, unsigned long long block) {
    PassShape sh;
    sh.t = a.low_bits + a.high_bits;
    sh.top_r = sh.t - RB;                          // the highest layout
    sh.bottom = a.high_bits == 0 ? 0 : a.low_bits; // the lowest step bit of every phase
    // The lowest layout whose lanes are as contiguous as the tile allows (lanes hold tile bits
    // 0..r-1 first): 32 elements, or the 2^low_bits of a strided tile's runs.
    sh.io_r = sh.top_r < 5 ? sh.top_r : 5;
    if (a.high_bits != 0 && a.low_bits < sh.io_r) sh.io_r = a.low_bits;
    const int gap_bits = a.high_lo - a.low_bits; // block bits between the low and high bits
    sh.map.low_bits = a.low_bits;
    sh.map.high_lo = a.high_lo;
    sh.map.high_bits = a.high_bits;
    sh.map.low_mask = (1ull << a.low_bits) - 1;
    sh.map.block_v = ((block & ((1ull << gap_bits) - 1)) << a.low_bits) |
                     ((block >> gap_bits) << (a.high_lo + a.high_bits));
    return sh;
}

// A first pass sorts each whole tile with merge sort (merge_level) when asked and when its
// contiguous tiles each lie in one segment (phases 1..t all run inside a tile).
SORT_HD bool tile_merge_applies(const PassArgs &a, const PassShape &sh) {
    return a.tile_merge && a.phase_first == 1 && sh.map.high_bits == 0 && a.seg_log2 >= sh.t &&
           a.phase_last >= sh.t;
}

// The schedule of a pass, the same for every thread: load, register steps, layout changes
// through shared memory, direction flips at phase boundaries, store. `ops` runs each action
// for one thread (the kernel) or for every thread of a block in turn (the host simulation).
#pragma nv_exec_check_disable
template <int RB, class Ops>
SORT_HD void run_pass(const PassArgs &a, const PassShape &sh, Ops &ops) {
    int r = layout_for<RB>(sh.phase_top(a.phase_first), sh.top_r, sh.bottom);
    if (r < sh.io_r) r = sh.io_r; // load with coalesced lanes
    ops.load(r);
    int q0 = a.phase_first;
    if (tile_merge_applies(a, sh)) {
        // Sort the tile ascending with phase t's complement, i.e. in phase t's direction.
        if (r != 0) ops.exchange(r, 0, warp_local_move(r, 0, sh.top_r));
        r = 0;
        ops.flip(r, sh.t, -1);
        ops.sort_tile();
        ops.flip(r, sh.t, sh.t < a.phase_last ? sh.t + 1 : -1);
        q0 = sh.t + 1;
    } else if (Ops::merge_network && q0 == 1 && sh.map.high_bits == 0 && a.phase_last >= RB) {
        // Phases 1..RB sort the runs of 2^RB that layout 0 gives each thread, ascending or
        // descending by phase RB's mask: any sorting network does that, and odd-even merge
        // sort needs fewer compare-exchanges (and no flips) than the bitonic phases.
        if (r != 0) ops.exchange(r, 0, warp_local_move(r, 0, sh.top_r));
        r = 0;
        ops.flip(r, RB, -1);
        ops.sort_regs();
        ops.flip(r, RB, RB < a.phase_last ? RB + 1 : -1);
        q0 = RB + 1;
    } else {
        ops.flip(r, q0, -1);
    }
    for (int q = q0; q <= a.phase_last; q++) {
        if (a.cluster_log2 > 0 && q > sh.t) ops.cross_steps(q - 1, sh.t);
        for (int s = sh.phase_top(q); s >= sh.bottom;) {
            if (s < r || s >= r + RB) {
                const int nr = layout_for<RB>(s, sh.top_r, sh.bottom);
                ops.exchange(r, nr, warp_local_move(r, nr, sh.top_r));
                r = nr;
            }
            const int lo =
                r > sh.bottom ? r : sh.bottom; // the steps on bits s..lo are in registers
            ops.steps(s - r, lo - r);
            s = lo - 1;
        }
        ops.flip(r, q, q < a.phase_last ? q + 1 : -1);
    }
    if (r < sh.io_r) {
        ops.exchange(r, sh.io_r, warp_local_move(r, sh.io_r, sh.top_r));
        r = sh.io_r;
    }
    ops.store(r);
}

// A later pass: one phase q > t, either the steps on bits t-1..0 of a contiguous tile (h = 0)
// or the steps on the h strided bits of a strided tile. Either tile lies in one run of phase
// q, so it has one direction, folded into the key flip of the load and the store. Its schedule
// is fixed by t and h, so the kernels for the default tiles run it with every layout and step
// at compile time (run_fixed_pass): no step dispatch, no flips, and loads and stores at
// constant offsets (the tenth revision's profile found 9 register moves and 9 flips or
// addresses per element in the general schedule).
SORT_HD bool fixed_pass_applies(const PassArgs &a) {
    return a.phase_first == a.phase_last && a.cluster_log2 == 0 &&
           (a.high_bits > 0 || a.phase_first > a.low_bits);
}
// The key flip of such a pass: the sort's (descending order) XOR the tile's phase direction.
template <int RB, class K> SORT_HD K fixed_flip(const PassArgs &a, const PassShape &sh, K flip) {
    return desc_bits<RB>(a.phase_first, 0, 0, sh.map, a.seg_len, a.seg_log2) ? K(~flip) : flip;
}
// Whether the tile holds any real element (the tiles past the end of a segment whose length is
// not a power of two do not, and skip the pass).
SORT_HD bool fixed_tile_has_elements(const PassArgs &a, const PassShape &sh) {
    return (sh.map.vindex(0) & ((1ull << a.seg_log2) - 1)) < a.seg_len;
}
// Hide a pointer's value from the optimiser (no code), so that it does not reuse addresses
// computed from the same pointer earlier.
template <class T> SORT_HD void opaque(T *&p) {
#ifdef __CUDA_ARCH__
    asm volatile("" : "+l"(p));
#else
    (void)p;
#endif
}
template <int RB, int L, int R> struct FixedSpan {
    static constexpr int S = L - R < 0    ? 0
                             : L - R > RB ? RB
                                          : L - R,
                         NL = 1 << S, NH = 1 << (RB - S);
    unsigned long long i0; // the index of register 0 in its segment
    size_t g0;             // ... and in the array
    size_t row_stride;     // between registers m and m + NL
    bool all;              // every register is a real element (else: those at index < seg_len)
    SORT_HD FixedSpan(uint32_t tid, const TileMap &map, const PassArgs &a) {
        const unsigned long long v0 = map.vindex(layout_base<RB>(tid, R));
        i0 = v0 & ((1ull << a.seg_log2) - 1);
        g0 = (size_t)((v0 >> a.seg_log2) * a.seg_len + i0);
        row_stride = S < RB ? (size_t)1 << (map.high_lo + R + S - L) : 0;
        all = i0 + ((unsigned long long)(NL - 1) << R) + (NH - 1) * row_stride < a.seg_len;
    }
};
// Rows of NL registers at constant offsets, one running pointer: 2^RB addresses computed up
// front would spill.
template <int RB, int L, int R, class K, int KIND, class V>
SORT_HD void load_fixed(K (&k)[1 << RB], V (&v)[1 << RB], const K *keys, const V *values,
                        uint32_t tid, const TileMap &map, const PassArgs &a, K flip) {
    using Span = FixedSpan<RB, L, R>;
    const Span sp(tid, map, a);
    const K *pk = keys + sp.g0;
    const V *pv = has_values<V>() ? values + sp.g0 : values;
    if (sp.all) { // the common case, without tests
        SORT_UNROLL
        for (int j = 0; j < Span::NH; j++, pk += sp.row_stride) {
            SORT_UNROLL
            for (int i = 0; i < Span::NL; i++) {
                k[j * Span::NL + i] = map_key<K>(pk[(size_t)i << R], KIND) ^ flip;
                if constexpr (has_values<V>()) v[j * Span::NL + i] = pv[(size_t)i << R];
            }
            if constexpr (has_values<V>()) pv += sp.row_stride;
        }
        return;
    }
    unsigned long long row = sp.i0;
    SORT_UNROLL
    for (int j = 0; j < Span::NH; j++, pk += sp.row_stride, row += sp.row_stride) {
        SORT_UNROLL
        for (int i = 0; i < Span::NL; i++) {
            const int m = j * Span::NL + i;
            if (row + ((unsigned long long)i << R) < a.seg_len) {
                k[m] = map_key<K>(pk[(size_t)i << R], KIND) ^ flip;
                if constexpr (has_values<V>()) v[m] = pv[(size_t)i << R];
            } else {
                k[m] = ~K(0); // missing: +infinity (only in an ascending tile)
                if constexpr (has_values<V>()) v[m] = V(0);
            }
        }
        if constexpr (has_values<V>()) pv += sp.row_stride;
    }
}
template <int RB, int L, int R, class K, int KIND, class V>
SORT_HD void store_fixed(const K (&k)[1 << RB], const V (&v)[1 << RB], K *keys, V *values,
                         uint32_t tid, const TileMap &map, const PassArgs &a, K flip) {
    using Span = FixedSpan<RB, L, R>;
    const Span sp(tid, map, a);
    K *pk = keys + sp.g0;
    V *pv = has_values<V>() ? values + sp.g0 : values;
    // The same addresses as the load's, but computed anew: reused, they would outlive the steps
    // (a 64-bit address per row) and spill.
    opaque(pk);
    if constexpr (has_values<V>()) opaque(pv);
    unsigned long long row = sp.i0;
    SORT_UNROLL
    for (int j = 0; j < Span::NH; j++, pk += sp.row_stride, row += sp.row_stride) {
        SORT_UNROLL
        for (int i = 0; i < Span::NL; i++) {
            const int m = j * Span::NL + i;
            if (sp.all || row + ((unsigned long long)i << R) < a.seg_len) {
                pk[(size_t)i << R] = unmap_key<K>(k[m] ^ flip, KIND);
                if constexpr (has_values<V>()) pv[(size_t)i << R] = v[m];
            }
        }
        if constexpr (has_values<V>()) pv += sp.row_stride;
    }
}
// The compile-time shape of a fixed pass on tiles of 2^T with H strided bits (0: contiguous),
// as pass_shape and run_pass choose it at run time.
template <int RB, int T, int H> struct FixedShape {
    static constexpr int L = T - H, bottom = H ? L : 0, top_r = T - RB,
                         io_r = top_r < 5 ? (top_r < L ? top_r : L) : (5 < L ? 5 : L);
};
// The steps on tile bits S .. max(R, bottom) in layout R, then the next windows (the layouts
// of layout_for), then the store.
#pragma nv_exec_check_disable
template <int RB, int T, int H, int R, int S, class Ops> SORT_HD void fixed_windows(Ops &ops) {
    using F = FixedShape<RB, T, H>;
    constexpr int lo = R > F::bottom ? R : F::bottom;
    ops.steps(S - R, lo - R);
    if constexpr (lo - 1 >= F::bottom) {
        constexpr int NR = layout_for<RB>(lo - 1, F::top_r, F::bottom);
        ops.exchange(R, NR, warp_local_move(R, NR, F::top_r));
        fixed_windows<RB, T, H, NR, lo - 1>(ops);
    } else if constexpr (R < F::io_r) {
        ops.exchange(R, F::io_r, warp_local_move(R, F::io_r, F::top_r));
        ops.template store_fixed_tile<F::L, F::io_r>();
    } else {
        ops.template store_fixed_tile<F::L, R>();
    }
}
// The schedule of a later pass on tiles of 2^T with H strided bits (fixed_pass_applies), for
// ops made with the key flip fixed_flip gives: the windows run_pass would take.
#pragma nv_exec_check_disable
template <int RB, int T, int H, class Ops>
SORT_HD void run_fixed_pass(const PassArgs &a, const PassShape &sh, Ops &ops) {
    using F = FixedShape<RB, T, H>;
    static_assert(T >= RB && H < T, "a tile holds whole threads and a low run");
    if (!fixed_tile_has_elements(a, sh)) return;
    constexpr int first = layout_for<RB>(T - 1, F::top_r, F::bottom);
    constexpr int r0 = first < F::io_r ? F::io_r : first; // load with coalesced lanes
    ops.template load_fixed_tile<F::L, r0>();
    fixed_windows<RB, T, H, r0, T - 1>(ops);
}

// Sort the first RB phases' runs with odd-even merge sort (run_pass)? Measured on the H100
// (2026-11-21): +1-3% for 8-byte keys, flat for pairs, -2% for 4-byte keys only (the
// 64-register kernel), which keep the bitonic phases.
template <class K, class V> __host__ __device__ constexpr bool use_merge_network() {
    return !(sizeof(K) == 4 && !has_values<V>());
}

// The actions of run_pass for one thread's registers.
template <int RB, class K, int KIND, class V> struct ThreadOps {
    static constexpr bool merge_network = use_merge_network<K, V>();
    K (&k)[1 << RB];
    V (&v)[1 << RB];
    K *keys, *sk;
    V *values, *sv;
    uint32_t tid;
    const PassArgs &a;
    const PassShape &sh;
    K flip_key;
    __device__ __forceinline__ void load(int r) {
        sort_load<RB, K, KIND, V>(k, v, keys, values, tid, r, sh.map, a, flip_key);
    }
    __device__ __forceinline__ void store(int r) {
        sort_store<RB, K, KIND, V>(k, v, keys, values, tid, r, sh.map, a, flip_key);
    }
    template <int L, int R> __device__ __forceinline__ void load_fixed_tile() {
        load_fixed<RB, L, R, K, KIND, V>(k, v, keys, values, tid, sh.map, a, flip_key);
    }
    template <int L, int R> __device__ __forceinline__ void store_fixed_tile() {
        store_fixed<RB, L, R, K, KIND, V>(k, v, keys, values, tid, sh.map, a, flip_key);
    }
    __device__ __forceinline__ void steps(int hi, int lo) { run_steps<RB>(hi, lo, k, v); }
    __device__ __forceinline__ void sort_regs() { oem_sort<0, 1 << RB>(k, v); }
    __device__ __forceinline__ void sort_tile() {
        oem_sort<0, 1 << RB>(k, v);
        for (int w = RB; w < sh.t; w++) {
            const bool warp_local = merge_warp_local(w, RB, sh.t);
            // Every earlier read of the slots this publish writes (the move into layout 0, a
            // merge, a read one past a pair) is done.
            if (w > RB && warp_local)
                __syncwarp();
            else
                __syncthreads();
            merge_publish<RB>(k, v, sk, sv, tid, warp_local);
            if (warp_local)
                __syncwarp();
            else
                __syncthreads();
            merge_level<RB>(k, v, sk, sv, tid, w);
        }
        __syncthreads(); // the last merge's reads are done before the slots are rewritten
    }
    __device__ __forceinline__ void exchange(int r, int nr, bool warp_local) {
        exchange_layouts<RB>(k, v, sk, sv, tid, r, nr, warp_local);
    }
    __device__ __forceinline__ void flip(int r, int q, int next) {
        flip_phases<RB>(k, tid, r, q, next, sh.map, a);
    }
    // The steps on bits hi .. lo (>= t) across the cluster's blocks.
    // Clusters exist from sm_90 on; the planner (sort.c) uses them only there, so the older
    // GPUs' code never reaches this.
    __device__ __forceinline__ void cross_steps(int hi, int lo) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        (void)hi, (void)lo;
        __trap();
#else
        namespace cg = cooperative_groups;
        cg::cluster_group cluster = cg::this_cluster();
        const uint32_t threads = blockDim.x, rank = cluster.block_rank();
        for (int b = hi; b >= lo; b--) {
            cluster.sync(); // nobody still reads this block's slots (an exchange, a partner)
            cross_publish<RB>(k, v, sk, sv, tid, threads);
            cluster.sync();
            const uint32_t partner = rank ^ (1u << (b - lo));
            cross_step<RB>(k, v, cluster.map_shared_rank(sk, partner),
                           cluster.map_shared_rank(sv, partner), tid, threads,
                           (rank >> (b - lo)) & 1u);
        }
        cluster.sync(); // the partners' reads are done before this block writes or exits
#endif
    }
};

extern __shared__ __align__(16) unsigned long long smem_raw[]; // 16-byte accesses

// The start of every pass's kernel: a pass is launched as a programmatic dependent of the
// previous one, so wait for that to finish (and its stores to be visible), then let the next
// pass's blocks be scheduled.
__device__ __forceinline__ void pass_prologue() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

// One pass: every thread runs the schedule on its registers.
template <int RB, class K, int KIND, class V>
__global__ void __launch_bounds__(max_threads<K, V, RB>(), 1)
    sort_pass_kernel(K *keys, V *values, PassArgs a, K flip, uint32_t value_offset) {
    K *sk = reinterpret_cast<K *>(smem_raw);
    V *sv = reinterpret_cast<V *>(reinterpret_cast<char *>(smem_raw) + value_offset);
    const PassShape sh = pass_shape<RB>(a, blockIdx.x);
    pass_prologue();
    K k[1 << RB];
    V v[1 << RB];
    ThreadOps<RB, K, KIND, V> ops{k, v, keys, sk, values, sv, threadIdx.x, a, sh, flip};
    run_pass<RB>(a, sh, ops);
}

// A later pass on tiles of 2^T with H strided bits (run_fixed_pass), with the register budget
// of sort_pass_kernel (the same blocks per SM).
template <int RB, int T, int H, class K, int KIND, class V>
__global__ void __launch_bounds__(1 << (T - RB), max_threads<K, V, RB>() >> (T - RB))
    sort_fixed_kernel(K *keys, V *values, PassArgs a, K flip, uint32_t value_offset) {
    K *sk = reinterpret_cast<K *>(smem_raw);
    V *sv = reinterpret_cast<V *>(reinterpret_cast<char *>(smem_raw) + value_offset);
    const PassShape sh = pass_shape<RB>(a, blockIdx.x);
    pass_prologue();
    K k[1 << RB];
    V v[1 << RB];
    ThreadOps<RB, K, KIND, V> ops{k,  v,           keys, sk, values,
                                  sv, threadIdx.x, a,    sh, fixed_flip<RB>(a, sh, flip)};
    run_fixed_pass<RB, T, H>(a, sh, ops);
}

template <class K, class V> using PassKernel = void (*)(K *, V *, PassArgs, K, uint32_t);

// The fixed kernels are compiled for the wide kernels' tiles of 2^12 to 2^14 (the default
// tiles of sorts above 2^18) that fit a block, and for strided passes of up to kFixedMaxH
// bits; other passes run sort_pass_kernel.
constexpr int kFixedMinT = 12, kFixedMaxT = 14, kFixedMaxH = 9;
template <int RB, class K, class V>
__host__ __device__ constexpr bool has_fixed_kernel(int t, int h) {
    return RB == reg_log2<K, V>() && t >= kFixedMinT && t <= kFixedMaxT &&
           t - RB <= 9 /* 512 threads */ && h >= 0 && h <= kFixedMaxH;
}
template <int RB, int T, class K, int KIND, class V, int... H>
PassKernel<K, V> fixed_kernel_of(int h, std::integer_sequence<int, H...>) {
    const PassKernel<K, V> table[] = {sort_fixed_kernel<RB, T, H, K, KIND, V>...};
    return h >= 0 && h < (int)sizeof...(H) ? table[h] : nullptr;
}
// The fixed kernel of a pass of the wide kernels (reg_log2), or null: defined here, compiled
// in sort_fixed_u32.cu and sort_fixed_u64.cu (explicit instantiations, in parallel with
// sort_cuda.cu, which declares them extern).
template <class K, int KIND, class V> PassKernel<K, V> fixed_kernel(int t, int h) {
    constexpr int RB = reg_log2<K, V>();
    using Hs = std::make_integer_sequence<int, kFixedMaxH + 1>;
    if (!has_fixed_kernel<RB, K, V>(t, h)) return nullptr;
    switch (t) {
    case 12:
        return fixed_kernel_of<RB, 12, K, KIND, V>(h, Hs());
    case 13:
        return fixed_kernel_of<RB, 13, K, KIND, V>(h, Hs());
    default:
        if constexpr (RB + 9 >= 14) return fixed_kernel_of<RB, 14, K, KIND, V>(h, Hs());
        return nullptr;
    }
}

// Every key and value type: F(K, KIND, V) for the explicit instantiations.
#define STSORT_FOR_KINDS(F, K)                                                                     \
    F(K, STSORT_UNSIGNED, NoValue)                                                                 \
    F(K, STSORT_SIGNED, NoValue)                                                                   \
    F(K, STSORT_FLOAT, NoValue)                                                                    \
    F(K, STSORT_UNSIGNED, uint32_t)                                                                \
    F(K, STSORT_SIGNED, uint32_t)                                                                  \
    F(K, STSORT_FLOAT, uint32_t)                                                                   \
    F(K, STSORT_UNSIGNED, uint64_t)                                                                \
    F(K, STSORT_SIGNED, uint64_t)                                                                  \
    F(K, STSORT_FLOAT, uint64_t)
#define STSORT_FIXED_KERNEL(K, KIND, V) PassKernel<K, V> fixed_kernel<K, KIND, V>(int, int);

} // namespace stsort_kernels

#endif // STENC_SORT_KERNELS_CUH
