// A host simulation of the sort's CUDA kernel: the very same schedule (run_pass) and helpers
// (loads, register steps, layouts, direction flips, stores) from runtime/sort/sort_kernels.cuh,
// run for every thread of every block in turn, on the pass plan of the C side. No GPU needed,
// so a CPU-only machine checks the kernel's logic: the output must equal std::sort's (with
// values beside their keys), and every move the kernel makes with only __syncwarp must keep
// each warp's shared-memory slots inside the warp.
#include "sort_internal.h"
#include "sort_kernels.cuh"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include "stenc/stenc.h"
extern "C" { // cmocka's header has no C++ guard
#include "test_util.h"
}

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

namespace {

using namespace stsort_kernels;

int g_sim_tile_merge = 1;   // PassArgs::tile_merge of every simulated pass
int g_sim_fixed_passes = 1; // later passes by run_fixed_pass where the kernels have one

// The actions of run_pass for all threads of one block (threads run one after the other
// between barriers, which is one legal interleaving of the kernel).
template <int RB, class K, int KIND, class V> struct BlockOps {
    static constexpr int E = 1 << RB;
    static constexpr bool merge_network = use_merge_network<K, V>();
    struct Regs {
        K k[E];
        V v[E];
    };
    std::vector<Regs> regs;
    std::vector<K> sk;
    std::vector<V> sv;
    K *keys;
    V *values;
    const PassArgs &a;
    const PassShape &sh;
    K flip_key;
    bool warp_ok = true;
    BlockOps(uint32_t threads, size_t slots, K *kk, V *vv, const PassArgs &aa, const PassShape &s,
             K f)
        : regs(threads), sk(slots), sv(slots), keys(kk), values(vv), a(aa), sh(s), flip_key(f) {}
    void load(int r) {
        for (uint32_t t = 0; t < regs.size(); t++)
            sort_load<RB, K, KIND, V>(regs[t].k, regs[t].v, keys, values, t, r, sh.map, a,
                                      flip_key);
    }
    void store(int r) {
        for (uint32_t t = 0; t < regs.size(); t++)
            sort_store<RB, K, KIND, V>(regs[t].k, regs[t].v, keys, values, t, r, sh.map, a,
                                       flip_key);
    }
    template <int L, int R> void load_fixed_tile() {
        for (uint32_t t = 0; t < regs.size(); t++)
            load_fixed<RB, L, R, K, KIND, V>(regs[t].k, regs[t].v, keys, values, t, sh.map, a,
                                             flip_key);
    }
    template <int L, int R> void store_fixed_tile() {
        for (uint32_t t = 0; t < regs.size(); t++)
            store_fixed<RB, L, R, K, KIND, V>(regs[t].k, regs[t].v, keys, values, t, sh.map, a,
                                              flip_key);
    }
    void steps(int hi, int lo) {
        for (auto &x : regs)
            run_steps<RB>(hi, lo, x.k, x.v);
    }
    void sort_regs() {
        for (auto &x : regs)
            oem_sort<0, E>(x.k, x.v);
    }
    void sort_tile() {
        sort_regs();
        const uint32_t threads = (uint32_t)regs.size();
        for (int w = RB; w < sh.t; w++) {
            // A merge with only __syncwarp runs each warp alone: other warps' slots hold
            // garbage, so an element taken from them shows up.
            const bool warp_local = merge_warp_local(w, RB, sh.t);
            const uint32_t group = warp_local ? 32 : threads;
            for (uint32_t g = 0; g < threads; g += group) {
                std::fill(sk.begin(), sk.end(), K(0x5A5A5A5A)); // an unwritten slot shows up
                std::fill(sv.begin(), sv.end(), V());
                for (uint32_t i = g; i < g + group; i++)
                    merge_publish<RB>(regs[i].k, regs[i].v, sk.data(), sv.data(), i, warp_local);
                for (uint32_t i = g; i < g + group; i++)
                    merge_level<RB>(regs[i].k, regs[i].v, sk.data(), sv.data(), i, w);
            }
        }
    }
    void flip(int r, int q, int next) {
        for (uint32_t t = 0; t < regs.size(); t++)
            flip_phases<RB>(regs[t].k, t, r, q, next, sh.map, a);
    }
    // The warp of the thread that holds slot p in layout r.
    std::vector<int> warp_of(int r) {
        std::vector<int> w(sk.size(), -1);
        for (uint32_t t = 0; t < regs.size(); t++)
            for (int m = 0; m < E; m++)
                w[smem_slot<RB, K, V>(layout_base<RB>(t, r) | ((uint32_t)m << r))] = (int)(t / 32);
        return w;
    }
    void exchange(int r, int nr, bool warp_local) {
        if (warp_local && warp_of(r) != warp_of(nr)) warp_ok = false;
        std::fill(sk.begin(), sk.end(), K(0x5A5A5A5A)); // an unwritten slot shows up
        for (uint32_t t = 0; t < regs.size(); t++)
            write_layout<RB>(regs[t].k, regs[t].v, sk.data(), sv.data(), t, r);
        for (uint32_t t = 0; t < regs.size(); t++)
            read_layout<RB>(regs[t].k, regs[t].v, sk.data(), sv.data(), t, nr);
    }
    void cross_steps(int, int) { fail_msg("cross-block steps outside a cluster"); }
};

// The actions of run_pass for the blocks of one cluster, one block after the other; the steps
// across blocks publish every block's registers before any block reads its partner's.
template <int RB, class K, int KIND, class V> struct ClusterOps {
    static constexpr bool merge_network = use_merge_network<K, V>();
    std::vector<BlockOps<RB, K, KIND, V>> &blocks;
    void load(int r) {
        for (auto &b : blocks)
            b.load(r);
    }
    void store(int r) {
        for (auto &b : blocks)
            b.store(r);
    }
    void steps(int hi, int lo) {
        for (auto &b : blocks)
            b.steps(hi, lo);
    }
    void sort_regs() {
        for (auto &b : blocks)
            b.sort_regs();
    }
    void sort_tile() {
        for (auto &b : blocks)
            b.sort_tile();
    }
    void flip(int r, int q, int next) {
        for (auto &b : blocks)
            b.flip(r, q, next);
    }
    void exchange(int r, int nr, bool warp_local) {
        for (auto &b : blocks)
            b.exchange(r, nr, warp_local);
    }
    void cross_steps(int hi, int lo) {
        const uint32_t threads = (uint32_t)blocks[0].regs.size();
        for (int bit = hi; bit >= lo; bit--) {
            for (auto &b : blocks) {
                std::fill(b.sk.begin(), b.sk.end(), K(0x5A5A5A5A));
                for (uint32_t t = 0; t < threads; t++)
                    cross_publish<RB>(b.regs[t].k, b.regs[t].v, b.sk.data(), b.sv.data(), t,
                                      threads);
            }
            for (uint32_t rank = 0; rank < blocks.size(); rank++) {
                const auto &p = blocks[rank ^ (1u << (bit - lo))];
                for (uint32_t t = 0; t < threads; t++)
                    cross_step<RB>(blocks[rank].regs[t].k, blocks[rank].regs[t].v, p.sk.data(),
                                   p.sv.data(), t, threads, (rank >> (bit - lo)) & 1u);
            }
        }
    }
};

// run_fixed_pass<RB, T, H> for the pass's tile t and strided bits h, as the kernels have it.
template <int RB, int T, int H, class Ops>
void fixed_pass_for(int t, int h, const PassArgs &a, const PassShape &sh, Ops &ops) {
    if constexpr (T > kFixedMaxT || T - RB > 9) {
        fail_msg("no fixed kernel for tiles of 2^%d", t);
    } else if constexpr (H > kFixedMaxH) {
        fixed_pass_for<RB, T + 1, 0>(t, h, a, sh, ops);
    } else if (t != T) {
        fixed_pass_for<RB, T + 1, 0>(t, h, a, sh, ops);
    } else if (h != H) {
        fixed_pass_for<RB, T, H + 1>(t, h, a, sh, ops);
    } else {
        run_fixed_pass<RB, T, H>(a, sh, ops);
    }
}

// Sort on the host through the kernel's code (the wide or the narrow kernel, as the C side
// configures it), phases from_phase..to_phase, and where below > 0 only the tiles below it (as
// the CUDA side runs a job); false if a warp-local move left its warp.
template <int RB, class K, int KIND, class V>
bool simulate_rb(K *keys, V *values, size_t len, size_t segs, bool desc, const stsort_config &cfg,
                 int from_phase, int to_phase, unsigned long long below) {
    static stsort_pass passes[STSORT_MAX_PASSES];
    const int count = stsort_plan(&cfg, segs, passes, STSORT_MAX_PASSES);
    assert_true(count >= 0);
    bool warp_ok = true;
    for (int i = 0; i < count; i++) {
        const stsort_pass &p = passes[i];
        if (p.phase_first < from_phase) continue;
        if (p.phase_first > to_phase) break;
        PassArgs a{len,         segs,          cfg.seg_log2, p.low_bits,     p.high_lo,
                   p.high_bits, p.phase_first, p.phase_last, p.cluster_log2, g_sim_tile_merge};
        const int t = p.low_bits + p.high_bits;
        assert_int_equal(t, i == 0 ? cfg.first_tile_log2 : cfg.tile_log2);
        // The launch's blocks: the tiles past the last one with two real elements do not run.
        unsigned long long tiles = stsort_pass_blocks(&p, cfg.seg_log2, len, segs);
        if (below > 0) tiles = stsort_blocks_below(&p, below, tiles);
        if (p.cluster_log2 > 0) {
            const unsigned long long size = 1ull << p.cluster_log2;
            assert_int_equal(i, 0);
            assert_int_equal(tiles % size, 0);
            for (unsigned long long c = 0; c < tiles; c += size) {
                std::vector<PassShape> shapes;
                for (unsigned long long b = 0; b < size; b++)
                    shapes.push_back(pass_shape<RB>(a, c + b));
                std::vector<BlockOps<RB, K, KIND, V>> blocks;
                for (unsigned long long b = 0; b < size; b++)
                    blocks.emplace_back(1u << (t - RB), stsort_smem_slots(t), keys, values, a,
                                        shapes[b], desc ? ~K(0) : K(0));
                ClusterOps<RB, K, KIND, V> ops{blocks};
                run_pass<RB>(a, shapes[0], ops);
                for (auto &b : blocks)
                    warp_ok = warp_ok && b.warp_ok;
            }
            continue;
        }
        const bool fixed = g_sim_fixed_passes && fixed_pass_applies(a) &&
                           has_fixed_kernel<RB, K, V>(t, p.high_bits);
        for (unsigned long long b = 0; b < tiles; b++) {
            const PassShape sh = pass_shape<RB>(a, b);
            const K flip = desc ? ~K(0) : K(0);
            BlockOps<RB, K, KIND, V> ops(1u << (t - RB), stsort_smem_slots(t), keys, values, a, sh,
                                         fixed ? fixed_flip<RB>(a, sh, flip) : flip);
            if (fixed)
                fixed_pass_for<RB, kFixedMinT, 0>(t, p.high_bits, a, sh, ops);
            else
                run_pass<RB>(a, sh, ops);
            warp_ok = warp_ok && ops.warp_ok;
        }
    }
    return warp_ok;
}
template <class K, int KIND, class V>
bool simulate_job(K *keys, V *values, size_t len, size_t segs, bool desc, const stsort_config &cfg,
                  int from_phase = 1, int to_phase = INT_MAX, unsigned long long below = 0) {
    if (cfg.reg_log2 == STSORT_REG_LOG2_NARROW)
        return simulate_rb<STSORT_REG_LOG2_NARROW, K, KIND, V>(keys, values, len, segs, desc, cfg,
                                                               from_phase, to_phase, below);
    assert_int_equal(cfg.reg_log2, (reg_log2<K, V>()));
    return simulate_rb<reg_log2<K, V>(), K, KIND, V>(keys, values, len, segs, desc, cfg, from_phase,
                                                     to_phase, below);
}

int g_sim_splits = 0; // sorts that ran split (stsort_split)

// The sort as the CUDA side runs it: one network, or split into the side part's phases 1..Q,
// the main part's, and the later phases over the whole array (the CUDA side queues the side
// part on a second stream; the parts touch disjoint elements until phase Q + 1).
template <class K, int KIND, class V>
bool simulate(K *keys, V *values, size_t len, size_t segs, bool desc,
              const stenc_sort_policy *policy, int sm_count) {
    stsort_config cfg;
    const size_t elem = sizeof(K) + (has_values<V>() ? sizeof(V) : 0);
    assert_stenc_ok(
        stsort_configure(len, segs, elem, sm_count, 0, STSORT_MAX_CLUSTER_LOG2, policy, &cfg));
    const bool narrow_asked = policy && policy->threads > 0 && policy->tile_log2 > 0 &&
                              policy->threads == 1 << (policy->tile_log2 - STSORT_REG_LOG2_NARROW);
    if (narrow_asked) assert_int_equal(cfg.reg_log2, STSORT_REG_LOG2_NARROW);
    if (len < 2) return true;
    stsort_split split;
    assert_stenc_ok(stsort_configure_split(len, segs, elem, sm_count, 0, STSORT_MAX_CLUSTER_LOG2,
                                           policy, &cfg, &split));
    if (split.offset == 0) return simulate_job<K, KIND, V>(keys, values, len, segs, desc, cfg);
    g_sim_splits++;
    const size_t o = split.offset;
    assert_int_equal(segs, 1);
    assert_true(o < len && o % ((size_t)1 << split.phases) == 0);
    assert_true(split.main.first_tile_log2 + split.main.cluster_log2 <= split.phases);
    assert_true(split.last.first_tile_log2 + split.last.cluster_log2 <= split.phases);
    bool ok = simulate_job<K, KIND, V>(keys + o, values + o, len - o, 1, desc, split.side, 1,
                                       split.phases);
    ok = simulate_job<K, KIND, V>(keys, values, len, 1, desc, split.main, 1, split.phases, o) && ok;
    return simulate_job<K, KIND, V>(keys, values, len, 1, desc, split.last, split.phases + 1) && ok;
}

// The key of random word r: by seed, a few distinct keys; half of them the largest key or just
// below it (real keys equal to the missing elements' +infinity, which the tiles' merges must
// keep above them); or any key.
template <class K> K key_of(uint64_t seed, uint64_t r) {
    if (seed % 3 == 0) return (K)(r % 5);
    if (seed % 3 == 1 && (r >> 40) % 2) return (K)(~K(0) - r % 3);
    return (K)r;
}

template <class K, int KIND, class V>
void check(size_t len, size_t segs, bool desc, const stenc_sort_policy *policy, int sm_count,
           uint64_t seed) {
    const size_t n = len * segs;
    test_rng rng = test_rng_seeded(seed);
    std::vector<K> keys(n + 1), want;
    std::vector<V> vals(n + 1);
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_of<K>(seed, test_rng_u64(&rng));
        if constexpr (has_values<V>()) vals[i] = (V)i;
    }
    want = keys;
    const K sentinel = keys[n];
    bool warp_ok =
        simulate<K, KIND, V>(keys.data(), vals.data(), len, segs, desc, policy, sm_count);
    if (!warp_ok) fail_msg("n=%zu x %zu: a __syncwarp move crossed warps", len, segs);
    assert_true(keys[n] == sentinel); // nothing written past the end
    for (size_t s = 0; s < segs; s++) {
        auto b = want.begin() + s * len, e = b + len;
        if (desc)
            std::sort(b, e, [](K x, K y) { return x > y; });
        else
            std::sort(b, e);
    }
    for (size_t i = 0; i < n; i++) {
        if (keys[i] != want[i])
            fail_msg("%s n=%zu x %zu tile=%d chunk=%d %s: key %zu is %llu, want %llu",
                     sizeof(K) == 4 ? "u32" : "u64", len, segs, policy ? policy->tile_log2 : 0,
                     policy ? policy->chunk_log2 : 0, desc ? "desc" : "asc", i,
                     (unsigned long long)keys[i], (unsigned long long)want[i]);
        if constexpr (has_values<V>()) {
            // values are original indices: each used once, in its own segment, beside its key
            size_t src = (size_t)vals[i];
            if (src / len != i / len) fail_msg("value %zu left its segment", i);
        }
    }
    if constexpr (has_values<V>()) {
        std::vector<K> orig(n);
        test_rng again = test_rng_seeded(seed);
        for (size_t i = 0; i < n; i++) {
            orig[i] = key_of<K>(seed, test_rng_u64(&again));
        }
        std::vector<char> seen(n, 0);
        for (size_t i = 0; i < n; i++) {
            size_t src = (size_t)vals[i];
            if (src >= n || seen[src] || orig[src] != keys[i])
                fail_msg("value %zu (%zu) is not a fresh index beside its key", i, src);
            seen[src] = 1;
        }
    }
}

