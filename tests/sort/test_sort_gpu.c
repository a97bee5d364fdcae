/* The sort's CUDA path, checked element by element like the CPU path, including shapes that
 * force strided global passes (small tiles through the policy). `--quick` skips the largest
 * sizes (for memcheck); `--race` runs only test_race_subset (for racecheck). */
#include "sort_cases.h"
#include "sort_internal.h" /* stsort_set_tile_merge, _split, _replay */

static int quick = 0, race = 0;

static stenc_ctx *gpu_ctx(void) {
    stenc_ctx *ctx = NULL;
    assert_stenc_ok(stenc_ctx_create(&ctx, STENC_DEVICE_CUDA));
    return ctx;
}

static void test_small_sizes_all_types(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    static const size_t sizes[] = {0, 1, 2, 3, 5, 31, 1023, 1024, 1025};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_all_types(ctx, sizes[i], 1, 1000 + i, NULL);
    stenc_ctx_destroy(ctx);
}

/* Small tiles: every path through strided tiles at sizes a sanitizer can run. */
static void test_strided_passes(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    /* Clusters of 2^3 blocks in the first pass unless the last field says otherwise (-1:
     * none); the last three: narrow registers (8 elements per thread, 32 and 128 threads). */
    const stenc_sort_policy policies[] = {{6, 2, 0, -1, 0}, {8, 3, 0, 1, 0},  {10, 5, 0, 2, 0},
                                          {8, 4, 0, 0, 0},  {8, 3, 32, 0, 0}, {10, 4, 128, -1, 0},
                                          {0, 0, 0, -1, 0}};
    static const size_t sizes[] = {1025, 4099, 65536};
    for (int p = 0; p < 7; p++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            check_all_types(ctx, sizes[i], 1, 50 + 7 * p + i, &policies[p]);
    stenc_ctx_destroy(ctx);
}

/* For racecheck (slow: every shared-memory access is checked): each key type and value kind
 * once per order at a size whose tile (2^11, 64 threads) moves both warp-locally and across
 * the block, the strided shapes on u32 keys and on 16-byte elements (16 registers per
 * thread), and a tile of 2^15 (1024 threads). */
static void test_race_subset(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    for (int t = 0; t < 6; t++)
        for (int v = V_NONE; v <= V_U64; v++)
            for (int o = 0; o < 2; o++)
                check_sort_case(ctx, all_key_types[t], (vkind)v, 1025, 1, D_RANDOM,
                                (stenc_sort_order)o, 300 + 6 * t + 2 * v + o, NULL);
    /* Clusters of 8, 8, 4 and none in the first pass, 2 in the tile of 2^15. */
    const stenc_sort_policy policies[] = {
        {6, 2, 0, 0, 0}, {8, 3, 0, 0, 0}, {11, 4, 0, 0, 0}, {10, 5, 0, -1, 0}};
    for (int p = 0; p < 4; p++)
        for (int o = 0; o < 2; o++) {
            check_sort_case(ctx, STENC_U32, V_NONE, 4099, 1, D_RANDOM, (stenc_sort_order)o,
                            400 + 2 * p + o, &policies[p]);
            check_sort_case(ctx, STENC_F64, V_U64, 4099, 1, D_SPECIAL, (stenc_sort_order)o,
                            420 + 2 * p + o, &policies[p]);
        }
    const stenc_sort_policy wide = {15, 5, 0, 0, 0};
    check_sort_case(ctx, STENC_U32, V_NONE, 70000, 1, D_RANDOM, STENC_SORT_ASCENDING, 440, &wide);
    /* The kernels with a fixed schedule for the later contiguous passes: tiles of 2^12 (4-, 8-
     * and 16-byte elements, two segments) and 2^14 (u32 keys). */
    const stenc_sort_policy fixed12 = {12, 3, 0, -1, 0}, fixed14 = {14, 3, 0, -1, 0};
    check_sort_case(ctx, STENC_U32, V_NONE, 12293, 2, D_RANDOM, STENC_SORT_DESCENDING, 460,
                    &fixed12);
    check_sort_case(ctx, STENC_F32, V_U32, 12293, 2, D_SPECIAL, STENC_SORT_ASCENDING, 461,
                    &fixed12);
    check_sort_case(ctx, STENC_F64, V_U64, 12293, 2, D_SPECIAL, STENC_SORT_DESCENDING, 462,
                    &fixed12);
    check_sort_case(ctx, STENC_U32, V_NONE, 65536 + 3, 1, D_RANDOM, STENC_SORT_ASCENDING, 463,
                    &fixed14);
    /* First-pass tiles larger than the later passes' (1024 threads, a cluster of 2). */
    const stenc_sort_policy first15 = {14, 3, 0, 1, 15};
    check_sort_case(ctx, STENC_F32, V_NONE, 65536 + 3, 2, D_SPECIAL, STENC_SORT_DESCENDING, 464,
                    &first15);
    /* Narrow registers (8 per thread): 32 threads with strided passes, and 1024 threads. */
    const stenc_sort_policy narrow[] = {{8, 3, 32, 0, 0}, {13, 4, 1024, 0, 0}};
    for (int p = 0; p < 2; p++) {
        check_sort_case(ctx, STENC_U32, V_NONE, 4099, 1, D_RANDOM, STENC_SORT_DESCENDING, 450 + p,
                        &narrow[p]);
        check_sort_case(ctx, STENC_F64, V_U64, 4099, 1, D_SPECIAL, STENC_SORT_ASCENDING, 452 + p,
                        &narrow[p]);
    }
    /* A split sort: the head, the tail beside it on the second stream, the last phase. */
    const int was = stsort_set_split(2);
    check_sort_case(ctx, STENC_F32, V_U32, 16385, 1, D_SPECIAL, STENC_SORT_DESCENDING, 470, NULL);
    stsort_set_split(was);
    /* Replays: one array sorted three times (direct, captured, replayed). */
    void *dk = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &dk, 70001 * 4));
    for (int call = 0; call < 3; call++)
        check_sort_in(ctx, dk, NULL, STENC_U32, V_NONE, 70001, 1, D_RANDOM, STENC_SORT_ASCENDING,
                      480 + (size_t)call, NULL);
    stenc_free(ctx, dk);
    stenc_ctx_destroy(ctx);
}

