// The CUDA path of the sort, host side: the pass plan's launches (device code in
// sort_kernels.cuh; the fixed kernels compiled in sort_fixed_u32.cu and sort_fixed_u64.cu).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <new>

#include "cuda_check.h"
#include "stenc/graph.h"
#include "sort_internal.h"
#include "sort_kernels.cuh"

namespace stsort_kernels {
STSORT_FOR_KINDS(extern template STSORT_FIXED_KERNEL, uint32_t)
STSORT_FOR_KINDS(extern template STSORT_FIXED_KERNEL, uint64_t)
} // namespace stsort_kernels

namespace {

using namespace stsort_kernels;

bool g_overlap_launches = true;               // stsort_set_overlap_launches
bool g_tile_merge = true;                     // stsort_set_tile_merge
bool g_fixed_passes = true;                   // stsort_set_fixed_passes
bool g_replay = true;                         // stsort_set_replay
std::atomic<unsigned long long> g_replays{0}; // stsort_replays

// Dynamic shared memory of a tile: the keys' slots, then (16-byte aligned) the values'.
template <class K, class V> struct TileSmem {
    size_t value_offset, bytes;
    explicit TileSmem(int tile_log2) {
        const size_t slots = stsort_smem_slots(tile_log2);
        value_offset = (slots * sizeof(K) + 15) / 16 * 16;
        bytes = value_offset + (has_values<V>() ? slots * sizeof(V) : 0);
    }
};

// The launch attribute that groups blocks into 1-D clusters of 2^log2.
inline cudaLaunchAttribute cluster_attribute(int log2) {
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1u << log2;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    return attr;
}

// A sort's launches, captured once and replayed (bench/logs/sort_history.md, "Fifteenth revision").
// On the lent H100's host a launch costs 3-4 us, as long as a small sort's pass runs on the device,
// and replaying a captured graph of any length 2 us. A problem (its arrays, sizes, types, order
// and plan) runs directly on its first call, is captured on its second and replayed from then
// on: a sort called once pays nothing for it, one called again pays the capture once.
struct ReplayKey {
    void *keys, *values;
    unsigned long long segment_len, num_segments;
    int key_bytes, kind, value_bytes, descending;
    int switches; // the benchmark's process-wide switches, which change the launches
    stsort_config cfg;
    // A split sort's parts (stsort_split, copied field by field: its padding is not zeroed).
    unsigned long long split_offset;
    int split_phases, split_side_waits;
    stsort_config split_main, split_side, split_last;
};
struct Replay {
    ReplayKey key;
    int calls; // calls so far; -1: the capture failed, so always direct
    cudaGraphExec_t exec;
    unsigned long long last_use;
};
constexpr int kReplaySlots = 16; // problems kept per context; the least recently used goes

// What the sort keeps per context (under sort_key): the kernels whose dynamic shared memory
// limit is already raised on its device (a driver call per kernel and sort otherwise, which
// the host pays on every call); the sort's own two streams, created on first use: one on which a
// split sort's side part runs (with the events that fork it from the context's stream and join
// it back), and one on which replays are captured (a split sort's capture forks from it to the
// first); and the replays.
struct SortState {
    const void *smem_raised[256]; // when full, later kernels are raised on every sort
    int num_smem_raised;
    cudaStream_t side, capture;
    cudaEvent_t fork, join;
    Replay replays[kReplaySlots];
    int num_replays;
    unsigned long long clock; // orders the replays' uses
};

void release_state(stenc_ctx *ctx, void *p) {
    (void)ctx;
    SortState *state = static_cast<SortState *>(p);
    // A replay still running is freed when it completes.
    for (int i = 0; i < state->num_replays; i++)
        if (state->replays[i].exec) cudaGraphExecDestroy(state->replays[i].exec);
    if (state->side) {
        cudaStreamSynchronize(state->capture);
        cudaStreamSynchronize(state->side);
        cudaStreamDestroy(state->capture);
        cudaStreamDestroy(state->side);
        cudaEventDestroy(state->fork);
        cudaEventDestroy(state->join);
    }
    delete state;
}

// The context's state; nullptr without host memory (the sort then works without it).
const stenc_cache_key sort_key = {"sort"};

SortState *state_of(stenc_ctx *ctx) {
    SortState *state = static_cast<SortState *>(stenc_ctx_cache_get(ctx, &sort_key));
    if (state) return state;
    state = new (std::nothrow) SortState{};
    // A failed set releases the state: the sort then works without it.
    if (state && stenc_ctx_cache_set(ctx, &sort_key, state, release_state) != STENC_OK)
        return nullptr;
    return state;
}

// Raise a kernel's dynamic shared memory limit to the device's opt-in maximum, once per
// context where it has a state.
stenc_status raise_smem_limit(const stenc_ctx *ctx, SortState *state, const void *kernel) {
    if (state && std::find(state->smem_raised, state->smem_raised + state->num_smem_raised,
                           kernel) != state->smem_raised + state->num_smem_raised)
        return STENC_OK;
    STENC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)ctx->smem_optin));
    if (state && state->num_smem_raised < (int)(sizeof state->smem_raised / sizeof(void *)))
        state->smem_raised[state->num_smem_raised++] = kernel;
    return STENC_OK;
}