template <class K, class V> void check_shapes(uint64_t seed) {
    static const size_t sizes[] = {2, 3, 5, 31, 32, 33, 100, 1023, 1024, 1025, 4099, 65536, 70001};
    // Clusters of 8 blocks unless the policy says otherwise (-1: none). Then narrow registers
    // (8 per thread: 8, 128 and 1024 threads), and the defaults.
    const stenc_sort_policy policies[] = {
        {6, 2, 0, -1, 0},    {8, 3, 0, 1, 0},     {10, 5, 0, 2, 0},
        {11, 4, 0, 0, 0},    {6, 2, 0, 0, 0},     {8, 3, 32, 0, 0},
        {10, 4, 128, -1, 0}, {13, 4, 1024, 0, 0}, {0, 0, 0, 0, 0}};
    const int np = sizeof policies / sizeof *policies;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int p = 0; p < np; p++)
            for (int d = 0; d < 2; d++)
                check<K, STSORT_UNSIGNED, V>(sizes[s], 1, d, &policies[p], p == np - 1 ? 132 : 0,
                                             seed + 17 * s + 3 * p + d);
    static const size_t shapes[][2] = {{1, 9}, {2, 100}, {3, 100}, {33, 200}, {1025, 7}, {4096, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int p = 0; p < np; p += 2)
            check<K, STSORT_UNSIGNED, V>(shapes[s][0], shapes[s][1], s % 2, &policies[p], 132,
                                         seed + 1000 + s);
}