static void test_large_sizes(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    size_t big = ((size_t)1 << 20) + 7;
    for (int t = 0; t < 6; t++)
        for (int v = V_NONE; v <= V_U64; v++)
            check_sort_case(ctx, all_key_types[t], (vkind)v, big, 1, (dist)((t + v) % D_COUNT),
                            (stenc_sort_order)(t % 2), 7 + t, NULL);
    /* Tiles of 2^15 (1024-thread blocks, u32-sized keys only), and 2^10 with 2^4 chunks. */
    const stenc_sort_policy wide = {15, 5, 0, 0, 0}, narrow = {10, 4, 0, 0, 0},
                            wide8 = {14, 4, 0, 0, 0};
    const stenc_sort_policy no_cluster = {0, 0, 0, -1, 0};
    check_sort_case(ctx, STENC_F32, V_NONE, big, 1, D_SPECIAL, STENC_SORT_DESCENDING, 11, &wide);
    check_sort_case(ctx, STENC_U32, V_NONE, big, 1, D_RANDOM, STENC_SORT_ASCENDING, 12, &narrow);
    check_sort_case(ctx, STENC_U64, V_U32, big, 1, D_RANDOM, STENC_SORT_DESCENDING, 21,
                    &no_cluster);
    check_sort_case(ctx, STENC_I32, V_U32, big, 1, D_FEW, STENC_SORT_ASCENDING, 13, &narrow);
    /* Tiles of 2^14 8-byte elements (512 threads x 128 registers, 132 KiB). */
    check_sort_case(ctx, STENC_F64, V_NONE, big, 1, D_SPECIAL, STENC_SORT_ASCENDING, 15, &wide8);
    check_sort_case(ctx, STENC_U32, V_U32, big, 1, D_RANDOM, STENC_SORT_DESCENDING, 16, &wide8);
    /* Tiles of 2^7 with runs of 2^3: 42 passes, strided ones of up to 4 steps. */
    /* Narrow registers: tiles of 2^13 (1024 threads x 8) and 2^12 for 16-byte elements. */
    const stenc_sort_policy narrow13 = {13, 4, 1024, 0, 0}, narrow12 = {12, 4, 512, 0, 0};
    check_sort_case(ctx, STENC_F32, V_U32, big, 1, D_SPECIAL, STENC_SORT_DESCENDING, 19, &narrow13);
    check_sort_case(ctx, STENC_I64, V_U64, big, 1, D_RANDOM, STENC_SORT_ASCENDING, 20, &narrow12);
    const stenc_sort_policy tiny = {7, 3, 0, 0, 0};
    check_sort_case(ctx, STENC_U32, V_U32, big, 1, D_RANDOM, STENC_SORT_ASCENDING, 17, &tiny);
    check_sort_case(ctx, STENC_F64, V_NONE, big, 1, D_SPECIAL, STENC_SORT_DESCENDING, 18, &tiny);
    /* First-pass tiles of 2^15 and 2^14 before later ones of 2^14 and 2^13. */
    const stenc_sort_policy first15 = {14, 3, 0, 0, 15}, first14 = {13, 3, 0, 0, 14};
    check_sort_case(ctx, STENC_I32, V_NONE, big, 1, D_RANDOM, STENC_SORT_ASCENDING, 22, &first15);
    check_sort_case(ctx, STENC_U64, V_NONE, big, 1, D_FEW, STENC_SORT_DESCENDING, 23, &first14);
    if (!quick) {
        size_t huge = (size_t)1 << 24;
        check_sort_case(ctx, STENC_U32, V_NONE, huge + 3, 1, D_RANDOM, STENC_SORT_ASCENDING, 14,
                        &wide);
        check_sort_case(ctx, STENC_U32, V_NONE, huge, 1, D_RANDOM, STENC_SORT_ASCENDING, 1, NULL);
        check_sort_case(ctx, STENC_U32, V_U32, huge, 1, D_FEW, STENC_SORT_ASCENDING, 2, NULL);
        check_sort_case(ctx, STENC_U64, V_NONE, huge, 1, D_REVERSE, STENC_SORT_ASCENDING, 3, NULL);
        check_sort_case(ctx, STENC_F32, V_U64, huge, 1, D_SPECIAL, STENC_SORT_DESCENDING, 4, NULL);
        check_sort_case(ctx, STENC_F64, V_NONE, huge + 5, 1, D_SPECIAL, STENC_SORT_ASCENDING, 5,
                        NULL);
        check_sort_case(ctx, STENC_I32, V_NONE, huge, 1, D_SORTED, STENC_SORT_DESCENDING, 6, NULL);
    }
    stenc_ctx_destroy(ctx);
}