// Where a job's launches have got to: the next pass of its plan, and whether it has launched
// one (the next is then a programmatic dependent of it).
struct Cursor {
    int next_pass = 0;
    bool launched = false, done = false;
    unsigned long long prev_blocks = 0; // of the last launch
    bool prev_first = false;            // the last launch was a first pass
};

// One network's launches: its elements, segments, order and plan, queued on `stream` from the
// cursor's pass on, at most `budget` of them (a split sort interleaves the launches of two
// networks), only the passes of phases from_phase..to_phase, and, where `below` > 0, only
// their tiles below that index (a split sort's parts).
struct Job {
    const stenc_ctx *ctx;
    SortState *state; // may be nullptr
    void *keys, *values;
    size_t segment_len, num_segments;
    int descending;
    const stsort_config *cfg;
    cudaStream_t stream;
    int from_phase, to_phase;
    unsigned long long below;
    bool overlap; // passes are programmatic dependents of the one before (sm_90 and up)
    Cursor *cursor;
    int budget;
};

template <int RB, class K, int KIND, class V> stenc_status run_plan_rb(const Job &job) {
    const stsort_config *cfg = job.cfg;
    const size_t segment_len = job.segment_len, num_segments = job.num_segments;
    if (cfg->reg_log2 != RB || cfg->tile_log2 < RB || cfg->first_tile_log2 < cfg->tile_log2 ||
        cfg->first_tile_log2 - RB > stsort_ceil_log2(max_threads<K, V, RB>()))
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "stenc_sort: tiles 2^%d and 2^%d with 2^%d registers do not fit the "
                           "kernel",
                           cfg->first_tile_log2, cfg->tile_log2, cfg->reg_log2);
    stsort_pass passes[STSORT_MAX_PASSES];
    stsort_config plan_cfg = *cfg;
    int count = stsort_plan(&plan_cfg, num_segments, passes, STSORT_MAX_PASSES);
    if (count < 0)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc_sort: segments of 2^%d elements need more than %d passes "
                           "with tiles of 2^%d",
                           cfg->seg_log2, (int)STSORT_MAX_PASSES, cfg->tile_log2);
    const unsigned long long space = (unsigned long long)num_segments << cfg->seg_log2;
    const K flip = job.descending ? ~K(0) : K(0);
    auto tiles_of = [&](int t) { return (space + (1ull << t) - 1) >> t; };
    if (tiles_of(cfg->tile_log2) > 0x7FFFFFFFull)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_sort: %llu tiles exceed the grid",
                           tiles_of(cfg->tile_log2));
    auto args_of = [&](const stsort_pass &p) {
        PassArgs a;
        a.seg_len = segment_len;
        a.num_segs = num_segments;
        a.seg_log2 = cfg->seg_log2;
        a.low_bits = p.low_bits;
        a.high_lo = p.high_lo;
        a.high_bits = p.high_bits;
        a.phase_first = p.phase_first;
        a.phase_last = p.phase_last;
        a.cluster_log2 = p.cluster_log2;
        a.tile_merge = g_tile_merge;
        return a;
    };
    const PassKernel<K, V> general = sort_pass_kernel<RB, K, KIND, V>;
    Cursor &cursor = *job.cursor;
    int budget = job.budget;
    for (int i = cursor.next_pass; i < count; i++) {
        if (passes[i].phase_first < job.from_phase) continue;
        if (passes[i].phase_first > job.to_phase) break;
        const PassArgs a = args_of(passes[i]);
        cudaLaunchAttribute attrs[2];
        unsigned num_attrs = 0;
        if (a.cluster_log2 > 0) attrs[num_attrs++] = cluster_attribute(a.cluster_log2);
        // Not after a wide first pass that left SMs with fewer blocks than others: this pass's
        // blocks, scheduled while it runs, would crowd onto those SMs and stay unevenly spread
        // down the chain (H100: u32 keys at 2^21 +9% without that link, docs/sort.md).
        const bool uneven_first = cursor.prev_first && RB != STSORT_REG_LOG2_NARROW &&
                                  job.ctx->sm_count > 0 &&
                                  cursor.prev_blocks % (unsigned long long)job.ctx->sm_count != 0;
        if (job.overlap && cursor.launched && !uneven_first) {
            attrs[num_attrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attrs[num_attrs].val.programmaticStreamSerializationAllowed = 1;
            num_attrs++;
        }
        unsigned long long blocks =
            stsort_pass_blocks(&passes[i], cfg->seg_log2, segment_len, num_segments);
        if (job.below > 0) blocks = stsort_blocks_below(&passes[i], job.below, blocks);
        if (blocks == 0) continue; // no tile can move anything
        if (budget == 0) {
            cursor.next_pass = i;
            return STENC_OK;
        }
        const int t = a.low_bits + a.high_bits; // the first pass's tiles may be larger
        const TileSmem<K, V> smem(t);
        PassKernel<K, V> kernel = RB == reg_log2<K, V>() && g_fixed_passes && fixed_pass_applies(a)
                                      ? fixed_kernel<K, KIND, V>(t, a.high_bits)
                                      : nullptr;
        if (!kernel) kernel = general;
        STENC_TRY(raise_smem_limit(job.ctx, job.state, (const void *)kernel));
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3((unsigned)blocks);
        lc.blockDim = dim3(1u << (t - RB));
        lc.dynamicSmemBytes = smem.bytes;
        lc.stream = job.stream;
        lc.attrs = attrs;
        lc.numAttrs = num_attrs;
        const cudaError_t e =
            cudaLaunchKernelEx(&lc, kernel, static_cast<K *>(job.keys),
                               static_cast<V *>(job.values), a, flip, (uint32_t)smem.value_offset);
        if (e != cudaSuccess && i == 0 && a.cluster_log2 > 0) {
            // No room for such a cluster here (a partitioned GPU, say): nothing has run yet,
            // so plan again with smaller clusters.
            (void)cudaGetLastError();
            plan_cfg.cluster_log2--;
            count = stsort_plan(&plan_cfg, num_segments, passes, STSORT_MAX_PASSES);
            if (count < 0)
                return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                                   "stenc_sort: segments of 2^%d elements need more than %d "
                                   "passes with tiles of 2^%d",
                                   cfg->seg_log2, (int)STSORT_MAX_PASSES, cfg->tile_log2);
            i = -1;
            continue;
        }
        STENC_CUDA_TRY(e);
        STENC_CUDA_CHECK_LAUNCH(kernel == general ? "sort_pass_kernel" : "sort_fixed_kernel");
        cursor.launched = true;
        cursor.prev_blocks = blocks;
        cursor.prev_first = a.phase_first == 1;
        budget--;
    }
    cursor.next_pass = count;
    cursor.done = true;
    return STENC_OK;
}