void test_keys_u32(void **state) {
    (void)state;
    check_shapes<uint32_t, NoValue>(1);
}
void test_pairs_u32(void **state) {
    (void)state;
    check_shapes<uint32_t, uint32_t>(2);
}
void test_keys_u64(void **state) {
    (void)state;
    check_shapes<uint64_t, NoValue>(3);
}
void test_pairs_u64(void **state) {
    (void)state;
    check_shapes<uint64_t, uint64_t>(4); // 16-byte elements: 16 registers per thread
}
// Large enough for strided passes with the default tiles (2^14 u32 keys).
void test_large(void **state) {
    (void)state;
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 19) + 3, 1, false, nullptr, 132, 7);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>((size_t)1 << 18, 1, true, nullptr, 0, 8);
    const stenc_sort_policy wide = {15, 5, 0, 0, 0}; // 1024 threads: u32 keys only
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 20) - 1, 1, true, &wide, 132, 9);
    check<uint32_t, STSORT_UNSIGNED, NoValue>(40000, 3, false, &wide, 132, 10);
    const stenc_sort_policy wide8 = {14, 4, 0, -1, 0}; // 512 threads: 8-byte elements
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(((size_t)1 << 18) + 5, 1, false, &wide8, 132, 11);
    check<uint64_t, STSORT_UNSIGNED, NoValue>(100000, 2, true, &wide8, 132, 12);
    const stenc_sort_policy narrow = {12, 4, 512, 2, 0}; // 8 per thread, strided passes
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 19) + 3, 1, true, &narrow, 132, 13);
    check<uint64_t, STSORT_UNSIGNED, uint64_t>(70001, 3, false, &narrow, 132, 14);
    // Above a power of two by more than a tile: the last run sits out the phases that leave it
    // as it is (stsort_pass_blocks).
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 18) + 20000, 1, true, nullptr, 132, 15);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(((size_t)1 << 17) + 9000, 1, false, &wide8, 132, 16);
}