/* The bitonic first pass for tiles that lie in one segment (the path before the tiles' merge
 * sort; still the path of tiles that hold several segments): every key type and value kind,
 * with and without clusters, narrow registers and tiles of 2^15. */
static void test_bitonic_first_pass(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    const int was = stsort_set_tile_merge(0);
    const stenc_sort_policy policies[] = {
        {0, 0, 0, 0, 0}, {0, 0, 0, -1, 0}, {10, 4, 128, 0, 0}, {15, 5, 0, 0, 0}};
    const size_t sizes[] = {1025, 65536 + 3, ((size_t)1 << 20) + 7};
    const int num_sizes = quick ? 2 : 3;
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < num_sizes; i++) {
            if (p < 2)
                check_all_types(ctx, sizes[i], 1, 600 + 7 * p + i, &policies[p]);
            else
                check_sort_case(ctx, STENC_U32, V_NONE, sizes[i], 1, D_RANDOM,
                                STENC_SORT_DESCENDING, 640 + 7 * p + i, &policies[p]);
        }
    stsort_set_tile_merge(was);
    stenc_ctx_destroy(ctx);
}

/* Split sorts (stsort_split: a main part and a side part beside it on a second stream, then
 * the later phases), forced wherever a head-and-tail split can run: every key type, value
 * kind, distribution and order just above 2^16, and above 2^20 with the default tiles; then
 * sizes the default rule splits at 2^21 (on a 132-SM H100), with each of the tail's plans. */