// The wide kernel (32 elements per thread, 16 for 16-byte elements) or the narrow one (8).
template <class K, int KIND, class V> stenc_status run_plan(const Job &job) {
    if (job.cfg->reg_log2 == STSORT_REG_LOG2_NARROW)
        return run_plan_rb<STSORT_REG_LOG2_NARROW, K, KIND, V>(job);
    return run_plan_rb<reg_log2<K, V>(), K, KIND, V>(job);
}

template <class K, int KIND> stenc_status run_keys(int value_bytes, const Job &job) {
    if (value_bytes == 4) return run_plan<K, KIND, uint32_t>(job);
    if (value_bytes == 8) return run_plan<K, KIND, uint64_t>(job);
    return run_plan<K, KIND, NoValue>(job);
}

template <class K> stenc_status run_kind(stsort_kind kind, int value_bytes, const Job &job) {
    switch (kind) {
    case STSORT_SIGNED:
        return run_keys<K, STSORT_SIGNED>(value_bytes, job);
    case STSORT_FLOAT:
        return run_keys<K, STSORT_FLOAT>(value_bytes, job);
    default:
        return run_keys<K, STSORT_UNSIGNED>(value_bytes, job);
    }
}

stenc_status run_job(int key_bytes, stsort_kind kind, int value_bytes, const Job &job) {
    return key_bytes == 4 ? run_kind<uint32_t>(kind, value_bytes, job)
                          : run_kind<uint64_t>(kind, value_bytes, job);
}

