/* Sort test cases shared by the CPU and GPU tests: key generators, an independent order on
 * typed keys, and a checker (sorted under that order; a permutation of the input, checked
 * through the values or a multiset hash; values moved with their keys). */
#ifndef STENC_TEST_SORT_CASES_H
#define STENC_TEST_SORT_CASES_H

#include "test_util.h"
#include "stenc/sort.h"

typedef enum dist { D_RANDOM, D_SORTED, D_REVERSE, D_EQUAL, D_FEW, D_SPECIAL, D_COUNT } dist;
static const char *const dist_names[D_COUNT] = {"random", "sorted", "reverse",
                                                "equal",  "few",    "special"};

/* Value array: none, u32 or u64 (the original index of each key). */
typedef enum vkind { V_NONE, V_U32, V_U64 } vkind;

static inline float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline double bits_f64(uint64_t u) {
    double f;
    memcpy(&f, &u, 8);
    return f;
}
static inline uint64_t f64_bits(double f) {
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* The bits of key i of n. */
static uint64_t make_key(stenc_type t, dist d, size_t i, size_t n, test_rng *rng) {
    double centred = (double)i - (double)(n / 2);
    uint64_t r = test_rng_u64(rng);
    switch (d) {
    case D_SORTED:
        break;
    case D_REVERSE:
        centred = -centred;
        break;
    case D_EQUAL:
        centred = 42;
        break;
    case D_FEW:
        centred = (double)(int)(r % 4) * 2.5 - 3;
        break;
    case D_SPECIAL:
    case D_RANDOM:
    default:
        break;
    }
    if (d == D_SPECIAL) {
        static const uint32_t f32s[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu,
                                        0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,
                                        0x00000001u, 0x80000001u, 0x3F800000u, 0xBF800000u};
        static const uint64_t f64s[] = {0x7FF8000000000000ull,
                                        0xFFF8000000000000ull,
                                        0x7FF0000000000001ull,
                                        0xFFFFFFFFFFFFFFFFull,
                                        0ull,
                                        0x8000000000000000ull,
                                        0x7FF0000000000000ull,
                                        0xFFF0000000000000ull,
                                        1ull,
                                        0x8000000000000001ull,
                                        0x3FF0000000000000ull,
                                        0xBFF0000000000000ull};
        static const uint64_t ints[] = {0,
                                        1,
                                        0x7FFFFFFFull,
                                        0x80000000ull,
                                        0xFFFFFFFFull,
                                        0x7FFFFFFFFFFFFFFFull,
                                        0x8000000000000000ull,
                                        UINT64_MAX};
        int pick = (int)(r >> 60); /* 0..15: 12 specials, else random */
        if (t == STENC_F32 && pick < 12) return f32s[pick];
        if (t == STENC_F64 && pick < 12) return f64s[pick];
        if (t != STENC_F32 && t != STENC_F64 && pick < 8) {
            uint64_t v = ints[pick];
            return stenc_type_size(t) == 4 ? (uint32_t)v : v;
        }
        d = D_RANDOM;
    }
    if (d == D_RANDOM) {
        switch (t) {
        case STENC_F32:
            return f32_bits((float)test_rng_uniform(rng, -1e3, 1e3));
        case STENC_F64:
            return f64_bits(test_rng_uniform(rng, -1e3, 1e3));
        case STENC_U32:
        case STENC_I32:
            return (uint32_t)r;
        default:
            return r;
        }
    }
    switch (t) {
    case STENC_F32:
        return f32_bits((float)centred);
    case STENC_F64:
        return f64_bits(centred);
    case STENC_I32:
        return (uint32_t)(int32_t)centred;
    case STENC_I64:
        return (uint64_t)(int64_t)centred;
    case STENC_U32:
        return (uint32_t)(int64_t)(centred + (double)n);
    default:
        return (uint64_t)(int64_t)(centred + (double)n);
    }
}

/* The total order on typed keys, written without stenc's integer maps: <0, 0, >0. */
static int cmp_keys(stenc_type t, uint64_t a, uint64_t b) {
    switch (t) {
    case STENC_U32:
    case STENC_U64:
        return (a > b) - (a < b);
    case STENC_I32:
        return ((int32_t)a > (int32_t)b) - ((int32_t)a < (int32_t)b);
    case STENC_I64:
        return ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b);
    case STENC_F32:
    case STENC_F64: {
        double x = t == STENC_F32 ? (double)bits_f32((uint32_t)a) : bits_f64(a);
        double y = t == STENC_F32 ? (double)bits_f32((uint32_t)b) : bits_f64(b);
        int nx = isnan(x) != 0, ny = isnan(y) != 0;
        if (nx || ny) return nx - ny; /* NaNs last, equal among themselves */
        if (x < y) return -1;
        if (x > y) return 1;
        return (signbit(y) != 0) - (signbit(x) != 0); /* -0 before +0 */
    }
    default:
        return 0;
    }
}