static void test_split_sorts(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    const int was = stsort_set_split(2);
    check_all_types(ctx, 70001, 1, 900, NULL);
    const size_t big = ((size_t)1 << 20) + 7;
    for (int t = 0; t < 6; t++)
        for (int v = V_NONE; v <= V_U64; v++)
            check_sort_case(ctx, all_key_types[t], (vkind)v, big, 1, (dist)((t + v) % D_COUNT),
                            (stenc_sort_order)((t + v) % 2), 950 + 3 * t + v, NULL);
    stsort_set_split(1);
    /* Tails' first passes: u32 keys on tiles of 2^15, 2^14, then the default plan; 8-byte
     * elements on tiles of 2^14 up to 2^21 + 2^19, then the default plan. */
    const size_t by_rule[] = {2200000, 2300000, 2500000, 3000000};
    for (int i = 0; i < (quick ? 2 : 4); i++) {
        check_sort_case(ctx, STENC_U32, V_NONE, by_rule[i], 1, D_RANDOM, STENC_SORT_ASCENDING,
                        980 + i, NULL);
        check_sort_case(ctx, STENC_F32, V_U32, by_rule[i], 1, D_SPECIAL, STENC_SORT_DESCENDING,
                        984 + i, NULL);
    }
    check_sort_case(ctx, STENC_I64, V_NONE, 2280000, 1, D_FEW, STENC_SORT_ASCENDING, 990, NULL);
    stsort_set_split(was);
    stenc_ctx_destroy(ctx);
}

/* Replays (stsort_set_replay): one array sorted again and again with fresh data, so that the
 * second call captures its launches and runs them as a graph, as do later calls (counted by
 * stsort_replays); a different size, order, key type, value array or split on the same memory
 * is another problem; split sorts (forced, and by the rule on a 132-SM H100) replay both parts;
 * more problems than the context keeps, each called three times, evict replays that may still be
 * running. Every sort is checked element by element. */