// Split sorts (stsort_split): every size where the split can run, with the default policy on
// a 132-SM device, both orders, every element size; then the sizes where the default rule
// splits. Explicit policies and several segments never split.
void test_split(void **state) {
    (void)state;
    const int was = stsort_set_split(2);
    static const size_t sizes[] = {8193, 16385, 20000, 65537, 70001, 100000, 131071, 262145};
    int splits = g_sim_splits, want = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int d = 0; d < 2; d++) {
            check<uint32_t, STSORT_UNSIGNED, NoValue>(sizes[s], 1, d, nullptr, 132, 60 + 4 * s + d);
            check<uint64_t, STSORT_UNSIGNED, uint32_t>(sizes[s], 1, !d, nullptr, 132, 62 + 4 * s);
            want += 2;
        }
    check<uint64_t, STSORT_UNSIGNED, uint64_t>(70001, 1, true, nullptr, 132, 99);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(((size_t)1 << 20) + 4097, 1, false, nullptr, 132,
                                               98);
    want += 2;
    if (g_sim_splits - splits != want)
        fail_msg("%d of %d sorts ran split", g_sim_splits - splits, want);
    // Never with an explicit policy or several segments.
    const stenc_sort_policy t12 = {12, 3, 0, -1, 0};
    splits = g_sim_splits;
    check<uint32_t, STSORT_UNSIGNED, NoValue>(70001, 1, false, &t12, 132, 97);
    check<uint32_t, STSORT_UNSIGNED, NoValue>(70001, 2, true, nullptr, 132, 96);
    assert_int_equal(g_sim_splits, splits);
    // The default rule: heads of 2^21 4-byte or 8-byte elements and more (16-byte ones never),
    // tails of at least a 32nd of the head, and at most half of a 4-byte head of 2^21; not where
    // the whole network's first pass fills the SMs (up to 132 tiles of 2^14 that run: at
    // 132 x 2^14 + 1 the last element has no partner in its tile). Beside a head of 2^21, the
    // tail's first pass: 4-byte tails that fit on the head's 4 idle SMs on tiles of 2^15 (later
    // 2^14), other 4-byte tails up to 2^18 on 2^13 (later 2^13), 8-byte tails up to 2^19 on
    // 2^14 (later 2^13), once the head's first pass is done (waits); first = 0: the default
    // plan, beside it.
    stsort_set_split(1);
    const size_t M = (size_t)1 << 20, O = (size_t)132 << 14;
    struct {
        size_t n, segs;
        int elem_bytes;
        size_t offset;
        int side_first, side_tile, waits;
    } const rule[] = {{2 * M + 1, 1, 4, 0, 0, 0, 0},
                      {2 * M + 65535, 1, 4, 0, 0, 0, 0},
                      {O, 1, 4, 0, 0, 0, 0},
                      {O + 1, 1, 4, 0, 0, 0, 0},
                      {O + 2, 1, 4, 2 * M, 15, 14, 0},
                      {2 * M + 4 * 32768, 1, 4, 2 * M, 15, 14, 0},
                      {2 * M + 4 * 32768 + 1, 1, 4, 2 * M, 13, 13, 0},
                      {2200000, 1, 4, 2 * M, 15, 14, 0},
                      {2 * M + (M >> 2), 1, 4, 2 * M, 13, 13, 0},
                      {2 * M + (M >> 2) + 1, 1, 4, 2 * M, 0, 0, 0},
                      {3 * M, 1, 4, 2 * M, 0, 0, 0},
                      {3 * M + 1, 1, 4, 0, 0, 0, 0},
                      {4 * M - 1, 1, 4, 0, 0, 0, 0},
                      {O + 1, 1, 8, 0, 0, 0, 0},
                      {O + 2, 1, 8, 2 * M, 14, 13, 1},
                      {2 * M + (M >> 1), 1, 8, 2 * M, 14, 13, 1},
                      {2 * M + (M >> 1) + 1, 1, 8, 2 * M, 0, 0, 0},
                      {4 * M - 1, 1, 8, 2 * M, 0, 0, 0},
                      {O + 1, 1, 16, 0, 0, 0, 0},
                      {5000000, 1, 8, 4 * M, 0, 0, 0},
                      {7000000, 1, 8, 4 * M, 0, 0, 0},
                      {1500000, 1, 4, 0, 0, 0, 0},
                      {8 * M + 3 * M, 1, 16, 0, 0, 0, 0},
                      {2500000, 2, 4, 0, 0, 0, 0},
                      {O + 1, 2, 4, 0, 0, 0, 0},
                      {7000000, 1, 4, 4 * M, 0, 0, 0},
                      {8 * M - 1, 1, 4, 4 * M, 0, 0, 0}};
    for (const auto &r : rule) {
        stsort_config cfg, side;
        stsort_split split;
        assert_stenc_ok(stsort_configure(r.n, r.segs, r.elem_bytes, 132, 227 * 1024,
                                         STSORT_MAX_CLUSTER_LOG2, nullptr, &cfg));
        assert_stenc_ok(stsort_configure_split(r.n, r.segs, r.elem_bytes, 132, 227 * 1024,
                                               STSORT_MAX_CLUSTER_LOG2, nullptr, &cfg, &split));
        if (split.offset != r.offset)
            fail_msg("n=%zu x %zu (%d bytes): split at %zu, want %zu", r.n, r.segs, r.elem_bytes,
                     split.offset, r.offset);
        if (split.side_waits != r.waits)
            fail_msg("n=%zu (%d bytes): the side part waits: %d, want %d", r.n, r.elem_bytes,
                     split.side_waits, r.waits);
        if (split.offset == 0) continue;
        assert_stenc_ok(stsort_configure(r.n - split.offset, 1, r.elem_bytes, 132, 227 * 1024,
                                         STSORT_MAX_CLUSTER_LOG2, nullptr, &side));
        if (r.side_first > 0) {
            side.first_tile_log2 = r.side_first;
            side.tile_log2 = r.side_tile;
            side.reg_log2 = stsort_reg_log2(r.elem_bytes);
            side.cluster_log2 = 1;
        }
        if (memcmp(&split.side, &side, sizeof side) != 0)
            fail_msg("n=%zu (%d bytes): side part's first tile 2^%d, later 2^%d, cluster 2^%d; "
                     "want 2^%d, 2^%d, 2^%d",
                     r.n, r.elem_bytes, split.side.first_tile_log2, split.side.tile_log2,
                     split.side.cluster_log2, side.first_tile_log2, side.tile_log2,
                     side.cluster_log2);
    }
    stsort_set_split(was);
}

