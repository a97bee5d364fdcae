/* Mesh input/output, generation, adjacency, colouring and quality (see mesh.h). */
#include "mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mesh_read_off(const char *path, mesh *m) {
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    char head[8] = {0};
    int ne, ok = fscanf(f, "%3s %d %d %d", head, &m->nv, &m->nt, &ne) == 4 &&
                 strcmp(head, "OFF") == 0 && m->nv > 0 && m->nt > 0;
    if (ok) {
        m->xyz = malloc(3 * (size_t)m->nv * sizeof(double));
        m->tri = malloc(3 * (size_t)m->nt * sizeof(int32_t));
        for (int32_t i = 0; ok && i < 3 * m->nv; i++)
            ok = fscanf(f, "%lf", &m->xyz[i]) == 1;
        for (int32_t t = 0; ok && t < m->nt; t++) {
            int k;
            ok = fscanf(f, "%d %d %d %d", &k, &m->tri[3 * t], &m->tri[3 * t + 1],
                        &m->tri[3 * t + 2]) == 4 &&
                 k == 3;
            for (int c = 0; ok && c < 3; c++)
                ok = m->tri[3 * t + c] >= 0 && m->tri[3 * t + c] < m->nv;
        }
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: not a triangle OFF file\n", path);
        mesh_free(m);
        return 1;
    }
    return 0;
}

int mesh_write_off(const char *path, const mesh *m) {
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "OFF\n%d %d 0\n", m->nv, m->nt);
    for (int32_t i = 0; i < m->nv; i++)
        fprintf(f, "%.17g %.17g %.17g\n", m->xyz[3 * i], m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
    for (int32_t t = 0; t < m->nt; t++)
        fprintf(f, "3 %d %d %d\n", m->tri[3 * t], m->tri[3 * t + 1], m->tri[3 * t + 2]);
    return fclose(f) != 0;
}

static double rand01(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (double)(*s >> 11) * 0x1.0p-53;
}

void mesh_torus(mesh *m, int nu, int nv, double distort, uint64_t seed) {
    memset(m, 0, sizeof *m);
    const double R = 1.0, r = 0.4, pi = 3.14159265358979323846;
    m->nv = nu * nv, m->nt = 2 * nu * nv;
    m->xyz = malloc(3 * (size_t)m->nv * sizeof(double));
    m->tri = malloc(3 * (size_t)m->nt * sizeof(int32_t));
    uint64_t s = seed * 2654435761u + 88172645463325252ull;
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nv; j++) {
            /* move in the parameter plane: stays on the torus, tangentially */
            double a = 2 * pi * (i + distort * (2 * rand01(&s) - 1)) / nu;
            double b = 2 * pi * (j + distort * (2 * rand01(&s) - 1)) / nv;
            double *p = &m->xyz[3 * (i * nv + j)];
            p[0] = (R + r * cos(b)) * cos(a), p[1] = (R + r * cos(b)) * sin(a), p[2] = r * sin(b);
        }
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nv; j++) {
            int32_t a = i * nv + j, b = ((i + 1) % nu) * nv + j,
                    c = ((i + 1) % nu) * nv + (j + 1) % nv, d = i * nv + (j + 1) % nv,
                    *t = &m->tri[6 * (i * nv + j)];
            t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
        }
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int mesh_build_adjacency(mesh *m) {
    const int32_t nv = m->nv;
    m->vtri_start = calloc((size_t)nv + 1, sizeof(int32_t));
    m->nbr_start = calloc((size_t)nv + 1, sizeof(int32_t));
    m->vtri = malloc(3 * (size_t)m->nt * sizeof(int32_t));
    m->locked = calloc((size_t)nv, 1);
    int32_t *fill = calloc((size_t)nv, sizeof(int32_t)),
            *cand = malloc(6 * (size_t)m->nt * sizeof(int32_t));
    for (int32_t t = 0; t < 3 * m->nt; t++)
        m->vtri_start[m->tri[t] + 1]++;
    for (int32_t v = 0; v < nv; v++)
        m->vtri_start[v + 1] += m->vtri_start[v];
    for (int32_t t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++) {
            int32_t v = m->tri[3 * t + c];
            m->vtri[m->vtri_start[v] + fill[v]++] = t;
        }
    /* neighbours: the other corners of incident triangles, deduplicated */
    int32_t total = 0;
    for (int32_t v = 0; v < nv; v++) {
        int32_t n = 0, *cv = cand + total;
        for (int32_t k = m->vtri_start[v]; k < m->vtri_start[v + 1]; k++)
            for (int c = 0; c < 3; c++)
                if (m->tri[3 * m->vtri[k] + c] != v) cv[n++] = m->tri[3 * m->vtri[k] + c];
        qsort(cv, (size_t)n, sizeof(int32_t), cmp_i32);
        int32_t u = 0;
        for (int32_t k = 0; k < n; k++)
            if (u == 0 || cv[k] != cv[u - 1]) cv[u++] = cv[k];
        /* an interior vertex of a manifold has as many neighbours as triangles */
        m->locked[v] = u != m->vtri_start[v + 1] - m->vtri_start[v] || u < 3;
        m->nbr_start[v + 1] = total + u;
        total += u;
    }
    m->nbr = realloc(cand, ((size_t)total + 1) * sizeof(int32_t));
    free(fill);
    return 0;
}

int mesh_colour(const mesh *m, int32_t *colour) {
    int ncolours = 0;
    uint8_t used[256];
    for (int32_t v = 0; v < m->nv; v++)
        colour[v] = -1;
    for (int32_t v = 0; v < m->nv; v++) {
        memset(used, 0, sizeof used);
        for (int32_t k = m->nbr_start[v]; k < m->nbr_start[v + 1]; k++) {
            int32_t c = colour[m->nbr[k]];
            if (c >= 0 && c < 256) used[c] = 1;
        }
        int c = 0;
        while (c < 255 && used[c])
            c++;
        colour[v] = c;
        if (c + 1 > ncolours) ncolours = c + 1;
    }
    return ncolours;
}

double mesh_min_angle_deg(const mesh *m) {
    double worst = 180;
    for (int32_t t = 0; t < m->nt; t++)
        for (int c = 0; c < 3; c++) {
            const double *a = &m->xyz[3 * m->tri[3 * t + c]],
                         *b = &m->xyz[3 * m->tri[3 * t + (c + 1) % 3]],
                         *d = &m->xyz[3 * m->tri[3 * t + (c + 2) % 3]];
            double e[3], f[3];
            for (int k = 0; k < 3; k++)
                e[k] = b[k] - a[k], f[k] = d[k] - a[k];
            double cx = e[1] * f[2] - e[2] * f[1], cy = e[2] * f[0] - e[0] * f[2],
                   cz = e[0] * f[1] - e[1] * f[0];
            double ang =
                atan2(sqrt(cx * cx + cy * cy + cz * cz), e[0] * f[0] + e[1] * f[1] + e[2] * f[2]);
            if (ang * 180 / 3.14159265358979323846 < worst)
                worst = ang * 180 / 3.14159265358979323846;
        }
    return worst;
}

void mesh_free(mesh *m) {
    free(m->xyz), free(m->tri), free(m->vtri_start), free(m->vtri), free(m->nbr_start);
    free(m->nbr), free(m->locked);
    memset(m, 0, sizeof *m);
}