static void test_replays(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    const size_t big = ((size_t)1 << 20) + 7, cap = 2300000;
    void *dk = NULL, *dv = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &dk, cap * 8 + 8));
    assert_stenc_ok(stenc_malloc(ctx, &dv, cap * 8 + 8));
    const int was = stsort_set_replay(1);
    struct {
        stenc_type kt;
        vkind vk;
        size_t len, segs;
        stenc_sort_order order;
        int split_mode;
    } problems[] = {{STENC_U32, V_NONE, 70001, 1, STENC_SORT_ASCENDING, 1},
                    {STENC_U32, V_NONE, 70001, 1, STENC_SORT_DESCENDING, 1},
                    {STENC_U32, V_NONE, 70000, 1, STENC_SORT_ASCENDING, 1},
                    {STENC_F32, V_U32, 70001, 1, STENC_SORT_ASCENDING, 1},
                    {STENC_F64, V_U64, big, 1, STENC_SORT_DESCENDING, 1},
                    {STENC_I32, V_U32, 4099, 33, STENC_SORT_ASCENDING, 1},
                    {STENC_U32, V_NONE, 70001, 1, STENC_SORT_ASCENDING, 2},
                    {STENC_I64, V_U32, big, 1, STENC_SORT_DESCENDING, 2},
                    {STENC_U32, V_NONE, 2200000, 1, STENC_SORT_ASCENDING, 1},
                    {STENC_F32, V_U32, cap, 1, STENC_SORT_DESCENDING, 1}};
    const int split_was = stsort_set_split(1);
    for (size_t p = 0; p < sizeof problems / sizeof *problems; p++)
        for (int call = 1; call <= 4; call++) {
            stsort_set_split(problems[p].split_mode);
            const unsigned long long before = stsort_replays();
            check_sort_in(ctx, dk, problems[p].vk == V_NONE ? NULL : dv, problems[p].kt,
                          problems[p].vk, problems[p].len, problems[p].segs,
                          (dist)((p + (size_t)call) % D_COUNT), problems[p].order,
                          1200 + 10 * p + (size_t)call, NULL);
            assert_int_equal(stsort_replays() - before, call >= 2);
        }
    stsort_set_split(split_was);
    /* Eviction: 20 problems (sizes) of three calls each, one after the other. */
    for (int i = 0; i < 20; i++)
        for (int call = 1; call <= 3; call++) {
            const unsigned long long before = stsort_replays();
            check_sort_in(ctx, dk, dv, STENC_U64, V_U32, 3000 + 977 * (size_t)i, 1, D_RANDOM,
                          STENC_SORT_ASCENDING, 1300 + 3 * (size_t)i + (size_t)call, NULL);
            assert_int_equal(stsort_replays() - before, call >= 2);
        }
    /* Off: every call direct. */
    stsort_set_replay(0);
    const unsigned long long before = stsort_replays();
    for (int call = 1; call <= 3; call++)
        check_sort_in(ctx, dk, NULL, STENC_U32, V_NONE, 70001, 1, D_RANDOM, STENC_SORT_ASCENDING,
                      1400 + (size_t)call, NULL);
    assert_int_equal(stsort_replays() - before, 0);
    stsort_set_replay(was);
    stenc_free(ctx, dk);
    stenc_free(ctx, dv);
    stenc_ctx_destroy(ctx);
}

static void test_segments(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    static const size_t shapes[][2] = {{1, 9},     {2, 1000},   {3, 1000},   {1025, 7},
                                       {4096, 64}, {100003, 3}, {33, 20000}, {65537, 17}};
    const stenc_sort_policy small = {8, 3, 0, 0, 0};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        check_sort_case(ctx, STENC_F32, V_U32, shapes[i][0], shapes[i][1], D_SPECIAL,
                        STENC_SORT_ASCENDING, 10 + i, NULL);
        check_sort_case(ctx, STENC_U64, V_NONE, shapes[i][0], shapes[i][1], D_RANDOM,
                        STENC_SORT_DESCENDING, 20 + i, NULL);
        check_sort_case(ctx, STENC_I32, V_U64, shapes[i][0], shapes[i][1], D_FEW,
                        STENC_SORT_ASCENDING, 30 + i, &small);
    }
    stenc_ctx_destroy(ctx);
}

static void test_errors(void **state) {
    (void)state;
    stenc_ctx *ctx = gpu_ctx();
    check_sort_errors(ctx);
    /* A tile larger than the device's shared memory is refused, not launched. */
    stenc_sort_policy huge = {16, 0, 0, 0, 0};
    void *k = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &k, 1 << 20));
    assert_int_equal(stenc_sort_segments_ex(ctx, STENC_U64, k, STENC_U64, k, 1 << 16, 1,
                                            STENC_SORT_ASCENDING, &huge),
                     STENC_ERR_CAPACITY);
    stenc_free(ctx, k);
    stenc_ctx_destroy(ctx);
}

int main(int argc, char **argv) {
    TEST_REQUIRE_GPU_OR_SKIP();
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    race = argc > 1 && strcmp(argv[1], "--race") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),         cmocka_unit_test(test_small_sizes_all_types),
        cmocka_unit_test(test_strided_passes), cmocka_unit_test(test_segments),
        cmocka_unit_test(test_large_sizes),    cmocka_unit_test(test_bitonic_first_pass),
        cmocka_unit_test(test_split_sorts),    cmocka_unit_test(test_replays),
    };
    if (race) {
        const struct CMUnitTest small[] = {cmocka_unit_test(test_race_subset)};
        return cmocka_run_group_tests(small, NULL, NULL);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