// Head-and-tail splits above 132 x 2^14 by the default rule, where the tail's first pass runs on
// the largest tiles (2^15 4-byte elements), or in clusters of 2 on tiles of 2^13 (4-byte
// elements) or 2^14 (8-byte ones): u32 keys, u32 pairs and u64 keys, both orders.
void test_split_window(void **state) {
    (void)state;
    const int splits = g_sim_splits;
    check<uint32_t, STSORT_UNSIGNED, NoValue>(2170001, 1, false, nullptr, 132, 501);
    check<uint32_t, STSORT_UNSIGNED, NoValue>(2300000, 1, true, nullptr, 132, 502);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(2170001, 1, true, nullptr, 132, 503);
    check<uint64_t, STSORT_UNSIGNED, NoValue>(2280000, 1, false, nullptr, 132, 504);
    check<uint32_t, STSORT_UNSIGNED, NoValue>(2200000, 1, true, nullptr, 132, 505);
    assert_int_equal(g_sim_splits - splits, 5);
}

// The bitonic first pass for tiles that lie in one segment (PassArgs::tile_merge off).
void test_bitonic_first_pass(void **state) {
    (void)state;
    g_sim_tile_merge = 0;
    check_shapes<uint32_t, NoValue>(21);
    check_shapes<uint64_t, uint64_t>(22);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(((size_t)1 << 18) + 5, 1, true, nullptr, 132, 23);
    g_sim_tile_merge = 1;
}

