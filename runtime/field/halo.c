/* Halo fills on the host, and the checks and dispatch shared with the device.
 *
 * Dimension d is filled over the whole allocated range (halo included) of the other
 * dimensions, in the order i, j, k. So an edge or corner point ends up with the rule of the
 * last dimension in whose halo it lies, applied to values the earlier dimensions already
 * filled: periodic corners wrap twice, Dirichlet corners take the later face's value. */
#include <stdint.h>

#include "field_internal.h"

const char *const stenc_face_names[STENC_FACE_COUNT] = {"i-lo", "i-hi", "j-lo",
                                                        "j-hi", "k-lo", "k-hi"};

static stenc_status check_bcs(const stenc_field_layout *L, const stenc_bc bc[STENC_FACE_COUNT]) {
    for (int d = 0; d < L->dims; d++) {
        const stenc_bc *lo = &bc[2 * d], *hi = &bc[2 * d + 1];
        for (int s = 0; s < 2; s++) {
            unsigned kind = (unsigned)bc[2 * d + s].kind;
            STENC_REQUIRE(kind <= STENC_BC_PERIODIC,
                          "stenc_field_fill_halo: face %s has unknown kind %u",
                          stenc_face_names[2 * d + s], kind);
        }
        for (int s = 0; s < 2; s++)
            if (bc[2 * d + s].kind == STENC_BC_DIRICHLET)
                STENC_TRY(stenc_field_value_fits(L->type, bc[2 * d + s].value,
                                                 "stenc_field_fill_halo (Dirichlet value)"));
        STENC_REQUIRE((lo->kind == STENC_BC_PERIODIC) == (hi->kind == STENC_BC_PERIODIC),
                      "stenc_field_fill_halo: face %s is %speriodic but face %s is %speriodic; "
                      "both faces of a dimension must agree",
                      stenc_face_names[2 * d], lo->kind == STENC_BC_PERIODIC ? "" : "not ",
                      stenc_face_names[2 * d + 1], hi->kind == STENC_BC_PERIODIC ? "" : "not ");
    }
    return STENC_OK;
}

/* Below this many lines (points of the other two dimensions) a fill is too small to be worth
 * starting threads for. */
enum { HALO_FILL_PARALLEL_MIN_LINES = 4096 };

/* Interior index that halo index `idx` (< 0 or >= n) takes its value from. */
static long source_index(stenc_bc_kind kind, long idx, long n) {
    if (kind == STENC_BC_NEUMANN) return idx < 0 ? 0 : n - 1;
    return ((idx % n) + n) % n; /* periodic */
}

/* The host fill of one dimension, for element type T, on the lines whose position along the
 * slowest dimension (dims - 1) lies in [s_lo, s_hi) when d is not that dimension. */
