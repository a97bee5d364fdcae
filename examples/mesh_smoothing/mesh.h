/* Triangulated surface meshes for the smoothing example: OFF files, a generated torus,
 * vertex adjacency, greedy colouring and the minimum-angle quality. */
#ifndef MESH_H
#define MESH_H

#include <stdint.h>
#include <stdio.h>

typedef struct mesh {
    int32_t nv, nt;
    double *xyz;  /* 3 per vertex */
    int32_t *tri; /* 3 per triangle */
    /* adjacency (mesh_build_adjacency): incident triangles and neighbours, CSR */
    int32_t *vtri_start, *vtri, *nbr_start, *nbr;
    uint8_t *locked; /* boundary vertices stay put */
} mesh;

int mesh_read_off(const char *path, mesh *m); /* 0 on success; message on stderr */
int mesh_write_off(const char *path, const mesh *m);
/* A torus of nu x nv vertices (radii 1 and 0.4), every vertex moved at random within its
 * tangent plane by up to `distort` times the local edge length. */
void mesh_torus(mesh *m, int nu, int nv, double distort, uint64_t seed);
int mesh_build_adjacency(mesh *m);
/* First-fit greedy colouring: colour[v] is the lowest not used by a neighbour. Returns the
 * number of colours. */
int mesh_colour(const mesh *m, int32_t *colour);
double mesh_min_angle_deg(const mesh *m);
void mesh_free(mesh *m);

#endif