// The kernels with a fixed schedule for the later passes (tiles of 2^12..2^14, strided passes
// of up to kFixedMaxH bits), beside the general one for the longer strided passes: every element
// size, several segments with missing elements, both orders.
void test_fixed_passes(void **state) {
    (void)state;
    const stenc_sort_policy t12 = {12, 3, 0, -1, 0}, t13 = {13, 3, 0, 1, 0},
                            t14 = {14, 3, 0, -1, 0};
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 20) + 5, 1, true, &t12, 132, 41);
    check<uint32_t, STSORT_UNSIGNED, NoValue>(100003, 3, false, &t14, 132, 42);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(70001, 3, true, &t13, 132, 43);
    check<uint64_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 17) + 9, 2, false, &t12, 132, 44);
    check<uint64_t, STSORT_UNSIGNED, uint64_t>(70001, 3, true, &t12, 132, 45);
    check<uint64_t, STSORT_UNSIGNED, uint64_t>(((size_t)1 << 18) - 3, 1, false, &t13, 132, 46);
    // First-pass tiles larger than the later passes' (with and without clusters).
    const stenc_sort_policy f15 = {14, 3, 0, 1, 15}, f13 = {12, 3, 0, -1, 13};
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 18) + 5, 1, true, &f15, 132, 47);
    check<uint32_t, STSORT_UNSIGNED, uint32_t>(70001, 2, false, &f13, 132, 48);
    check<uint64_t, STSORT_UNSIGNED, uint64_t>(40000, 3, true, &f13, 132, 49);
    // The defaults on a 16-SM device: later tiles of 2^13, first-pass tiles of 2^14.
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 18) + 5, 1, false, nullptr, 16, 50);
}

