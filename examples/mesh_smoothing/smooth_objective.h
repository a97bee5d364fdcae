/* The mesh-smoothing objective (Shaffer & Zagaris, ch. 13), written once for the CPU
 * (smooth_cpu.c) and the GPU (smooth_cuda.cu): move vertex p within its tangent plane to
 * (u, v) and return 1 / (the smallest angle of its incident triangles). Positions farther than
 * the step bound alpha*d, or that flip a triangle, are infeasible (+inf; the solver runs with
 * STENC_NM_NONFINITE_REJECT). */
#ifndef MESH_SMOOTH_OBJECTIVE_H
#define MESH_SMOOTH_OBJECTIVE_H

#include <stdint.h>

#include "stenc/nelder_mead_core.h"

typedef struct smooth_params {
    double p[3], u[3], v[3], normal[3]; /* local frame at the vertex */
    double radius;                      /* step bound: alpha * (nearest projected neighbour) */
    int32_t vertex, tri_begin, tri_end; /* incident triangles vtri[tri_begin..tri_end) */
    const double *xyz;                  /* mesh, on the solver's device */
    const int32_t *tri, *vtri;
} smooth_params;

static inline STENC_NM_HD double smooth_angle(const double *a, const double *b, const double *c) {
    double e[3], f[3];
    for (int k = 0; k < 3; k++)
        e[k] = b[k] - a[k], f[k] = c[k] - a[k];
    const double cx = e[1] * f[2] - e[2] * f[1], cy = e[2] * f[0] - e[0] * f[2],
                 cz = e[0] * f[1] - e[1] * f[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), e[0] * f[0] + e[1] * f[1] + e[2] * f[2]);
}

/* (b - a) x (c - a) . n */
static inline STENC_NM_HD double smooth_orientation(const double *a, const double *b,
                                                    const double *c, const double *n) {
    double e[3], f[3];
    for (int k = 0; k < 3; k++)
        e[k] = b[k] - a[k], f[k] = c[k] - a[k];
    return (e[1] * f[2] - e[2] * f[1]) * n[0] + (e[2] * f[0] - e[0] * f[2]) * n[1] +
           (e[0] * f[1] - e[1] * f[0]) * n[2];
}

static inline STENC_NM_HD double smooth_objective(const double *x, int dim, const void *params) {
    (void)dim;
    const smooth_params *sp = (const smooth_params *)params;
    if (x[0] * x[0] + x[1] * x[1] > sp->radius * sp->radius) return INFINITY;
    double q[3];
    for (int k = 0; k < 3; k++)
        q[k] = sp->p[k] + x[0] * sp->u[k] + x[1] * sp->v[k];
    double min_angle = INFINITY;
    for (int t = sp->tri_begin; t < sp->tri_end; t++) {
        const int32_t *tv = sp->tri + 3 * sp->vtri[t];
        const double *old[3], *now[3];
        for (int c = 0; c < 3; c++) {
            old[c] = sp->xyz + 3 * tv[c];
            now[c] = tv[c] == sp->vertex ? q : old[c];
        }
        const double before = smooth_orientation(old[0], old[1], old[2], sp->normal);
        const double after = smooth_orientation(now[0], now[1], now[2], sp->normal);
        if (before * after <= 0) return INFINITY; /* folded over */
        for (int c = 0; c < 3; c++) {
            const double a = smooth_angle(now[c], now[(c + 1) % 3], now[(c + 2) % 3]);
            if (a < min_angle) min_angle = a;
        }
    }
    return 1.0 / min_angle;
}

STENC_NM_DECLARE_SOLVER(mesh_smooth_solver)

#endif