// The sort's own streams (a split sort's side part runs on one, replays are captured on the
// other), created on first use; false where they cannot be had now (their creation failed, or
// the context's stream is being captured and none exist yet: creating them there could end the
// capture). The caller then sorts with one network, directly.
bool have_own_streams(stenc_ctx *ctx, SortState *state) {
    if (!state) return false;
    if (state->side) return true;
    if (stenc_graph_recording(ctx)) return false;
    cudaStream_t side = nullptr, capture = nullptr;
    cudaEvent_t fork = nullptr, join = nullptr;
    cudaError_t e = cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (join) cudaEventDestroy(join);
        if (fork) cudaEventDestroy(fork);
        if (capture) cudaStreamDestroy(capture);
        if (side) cudaStreamDestroy(side);
        return false;
    }
    state->side = side;
    state->capture = capture;
    state->fork = fork;
    state->join = join;
    return true;
}

// A split sort (stsort_split). The host needs about as long to queue a launch (3-4 us on the
// H100's host) as a short pass takes, and a split sort has more launches, so their order sets
// the pace: the main part's first pass, its longest, goes first; then the first
// kSplitSideLead passes of the side part (on the side stream, forked after the work queued
// before the sort, or after the main part's first pass where the split says the side waits),
// which start beside it; then one main pass and one side pass in turn, so
// that neither chain waits long for the host; then the rest of the main part, and once the
// side part is done the later phases over the whole array. (Measured on the H100 with heads
// and tails: leads of 2-5 alike, 8 up to 4% slower at 2200000, 12 and more 10% slower, as the
// head's second pass waits behind them; the side stream's priority made no difference.)
constexpr int kSplitSideLead = 4;

stenc_status run_split(int key_bytes, stsort_kind kind, int value_bytes, const Job &whole,
                       const stsort_split &split) {
    SortState &state = *whole.state;
    Cursor main_cursor, side_cursor, last_cursor;
    Job side = whole;
    side.keys = static_cast<char *>(whole.keys) + split.offset * (size_t)key_bytes;
    side.values = whole.values
                      ? static_cast<char *>(whole.values) + split.offset * (size_t)value_bytes
                      : nullptr;
    side.segment_len = whole.segment_len - split.offset;
    side.cfg = &split.side;
    side.stream = state.side;
    side.to_phase = split.phases;
    side.cursor = &side_cursor;
    Job main = whole;
    main.cfg = &split.main;
    main.to_phase = split.phases;
    main.below = split.offset;
    main.cursor = &main_cursor;
    Job last = whole;
    last.cfg = &split.last;
    last.from_phase = split.phases + 1;
    last.cursor = &last_cursor;
    auto run = [&](Job &job, int budget) {
        job.budget = budget;
        return job.cursor->done ? STENC_OK : run_job(key_bytes, kind, value_bytes, job);
    };
    if (!split.side_waits) STENC_CUDA_TRY(cudaEventRecord(state.fork, whole.stream));
    STENC_TRY(run(main, 1));
    if (split.side_waits) STENC_CUDA_TRY(cudaEventRecord(state.fork, whole.stream));
    STENC_CUDA_TRY(cudaStreamWaitEvent(state.side, state.fork, 0));
    STENC_TRY(run(side, kSplitSideLead));
    while (!side_cursor.done) {
        STENC_TRY(run(main, 1));
        STENC_TRY(run(side, 1));
    }
    STENC_CUDA_TRY(cudaEventRecord(state.join, state.side));
    STENC_TRY(run(main, INT_MAX));
    STENC_CUDA_TRY(cudaStreamWaitEvent(whole.stream, state.join, 0));
    return run(last, INT_MAX);
}