// The default tiles on a 132-SM device (the H100's), as docs/sort.md gives them: later tiles,
// then first-pass tiles, by element size and n.
void test_default_tiles(void **state) {
    (void)state;
    const size_t M = (size_t)1 << 20;
    // Sizes just above a power of two count the tiles that run: 2^19+1 has 65 tiles of 2^13
    // (fewer than 3/4 of 128), 2^20+7 has 65 first-pass tiles of 2^14 (fewer than 66). u32
    // keys from 132 * 2^14 + 2 (133 tiles of 2^14 that run, 67 of 2^15) take first-pass tiles of
    // 2^15 (1024 threads); up to 132 tiles of 2^14 run in one wave and stay (and likewise 131-132
    // tiles of 2^13 around 1.07M).
    struct {
        int elem_bytes;
        size_t n;
        int tile, first;
    } const want[] = {{4, M, 13, 13},
                      {4, 2 * M, 13, 14},
                      {4, 4 * M, 13, 15},
                      {4, 8 * M, 14, 15},
                      {4, 128 * M, 14, 15},
                      {8, M, 13, 13},
                      {8, 4 * M, 13, 14},
                      {16, 16 * M, 12, 13},
                      {4, M / 2 + 1, 12, 12},
                      {4, 1000000, 13, 13},
                      {4, M + 7, 13, 13},
                      {4, 2 * M + 1, 13, 14},
                      {8, M / 2 + 1, 12, 12},
                      {4, 3 * M / 2, 13, 14},
                      {4, 3000000, 13, 15},
                      {4, 2 * M + M / 32, 13, 14},
                      {4, 2 * M + M / 32 + 2, 13, 14},
                      {4, 2140000, 13, 14},
                      {4, 132 * 16384, 13, 14},
                      {4, 132 * 16384 + 2, 13, 15},
                      {4, 1070000, 13, 13},
                      {4, 132 * 8192 + 2, 13, 14},
                      {8, 1070000, 13, 13},
                      {8, 132 * 8192 + 2, 13, 14},
                      {8, 4 * M, 13, 14}};
    for (const auto &w : want) {
        stsort_config cfg;
        assert_stenc_ok(stsort_configure(w.n, 1, (size_t)w.elem_bytes, 132, 227 * 1024,
                                         STSORT_MAX_CLUSTER_LOG2, nullptr, &cfg));
        if (cfg.tile_log2 != w.tile || cfg.first_tile_log2 != w.first)
            fail_msg("%d-byte elements, n=%zu: tiles 2^%d then 2^%d, want 2^%d then 2^%d",
                     w.elem_bytes, w.n, cfg.first_tile_log2, cfg.tile_log2, w.first, w.tile);
    }
}

