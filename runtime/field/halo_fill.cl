/* Halo fills of a field on an OpenCL device, one dimension per launch (field_opencl.c): one work
 * item per halo point (layer m, side, a, b), where a and b run over the whole allocated range of
 * the other two dimensions. The rule is the host fill's (halo.c) and the CUDA kernel's
 * (field_cuda.cu). Elements move as unsigned integers of their size, so that every value,
 * NaN payloads and subnormals included, is copied bit for bit, and no device needs doubles. */

/* How a face fills its halo; field_opencl.c maps stenc_bc_kind onto these. */
#define RULE_NONE 0
#define RULE_VALUE 1 /* Dirichlet: the face's value */
#define RULE_CLAMP 2 /* Neumann: the nearest interior layer */
#define RULE_WRAP 3  /* periodic: the interior point it wraps to */

/* Interior index that halo index idx (< 0 or >= n) takes its value from. */
long source_index(int rule, long idx, long n) {
    if (rule == RULE_CLAMP) return idx < 0 ? 0 : n - 1;
    return ((idx % n) + n) % n;
}

/* base + origin_bytes is interior point (0,0,0). n, h: extent and halo along the filled
 * dimension; n1, h1 and n2, h2: the other two (halo 0 when unused); sd, s1, s2: their strides
 * in elements. */
#define FILL_HALO_DIM(T, NAME)                                                                     \
    __kernel void NAME(__global uchar *base, long origin_bytes, int rule_lo, int rule_hi,         \
                       T value_lo, T value_hi, long n, long h, long h1, long n1, long h2, long n2, \
                       long sd, long s1, long s2) {                                               \
        const long len1 = n1 + 2 * h1, len2 = n2 + 2 * h2;                                         \
        const long t = (long)get_global_id(0);                                                     \
        if (t >= 2 * h * len1 * len2) return;                                                      \
        const long a = t % len1, rest = t / len1;                                                  \
        const long b = rest % len2;                                                                \
        const int hi_side = (int)(rest / len2 % 2);                                                \
        const long m = rest / len2 / 2 + 1;                                                        \
        __global T *origin = (__global T *)(base + origin_bytes);                                  \
        __global T *line = origin + (a - h1) * s1 + (b - h2) * s2;                                 \
        const int rule = hi_side ? rule_hi : rule_lo;                                              \
        const long idx = hi_side ? n - 1 + m : -m;                                                 \
        if (rule == RULE_VALUE)                                                                    \
            line[idx * sd] = hi_side ? value_hi : value_lo;                                        \
        else if (rule != RULE_NONE)                                                                \
            line[idx * sd] = line[source_index(rule, idx, n) * sd];                                \
    }

FILL_HALO_DIM(uchar, fill_halo_dim_1)
FILL_HALO_DIM(uint, fill_halo_dim_4)
FILL_HALO_DIM(ulong, fill_halo_dim_8)