// The replay of `key`: found, or a fresh one in a free slot or in the least recently used.
Replay &replay_of(SortState &state, const ReplayKey &key) {
    Replay *slot = nullptr;
    for (int i = 0; i < state.num_replays; i++) {
        Replay &r = state.replays[i];
        if (memcmp(&r.key, &key, sizeof key) == 0) return r;
        if (!slot || r.last_use < slot->last_use) slot = &r;
    }
    if (state.num_replays < kReplaySlots)
        slot = &state.replays[state.num_replays++];
    else if (slot->exec)
        cudaGraphExecDestroy(slot->exec); // freed when a replay still running completes
    slot->key = key;
    slot->calls = 0;
    slot->exec = nullptr;
    return *slot;
}

// A sort's launches on job.stream: split (its side part on the sort's side stream) where
// `split` is given, else one network.
stenc_status run_sort(int key_bytes, stsort_kind kind, int value_bytes, const Job &job,
                      const stsort_split *split) {
    return split ? run_split(key_bytes, kind, value_bytes, job, *split)
                 : run_job(key_bytes, kind, value_bytes, job);
}

// Capture the sort's launches on the sort's capture stream and instantiate them; false (nothing
// queued, CUDA's error cleared) where that fails.
bool capture(SortState &state, int key_bytes, stsort_kind kind, int value_bytes, Job job,
             const stsort_split *split, cudaGraphExec_t *exec) {
    *exec = nullptr;
    Cursor cursor; // the caller's stays at the start, for a direct run if this fails
    job.cursor = &cursor;
    job.stream = state.capture;
    if (cudaStreamBeginCapture(state.capture, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    const stenc_status status = run_sort(key_bytes, kind, value_bytes, job, split);
    cudaGraph_t graph = nullptr;
    cudaError_t e = cudaStreamEndCapture(state.capture, &graph);
    if (status == STENC_OK && e == cudaSuccess) e = cudaGraphInstantiate(exec, graph, 0);
    if (graph) cudaGraphDestroy(graph);
    if (status == STENC_OK && e == cudaSuccess) return true;
    (void)cudaGetLastError();
    *exec = nullptr;
    return false;
}

// A sort through its replay where there is one (stenc_graph_recording: not while the context's
// stream is being captured, whose graph takes the launches themselves). A split sort's replay
// holds both parts, forked and joined inside the graph.
stenc_status run_replayed(stenc_ctx *ctx, int key_bytes, stsort_kind kind, int value_bytes,
                          const Job &job, const stsort_split *split) {
    SortState *state = job.state;
    if (!g_replay || !state || stenc_graph_recording(ctx))
        return run_sort(key_bytes, kind, value_bytes, job, split);
    ReplayKey key;
    memset(&key, 0, sizeof key); // the padding too: keys are compared bytewise
    key.keys = job.keys;
    key.values = job.values;
    key.segment_len = job.segment_len;
    key.num_segments = job.num_segments;
    key.key_bytes = key_bytes;
    key.kind = kind;
    key.value_bytes = value_bytes;
    key.descending = job.descending;
    key.switches = g_overlap_launches | g_tile_merge << 1 | g_fixed_passes << 2;
    key.cfg = *job.cfg;
    if (split) {
        key.split_offset = split->offset;
        key.split_phases = split->phases;
        key.split_side_waits = split->side_waits;
        key.split_main = split->main;
        key.split_side = split->side;
        key.split_last = split->last;
    }
    Replay &r = replay_of(*state, key);
    r.last_use = ++state->clock;
    if (!r.exec && r.calls >= 0 && ++r.calls >= 2 && have_own_streams(ctx, state) &&
        !capture(*state, key_bytes, kind, value_bytes, job, split, &r.exec))
        r.calls = -1;
    if (!r.exec) return run_sort(key_bytes, kind, value_bytes, job, split);
    STENC_CUDA_TRY(cudaGraphLaunch(r.exec, job.stream));
    g_replays++;
    return STENC_OK;
}

// How many clusters of 2^cluster_log2 blocks of the first pass fit on the device at once.
template <int RB, class K, class V> int max_active_clusters(int tile_log2, int cluster_log2) {
    auto kernel = sort_pass_kernel<RB, K, STSORT_UNSIGNED, V>;
    const TileSmem<K, V> smem(tile_log2);
    // The device's maximum, as the sort sets it (raise_smem_limit), never lower.
    int device = 0, optin = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
            cudaSuccess ||
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) !=
            cudaSuccess)
        return -1;
    cudaLaunchConfig_t lc = {};
    cudaLaunchAttribute attr = cluster_attribute(cluster_log2);
    lc.gridDim = dim3(1u << cluster_log2);
    lc.blockDim = dim3(1u << (tile_log2 - RB));
    lc.dynamicSmemBytes = smem.bytes;
    lc.attrs = &attr;
    lc.numAttrs = 1;
    int n = -1;
    if (cudaOccupancyMaxActiveClusters(&n, kernel, &lc) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return n;
}
} // namespace