// The blocks each pass launches (stsort_pass_blocks) against a count by brute force: a tile
// runs if two of its real elements differ only in bits that the pass steps on (any tile bit
// in a contiguous pass, the strided bits in a strided one), found by grouping its real elements.
// Every such tile must be launched except those of a last run that the pass's phase leaves
// as it is, and nothing beyond the last one but the rest of its cluster.
void test_pass_blocks(void **state) {
    (void)state;
    static const size_t lens[] = {2, 3, 65, 1000, 1025, 4097, 6000, 8191, 12289, 16385, 70001};
    const stenc_sort_policy policies[] = {{6, 2, 0, -1, 0}, {7, 3, 0, 2, 0}, {8, 3, 0, 3, 9}};
    static stsort_pass passes[STSORT_MAX_PASSES];
    for (size_t len : lens)
        for (const stenc_sort_policy &policy : policies)
            for (size_t segs : {(size_t)1, (size_t)3}) {
                stsort_config cfg;
                assert_stenc_ok(
                    stsort_configure(len, segs, 4, 132, 0, STSORT_MAX_CLUSTER_LOG2, &policy, &cfg));
                const int count = stsort_plan(&cfg, segs, passes, STSORT_MAX_PASSES);
                for (int i = 0; i < count; i++) {
                    const stsort_pass &p = passes[i];
                    const PassArgs a{
                        len,         segs,          cfg.seg_log2, p.low_bits,     p.high_lo,
                        p.high_bits, p.phase_first, p.phase_last, p.cluster_log2, 1};
                    const int t = p.low_bits + p.high_bits;
                    const uint32_t step_bits =
                        p.high_bits == 0 ? (1u << t) - 1 : ((1u << p.high_bits) - 1) << p.low_bits;
                    const unsigned long long tiles =
                        (((unsigned long long)segs << cfg.seg_log2) + (1ull << t) - 1) >> t;
                    // A later pass leaves the last run of its phase q alone when that run's
                    // real elements fit in its lower half (sorted by phase q - 1); its tiles
                    // need not run.
                    const int q = p.phase_first;
                    const bool later = q == p.phase_last && (p.high_bits > 0 || q > p.low_bits);
                    const unsigned long long run = 1ull << q, r0 = (len - 1) / run * run;
                    const bool last_run_idle = segs == 1 && later && len - r0 <= run / 2;
                    unsigned long long last = 0, paired = 0; // one past the last tile that
                                                             // must run / has a real pair
                    for (unsigned long long b = 0; b < tiles; b++) {
                        const TileMap map = pass_shape<STSORT_REG_LOG2>(a, b).map;
                        auto real = [&](uint32_t s) {
                            const unsigned long long v = map.vindex(s);
                            return (v >> cfg.seg_log2) < segs &&
                                   (v & ((1ull << cfg.seg_log2) - 1)) < len;
                        };
                        // Real elements per value of the other bits: two in one group pair up.
                        std::vector<int> group(1u << t, 0);
                        bool runs = false;
                        for (uint32_t s = 0; s < (1u << t); s++)
                            if (real(s)) runs = runs || ++group[s & ~step_bits] == 2;
                        if (runs) paired = b + 1;
                        if (runs && !(last_run_idle && map.vindex(0) >= r0)) last = b + 1;
                    }
                    const unsigned long long got = stsort_pass_blocks(&p, cfg.seg_log2, len, segs);
                    const unsigned long long cluster = 1ull << p.cluster_log2;
                    const unsigned long long most =
                        segs == 1 ? (paired + cluster - 1) / cluster * cluster : tiles;
                    if (got < last || got > most || got % cluster != 0)
                        fail_msg("n=%zu x %zu, pass %d (tile 2^%d, strided %d at %d): %llu "
                                 "blocks, want %llu..%llu",
                                 len, segs, i, t, p.high_bits, p.high_lo, got, last, most);
                }
            }
}

// The general schedule for the later passes (the kernels without a fixed one).
void test_general_later_passes(void **state) {
    (void)state;
    g_sim_fixed_passes = 0;
    check_shapes<uint32_t, uint32_t>(31);
    check<uint32_t, STSORT_UNSIGNED, NoValue>(((size_t)1 << 19) + 3, 1, true, nullptr, 132, 32);
    g_sim_fixed_passes = 1;
}

} // namespace

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_u32),
        cmocka_unit_test(test_pairs_u32),
        cmocka_unit_test(test_keys_u64),
        cmocka_unit_test(test_pairs_u64),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_split_window),
        cmocka_unit_test(test_bitonic_first_pass),
        cmocka_unit_test(test_fixed_passes),
        cmocka_unit_test(test_default_tiles),
        cmocka_unit_test(test_general_later_passes),
        cmocka_unit_test(test_pass_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