static uint64_t get_bits(const void *p, size_t bytes, size_t i) {
    if (bytes == 4) return ((const uint32_t *)p)[i];
    return ((const uint64_t *)p)[i];
}
static void put_bits(void *p, size_t bytes, size_t i, uint64_t v) {
    if (bytes == 4)
        ((uint32_t *)p)[i] = (uint32_t)v;
    else
        ((uint64_t *)p)[i] = v;
}

/* An order-independent hash of a multiset of keys (two independent 64-bit sums). */
static void multiset_hash(const void *keys, size_t bytes, size_t n, uint64_t h[2]) {
    h[0] = h[1] = 0;
    for (size_t i = 0; i < n; i++) {
        test_rng a = test_rng_seeded(get_bits(keys, bytes, i));
        h[0] += test_rng_u64(&a);
        h[1] += test_rng_u64(&a) * 0x2545F4914F6CDD1Dull;
    }
}

/* Sort len * segs fresh keys (and values) in the context's buffers dk and dv (room for them;
 * dv unused without values) and check every element. */
static void check_sort_in(stenc_ctx *ctx, void *dk, void *dv, stenc_type kt, vkind vk, size_t len,
                          size_t segs, dist d, stenc_sort_order order, uint64_t seed,
                          const stenc_sort_policy *policy) {
    size_t n = len * segs, kb = stenc_type_size(kt), vb = vk == V_NONE ? 0 : vk == V_U32 ? 4 : 8;
    stenc_type vt = vk == V_U64 ? STENC_U64 : STENC_U32;
    void *in = malloc(n * kb + 8), *out = malloc(n * kb + 8);
    void *vals = vb ? malloc(n * vb + 8) : NULL;
    assert_non_null(in);
    assert_non_null(out);
    test_rng rng = test_rng_seeded(seed);
    for (size_t i = 0; i < n; i++)
        put_bits(in, kb, i, make_key(kt, d, i % len, len, &rng));
    for (size_t i = 0; i < n && vb; i++)
        put_bits(vals, vb, i, i);

    assert_stenc_ok(stenc_upload(ctx, dk, in, n * kb));
    if (vb) assert_stenc_ok(stenc_upload(ctx, dv, vals, n * vb));
    memset(out, 0xA5, n * kb);
    if (vb) memset(vals, 0xA5, n * vb);
    stenc_status st = stenc_sort_segments_ex(ctx, kt, n ? dk : NULL, vt, vb ? dv : NULL, len, segs,
                                             order, policy);
    if (st != STENC_OK)
        fail_msg("sort %s n=%zu x %zu %s: %s", stenc_type_name(kt), len, segs, dist_names[d],
                 stenc_last_error());
    assert_stenc_ok(stenc_ctx_synchronize(ctx));
    assert_stenc_ok(stenc_download(ctx, out, dk, n * kb));
    if (vb) assert_stenc_ok(stenc_download(ctx, vals, dv, n * vb));

    int sign = order == STENC_SORT_ASCENDING ? 1 : -1;
    unsigned char *seen = vb ? calloc(n + 1, 1) : NULL;
    for (size_t s = 0; s < segs; s++) {
        size_t o = s * len;
        for (size_t i = o + 1; i < o + len; i++) {
            int c = cmp_keys(kt, get_bits(out, kb, i - 1), get_bits(out, kb, i)) * sign;
            if (c > 0)
                fail_msg("%s %s n=%zu seg %zu/%zu %s %s: out of order at %zu: %#llx then %#llx",
                         stenc_type_name(kt), vb ? "pairs" : "keys", len, s, segs, dist_names[d],
                         sign > 0 ? "asc" : "desc", i - o,
                         (unsigned long long)get_bits(out, kb, i - 1),
                         (unsigned long long)get_bits(out, kb, i));
        }
        if (vb) {
            /* Each value is an original index of this segment, used once, beside its key. */
            for (size_t i = o; i < o + len; i++) {
                uint64_t src = get_bits(vals, vb, i);
                if (src < o || src >= o + len || seen[src])
                    fail_msg("value %zu: %llu is not a fresh index of segment %zu", i,
                             (unsigned long long)src, s);
                seen[src] = 1;
                if (get_bits(in, kb, src) != get_bits(out, kb, i))
                    fail_msg("key %zu was separated from its value %llu", i,
                             (unsigned long long)src);
            }
        } else {
            uint64_t ha[2], hb[2];
            multiset_hash((char *)in + o * kb, kb, len, ha);
            multiset_hash((char *)out + o * kb, kb, len, hb);
            if (ha[0] != hb[0] || ha[1] != hb[1])
                fail_msg("%s n=%zu seg %zu: output is not a permutation of the input",
                         stenc_type_name(kt), len, s);
        }
    }
    free(seen);
    free(in);
    free(out);
    free(vals);
}