#define DEFINE_FILL_DIM(T, SUFFIX)                                                                 \
    static void fill_dim_##SUFFIX(const stenc_field_layout *L, T *origin, int d,                   \
                                  const stenc_bc *lo, const stenc_bc *hi, long s_lo, long s_hi) {  \
        const int o1 = d == 0 ? 1 : 0, o2 = d == 2 ? 1 : 2; /* the other two dimensions */         \
        const long h = L->halo, n = (long)L->n[d];                                                 \
        const long h1 = o1 < L->dims ? h : 0, h2 = o2 < L->dims ? h : 0;                           \
        const long n1 = (long)L->n[o1], n2 = (long)L->n[o2];                                       \
        const long a_lo = o1 == L->dims - 1 ? s_lo : -h1,                                          \
                   a_hi = o1 == L->dims - 1 ? s_hi : n1 + h1;                                      \
        const long b_lo = o2 == L->dims - 1 ? s_lo : -h2,                                          \
                   b_hi = o2 == L->dims - 1 ? s_hi : n2 + h2;                                      \
        const ptrdiff_t sd = L->stride[d], s1 = L->stride[o1], s2 = L->stride[o2];                 \
        const T lo_value = (T)lo->value, hi_value = (T)hi->value;                                  \
        const long lines = (a_hi - a_lo) * (b_hi - b_lo);                                          \
        _Pragma("omp parallel for collapse(2) if (lines > HALO_FILL_PARALLEL_MIN_LINES)") for (    \
            long b = b_lo; b < b_hi; b++) for (long a = a_lo; a < a_hi; a++) {                     \
            T *line = origin + a * s1 + b * s2;                                                    \
            for (long m = 1; m <= h; m++) {                                                        \
                const long ilo = -m, ihi = n - 1 + m;                                              \
                if (lo->kind == STENC_BC_DIRICHLET)                                                \
                    line[ilo * sd] = lo_value;                                                     \
                else if (lo->kind != STENC_BC_NONE)                                                \
                    line[ilo * sd] = line[source_index(lo->kind, ilo, n) * sd];                    \
                if (hi->kind == STENC_BC_DIRICHLET)                                                \
                    line[ihi * sd] = hi_value;                                                     \
                else if (hi->kind != STENC_BC_NONE)                                                \
                    line[ihi * sd] = line[source_index(hi->kind, ihi, n) * sd];                    \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_FILL_DIM(float, f32)
DEFINE_FILL_DIM(double, f64)
DEFINE_FILL_DIM(int32_t, i32)
DEFINE_FILL_DIM(uint8_t, u8)

/* Fill dimension d of a host field, on the lines at positions [s_lo, s_hi) of the slowest
 * dimension (ignored when d is the slowest). */
static void fill_dim(const stenc_field *field, int d, const stenc_bc *lo, const stenc_bc *hi,
                     long s_lo, long s_hi) {
    const stenc_field_layout *L = &field->layout;
    void *origin = stenc_field_host_origin(field);
    if (L->type == STENC_F32)
        fill_dim_f32(L, origin, d, lo, hi, s_lo, s_hi);
    else if (L->type == STENC_I32)
        fill_dim_i32(L, origin, d, lo, hi, s_lo, s_hi);
    else if (L->type == STENC_U8)
        fill_dim_u8(L, origin, d, lo, hi, s_lo, s_hi);
    else
        fill_dim_f64(L, origin, d, lo, hi, s_lo, s_hi);
}

stenc_status stenc_field_fill_halo(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT]) {
    STENC_TRY(stenc_field_check(field, "stenc_field_fill_halo", "field"));
    STENC_TRY(stenc_field_require_owner(field, "stenc_field_fill_halo"));
    STENC_REQUIRE(bc != NULL, "stenc_field_fill_halo: bc is NULL");
    const stenc_field_layout *L = &field->layout;
    STENC_TRY(check_bcs(L, bc));
    if (L->halo == 0) return STENC_OK;
    const long last = (long)L->n[L->dims - 1] + L->halo;
    for (int d = 0; d < L->dims; d++) {
        const stenc_bc *lo = &bc[2 * d], *hi = &bc[2 * d + 1];
        if (lo->kind == STENC_BC_NONE && hi->kind == STENC_BC_NONE) continue;
        if (field->location == STENC_ON_DEVICE)
            STENC_TRY(stenc_field_device_ops_of(field)->fill_halo_dim(field, d, lo, hi));
        else
            fill_dim(field, d, lo, hi, -(long)L->halo, last);
    }
    return STENC_OK;
}

/* The faces of every dimension but the slowest on positions [lo, hi) of the slowest. */
static void fill_other_dims(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT], long lo,
                            long hi) {
    for (int d = 0; d < field->layout.dims - 1; d++)
        if (bc[2 * d].kind != STENC_BC_NONE || bc[2 * d + 1].kind != STENC_BC_NONE)
            fill_dim(field, d, &bc[2 * d], &bc[2 * d + 1], lo, hi);
}

void stenc_field_fill_halo_slab(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT], long lo,
                                long hi) {
    const stenc_field_layout *L = &field->layout;
    const int s = L->dims - 1;
    const long n = (long)L->n[s], h = L->halo;
    if (h == 0 || lo >= hi) return;
    fill_other_dims(field, bc, lo, hi);
    /* The slowest dimension's faces once their planes are made. A face left alone keeps its
     * planes, whose other faces stenc_field_fill_halo fills all the same. */
    const stenc_bc none = {STENC_BC_NONE, 0};
    const stenc_bc *face_lo = &bc[2 * s], *face_hi = &bc[2 * s + 1];
    if (lo <= 0 && 0 < hi) {
        if (face_lo->kind == STENC_BC_NONE)
            fill_other_dims(field, bc, -h, 0);
        else
            fill_dim(field, s, face_lo, &none, 0, 0);
    }
    if (lo < n && n <= hi) {
        if (face_hi->kind == STENC_BC_NONE)
            fill_other_dims(field, bc, n, n + h);
        else
            fill_dim(field, s, &none, face_hi, 0, 0);
    }
}