extern "C" int stsort_max_active_clusters(int key_bytes, int value_bytes, int tile_log2, int narrow,
                                          int cluster_log2) {
    if (key_bytes == 4 && value_bytes == 0)
        return narrow ? max_active_clusters<STSORT_REG_LOG2_NARROW, uint32_t, NoValue>(tile_log2,
                                                                                       cluster_log2)
                      : max_active_clusters<STSORT_REG_LOG2, uint32_t, NoValue>(tile_log2,
                                                                                cluster_log2);
    if (key_bytes == 8 && value_bytes == 0)
        return max_active_clusters<STSORT_REG_LOG2, uint64_t, NoValue>(tile_log2, cluster_log2);
    if (key_bytes == 4 && value_bytes == 4)
        return max_active_clusters<STSORT_REG_LOG2, uint32_t, uint32_t>(tile_log2, cluster_log2);
    return -1;
}

extern "C" int stsort_set_overlap_launches(int on) {
    const int was = g_overlap_launches;
    g_overlap_launches = on != 0;
    return was;
}

extern "C" int stsort_set_tile_merge(int on) {
    const int was = g_tile_merge;
    g_tile_merge = on != 0;
    return was;
}

extern "C" int stsort_set_replay(int on) {
    const int was = g_replay;
    g_replay = on != 0;
    return was;
}

extern "C" unsigned long long stsort_replays(void) {
    return g_replays.load();
}

extern "C" int stsort_set_fixed_passes(int on) {
    const int was = g_fixed_passes;
    g_fixed_passes = on != 0;
    return was;
}

extern "C" stenc_status stsort_cuda_sort(stenc_ctx *ctx, int key_bytes, stsort_kind kind,
                                         void *keys, int value_bytes, void *values,
                                         size_t segment_len, size_t num_segments, int descending,
                                         const stsort_config *cfg, const stsort_split *split) {
    SortState *state = state_of(ctx);
    Cursor cursor;
    const Job job = {ctx,
                     state,
                     keys,
                     values,
                     segment_len,
                     num_segments,
                     descending,
                     cfg,
                     stenc_stream(ctx),
                     1,
                     INT_MAX,
                     0,
                     g_overlap_launches && ctx->cc_major >= 9,
                     &cursor,
                     INT_MAX};
    const bool split_here = split && split->offset > 0 && have_own_streams(ctx, state);
    return run_replayed(ctx, key_bytes, kind, value_bytes, job, split_here ? split : nullptr);
}