/* check_sort_in on buffers of its own. */
static void check_sort_case(stenc_ctx *ctx, stenc_type kt, vkind vk, size_t len, size_t segs,
                            dist d, stenc_sort_order order, uint64_t seed,
                            const stenc_sort_policy *policy) {
    size_t n = len * segs, kb = stenc_type_size(kt), vb = vk == V_NONE ? 0 : vk == V_U32 ? 4 : 8;
    void *dk = NULL, *dv = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &dk, n * kb + 8));
    if (vb) assert_stenc_ok(stenc_malloc(ctx, &dv, n * vb + 8));
    check_sort_in(ctx, dk, dv, kt, vk, len, segs, d, order, seed, policy);
    stenc_free(ctx, dk);
    stenc_free(ctx, dv);
}

static const stenc_type all_key_types[] = {STENC_U32, STENC_I32, STENC_F32,
                                           STENC_U64, STENC_I64, STENC_F64};

/* Every key type, value kind and order, on every distribution, at the size `len`. */
static void check_all_types(stenc_ctx *ctx, size_t len, size_t segs, uint64_t seed,
                            const stenc_sort_policy *policy) {
    for (int t = 0; t < 6; t++)
        for (int v = V_NONE; v <= V_U64; v++)
            for (int d = 0; d < D_COUNT; d++)
                for (int o = 0; o < 2; o++)
                    check_sort_case(ctx, all_key_types[t], (vkind)v, len, segs, (dist)d,
                                    (stenc_sort_order)o,
                                    seed + 131 * (uint64_t)(t * 97 + v * 13 + d * 3 + o), policy);
}

/* Argument errors, the same on every device. */
static void check_sort_errors(stenc_ctx *ctx) {
    void *k = NULL;
    assert_stenc_ok(stenc_malloc(ctx, &k, 64));
    assert_int_equal(stenc_sort(NULL, STENC_U32, k, STENC_U32, NULL, 4, STENC_SORT_ASCENDING),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_sort(ctx, STENC_U32, NULL, STENC_U32, NULL, 4, STENC_SORT_ASCENDING),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(stenc_last_error(), "stenc_sort"));
    assert_int_equal(stenc_sort(ctx, (stenc_type)77, k, STENC_U32, NULL, 4, STENC_SORT_ASCENDING),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_sort(ctx, STENC_U32, k, STENC_F32, k, 4, STENC_SORT_ASCENDING),
                     STENC_ERR_UNSUPPORTED);
    assert_int_equal(stenc_sort(ctx, STENC_U32, k, STENC_U32, NULL, 4, (stenc_sort_order)5),
                     STENC_ERR_INVALID_ARGUMENT);
    assert_int_equal(stenc_sort_segments(ctx, STENC_U32, k, STENC_U32, NULL, SIZE_MAX / 2, 4,
                                         STENC_SORT_ASCENDING),
                     STENC_ERR_INVALID_ARGUMENT);
    stenc_sort_policy bad = {3, 0, 0, 0, 0}, bad_cluster = {0, 0, 0, 4, 0};
    /* A first-pass tile below the later ones, or one a block cannot hold (2048 threads). */
    stenc_sort_policy bad_first = {14, 0, 0, 0, 13}, huge_first = {14, 0, 0, 0, 16};
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA) {
        assert_int_equal(stenc_sort_segments_ex(ctx, STENC_U32, k, STENC_U32, NULL, 16, 1,
                                                STENC_SORT_ASCENDING, &bad_first),
                         STENC_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(stenc_last_error(), "first_tile_log2"));
        assert_int_equal(stenc_sort_segments_ex(ctx, STENC_U32, k, STENC_U32, NULL, 16, 1,
                                                STENC_SORT_ASCENDING, &huge_first),
                         STENC_ERR_CAPACITY);
        assert_int_equal(stenc_sort_segments_ex(ctx, STENC_U32, k, STENC_U32, NULL, 16, 1,
                                                STENC_SORT_ASCENDING, &bad),
                         STENC_ERR_INVALID_ARGUMENT);
        assert_int_equal(stenc_sort_segments_ex(ctx, STENC_U32, k, STENC_U32, NULL, 16, 1,
                                                STENC_SORT_ASCENDING, &bad_cluster),
                         STENC_ERR_INVALID_ARGUMENT);
    }
    /* Nothing to sort: fine, even without arrays. */
    assert_stenc_ok(stenc_sort(ctx, STENC_F64, NULL, STENC_U32, NULL, 0, STENC_SORT_ASCENDING));
    assert_stenc_ok(
        stenc_sort_segments(ctx, STENC_F64, NULL, STENC_U32, NULL, 5, 0, STENC_SORT_DESCENDING));
    stenc_free(ctx, k);
}

#endif /* STENC_TEST_SORT_CASES_H */
