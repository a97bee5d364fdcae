/* Argument checks for generated launchers: one table-driven function instead of the same
 * checks pasted into every generated file. */
#include "stenc/launch.h"

#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static const char *location_name(stenc_location where) {
    return where == STENC_ON_DEVICE ? "the device" : "the host";
}

static void format_extents(char *buf, size_t size, const stenc_field_layout *lay) {
    if (lay->dims == 1)
        snprintf(buf, size, "%zu", lay->n[0]);
    else if (lay->dims == 2)
        snprintf(buf, size, "%zux%zu", lay->n[0], lay->n[1]);
    else
        snprintf(buf, size, "%zux%zux%zu", lay->n[0], lay->n[1], lay->n[2]);
}

static int axes_count(unsigned axes) {
    return (axes & 1) + (axes >> 1 & 1) + (axes >> 2 & 1);
}

/* Checks of one field on its own: live, same context, dims, type, halo. */
static stenc_status check_field(const stenc_launch_desc *desc, const stenc_ctx *ctx,
                                const stenc_launch_arg *arg, const stenc_field *field,
                                stenc_field_layout *lay) {
    char what[160];
    snprintf(what, sizeof what, "field '%s'", arg->name);
    STENC_TRY(stenc_field_check(field, desc->name, what));
    STENC_REQUIRE(stenc_field_ctx(field) == ctx, "%s: field '%s' belongs to another context",
                  desc->name, arg->name);
    STENC_TRY(stenc_field_get_layout(field, lay));
    if (arg->axes) {
        const int spans = axes_count(arg->axes);
        if (lay->dims != spans)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: field '%s' is %d-D but input '%s' spans %d dimension%s of "
                               "the %d-D stencil",
                               desc->name, arg->name, lay->dims, arg->name, spans,
                               spans == 1 ? "" : "s", desc->dims);
    } else if (lay->dims != desc->dims) {
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: field '%s' is %d-D but the stencil is %d-D",
                           desc->name, arg->name, lay->dims, desc->dims);
    }
    if (arg->int_type && lay->type != (stenc_type)arg->int_type)
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: field '%s' holds %s but input '%s' is %s",
                           desc->name, arg->name, stenc_type_name(lay->type), arg->name,
                           stenc_type_name((stenc_type)arg->int_type));
    if (!arg->int_type && lay->type != desc->type)
        return STENC_ERROR(
            STENC_ERR_SHAPE, "%s: field '%s' holds %s but the stencil was generated for %s",
            desc->name, arg->name, stenc_type_name(lay->type), stenc_type_name(desc->type));
    if (arg->kind != STENC_ARG_OUTPUT && lay->halo < arg->halo)
        return STENC_ERROR(STENC_ERR_SHAPE, "%s: field '%s' has halo %d but the stencil reads %s",
                           desc->name, arg->name, lay->halo, arg->widest_read);
    return STENC_OK;
}

static const char *arg_kind_name(stenc_arg_kind kind) {
    return kind == STENC_ARG_INPUT ? "input" : kind == STENC_ARG_INOUT ? "inout" : "output";
}

/* An output or inout may not be any other argument: the kernel reads while it writes. */
static stenc_status check_aliasing(const stenc_launch_desc *desc,
                                   const stenc_field *const fields[]) {
    for (int a = 0; a < desc->nargs; a++) {
        if (desc->args[a].kind == STENC_ARG_INPUT) continue;
        for (int b = 0; b < desc->nargs; b++) {
            if (b == a || fields[b] != fields[a]) continue;
            const stenc_launch_arg *other = &desc->args[b];
            if (other->kind != STENC_ARG_INPUT && b < a) continue; /* reported for b */
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                               "%s: %s '%s' is the same field as %s '%s'", desc->name,
                               arg_kind_name(desc->args[a].kind), desc->args[a].name,
                               arg_kind_name(other->kind), other->name);
        }
    }
    return STENC_OK;
}

stenc_status stenc_launch_check(const stenc_launch_desc *desc, const stenc_ctx *ctx,
                                const stenc_field *const fields[], stenc_launch_field out[],
                                stenc_launch_shape *shape) {
    STENC_REQUIRE(desc != NULL && fields != NULL && out != NULL && shape != NULL,
                  "stenc_launch_check: NULL argument");
    STENC_TRY(stenc_ctx_check(ctx, desc->name));
    STENC_REQUIRE(desc->nargs >= 0 && desc->nargs <= STENC_LAUNCH_MAX_FIELDS,
                  "%s: %d field arguments (at most %d)", desc->name, desc->nargs,
                  STENC_LAUNCH_MAX_FIELDS);
    /* The interior comes from the first field that spans every dimension (the compiler
     * guarantees one); lower-dimensional inputs are checked against it. */
    int base = 0;
    while (base < desc->nargs && desc->args[base].axes)
        base++;
    STENC_REQUIRE(base < desc->nargs, "%s: no field spans every dimension", desc->name);
    /* Distributed fields first: the decomposition is the same fact on every rank, where the
     * local interiors checked below may match on one rank and not on another. */
    for (int a = 0; a < desc->nargs; a++) {
        if (!stenc_field_live(fields[a]) || !stenc_field_live(fields[base])) break; /* below */
        const int *e = desc->args[a].stagger;
        if ((e[0] || e[1] || e[2]) && stenc_field_decomp_signature(fields[base]) != 0)
            return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                               "%s: array '%s' is staggered, which is not supported on "
                               "distributed fields",
                               desc->name, desc->args[a].name);
        if (desc->args[a].axes) {
            if (stenc_field_decomp_signature(fields[base]) != 0)
                return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                                   "%s: input '%s' spans fewer dimensions than the stencil, which "
                                   "is not supported on distributed fields",
                                   desc->name, desc->args[a].name);
            continue;
        }
        if (stenc_field_decomp_signature(fields[a]) != stenc_field_decomp_signature(fields[base]))
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: field '%s' is split over the ranks differently from '%s' "
                               "(another decomposition, or one is distributed and the other "
                               "not)",
                               desc->name, desc->args[a].name, desc->args[base].name);
    }
    stenc_launch_shape found = {STENC_ON_HOST, {1, 1, 1}, {0, 0, 0}};
    stenc_field_layout first = {0};
    STENC_TRY(check_field(desc, ctx, &desc->args[base], fields[base], &first));
    found.location = stenc_field_location(fields[base]);
    /* The reference grid, from the base field's extent and stagger; the launch runs over the
     * written arrays' extent (their stagger; none without written arrays). */
    long grid[3] = {1, 1, 1}, launch_stagger[3] = {0, 0, 0};
    for (int a = 0; a < desc->nargs; a++)
        if (desc->args[a].kind != STENC_ARG_INPUT) {
            for (int d = 0; d < desc->dims; d++)
                launch_stagger[d] = desc->args[a].stagger[d];
            break;
        }
    for (int d = 0; d < desc->dims; d++) {
        grid[d] = (long)first.n[d] - desc->args[base].stagger[d];
        if (grid[d] + launch_stagger[d] < 0 || grid[d] < 0)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: field '%s' has %zu points along dimension %d, fewer than its "
                               "stagger %+d against the grid needs",
                               desc->name, desc->args[base].name, first.n[d], d,
                               desc->args[base].stagger[d]);
        found.n[d] = (size_t)(grid[d] + launch_stagger[d]);
    }
    stenc_field_index_offset(fields[base], found.index_offset);
    for (int a = 0; a < desc->nargs; a++) {
        const stenc_launch_arg *arg = &desc->args[a];
        if (a == base) continue;
        stenc_field_layout lay;
        STENC_TRY(check_field(desc, ctx, arg, fields[a], &lay));
        stenc_location where = stenc_field_location(fields[a]);
        int same = 1, staggered = 0;
        for (int d = 0, p = 0; d < desc->dims; d++) {
            if (arg->axes && !(arg->axes >> d & 1)) continue;
            staggered |= arg->stagger[d] != desc->args[base].stagger[d];
            same &= (long)lay.n[arg->axes ? p++ : d] == grid[d] + arg->stagger[d];
        }
        if (!same) {
            char mine[96], theirs[96];
            format_extents(mine, sizeof mine, &lay);
            format_extents(theirs, sizeof theirs, &first);
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: field '%s' has interior %s but '%s' has %s%s%s", desc->name,
                               arg->name, mine, desc->args[base].name, theirs,
                               arg->axes ? " along the dimensions it spans" : "",
                               staggered ? " (they are staggered against each other: the "
                                           "stencil declares their extents)"
                                         : "");
        }
        if (where != found.location)
            return STENC_ERROR(STENC_ERR_LOCATION, "%s: field '%s' lives on %s but '%s' on %s",
                               desc->name, arg->name, location_name(where), desc->args[base].name,
                               location_name(found.location));
    }
    STENC_TRY(check_aliasing(desc, fields));
    if (found.location == STENC_ON_DEVICE) {
        const int opencl = stenc_ctx_device(ctx) == STENC_DEVICE_OPENCL;
        const unsigned needed = opencl ? STENC_TARGET_OPENCL : STENC_TARGET_CUDA;
        if (!(desc->targets & needed))
            return STENC_ERROR(STENC_ERR_LOCATION,
                               "%s: the fields live on the %s device, but the stencil was "
                               "generated without the %s target (stenc --target %s)",
                               desc->name, opencl ? "OpenCL" : "CUDA", opencl ? "opencl" : "cuda",
                               opencl ? "opencl" : "cuda");
    }
    if (found.location == STENC_ON_HOST && !(desc->targets & STENC_TARGET_C))
        return STENC_ERROR(STENC_ERR_LOCATION,
                           "%s: the fields live on the host, but the stencil was generated "
                           "without the c target (stenc --target c)",
                           desc->name);
    for (int a = 0; a < desc->nargs; a++) {
        stenc_field_layout lay;
        STENC_TRY(stenc_field_get_layout(fields[a], &lay));
        out[a].origin = found.location == STENC_ON_DEVICE ? stenc_field_device_origin(fields[a])
                                                          : stenc_field_host_origin(fields[a]);
        const unsigned axes = desc->args[a].axes;
        for (int d = 0, p = 0; d < 3; d++)
            out[a].stride[d] = !axes ? lay.stride[d] : axes >> d & 1 ? lay.stride[p++] : 0;
    }
    *shape = found;
    return STENC_OK;
}

stenc_status stenc_launch_color(const char *stencil, const stenc_launch_colors *colors,
                                const stenc_launch_shape *shape, int color, int *local_color) {
    STENC_REQUIRE(colors && shape && local_color && colors->table, "stenc_launch_color: NULL "
                                                                   "argument");
    const int *p = colors->period;
    size_t o[3];
    for (int d = 0; d < 3; d++)
        o[d] = shape->index_offset[d] % (size_t)p[d];
    if (!o[0] && !o[1] && !o[2]) {
        *local_color = color;
        return STENC_OK;
    }
    /* Local point x has global colour table[x + o]: find the local colour whose points are
     * exactly the global colour's, through the renaming the shift makes. */
    int rename[64];
    for (int c = 0; c < 64; c++)
        rename[c] = -1;
    for (int k = 0; k < p[2]; k++)
        for (int j = 0; j < p[1]; j++)
            for (int i = 0; i < p[0]; i++) {
                const int local = colors->table[i + p[0] * (j + p[1] * k)];
                const size_t gi = (i + o[0]) % (size_t)p[0], gj = (j + o[1]) % (size_t)p[1],
                             gk = (k + o[2]) % (size_t)p[2];
                const int global = colors->table[gi + (size_t)p[0] * (gj + (size_t)p[1] * gk)];
                if (rename[global] < 0) rename[global] = local;
                if (rename[global] != local)
                    return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                                       "%s: the fields start at global index (%zu, %zu, %zu), "
                                       "where the colouring is not a renaming of its colours at "
                                       "(0, 0, 0); start parts and views on multiples of the "
                                       "period %d x %d x %d",
                                       stencil, shape->index_offset[0], shape->index_offset[1],
                                       shape->index_offset[2], p[0], p[1], p[2]);
            }
    *local_color = rename[color];
    return STENC_OK;
}

/* The distributed field among a launch's fields (they share one decomposition), or NULL. */
static const stenc_field *distributed_field(const stenc_launch_desc *desc,
                                            const stenc_field *const fields[]) {
    for (int a = 0; a < desc->nargs; a++)
        if (stenc_field_decomp_signature(fields[a]) != 0) return fields[a];
    return NULL;
}

stenc_status stenc_launch_steps_check(const stenc_launch_desc *desc,
                                      const stenc_field *const fields[]) {
    STENC_REQUIRE(desc && fields, "stenc_launch_steps_check: NULL argument");
    const stenc_field *dist = distributed_field(desc, fields);
    if (!dist) return STENC_OK;
    for (int a = 0; a < desc->nargs; a++)
        if (fields[a] &&
            stenc_field_decomp_signature(fields[a]) != stenc_field_decomp_signature(dist))
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s_steps: '%s' is not split over the ranks like the other fields",
                               desc->name, desc->args[a].name);
    return STENC_OK;
}

stenc_status stenc_launch_ordered_check(const stenc_launch_desc *desc,
                                        const stenc_field *const fields[],
                                        const stenc_launch_shape *shape) {
    STENC_REQUIRE(desc && fields && shape, "stenc_launch_ordered_check: NULL argument");
    if (distributed_field(desc, fields))
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "%s: an ordered sweep (order forward|backward) on fields distributed "
                           "over MPI ranks is not supported: each part would need its "
                           "neighbours' updated values first",
                           desc->name);
    (void)shape;
    return STENC_OK;
}

stenc_status stenc_launch_reduce_prepare(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                         const stenc_field *const fields[],
                                         const stenc_launch_shape *shape, int nreduces,
                                         double **terms) {
    STENC_REQUIRE(desc && ctx && fields && shape && terms && nreduces > 0,
                  "stenc_launch_reduce_prepare: NULL argument or no reduction");
    *terms = NULL;
    const stenc_field *dist = distributed_field(desc, fields);
    if (!dist) return STENC_OK;
    for (int a = 0; a < desc->nargs; a++) /* rank-local, so no rank waits for another */
        if (stenc_field_is_view(fields[a]))
            return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                               "%s: field '%s' is a view of a distributed field (as "
                               "stenc_dist_overlap launches on), where a reduce would cover "
                               "part of the grid; exchange the halo and launch on the whole "
                               "fields",
                               desc->name, desc->args[a].name);
    const stenc_field_dist_ops *ops = stenc_field_dist_ops_of(dist);
    STENC_REQUIRE(ops && ops->agree && ops->reduce_terms,
                  "%s: field '%s' is distributed but its library gives no global reduction",
                  desc->name, desc->args[0].name);
    const size_t points = shape->n[0] * shape->n[1] * shape->n[2];
    const size_t bytes = points * (size_t)nreduces * sizeof(double);
    stenc_status status = STENC_OK;
    void *p = NULL;
    if (shape->location == STENC_ON_DEVICE) {
        status = stenc_malloc(ctx, &p, bytes);
        if (status == STENC_OK) status = stenc_memzero(ctx, p, bytes);
    } else {
        p = calloc(points ? points * (size_t)nreduces : 1, sizeof(double));
        if (!p)
            status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                                 "%s: no memory for the %zu terms of a global reduction",
                                 desc->name, points * (size_t)nreduces);
    }
    status = ops->agree(dist, status, desc->name);
    if (status != STENC_OK) {
        if (shape->location == STENC_ON_DEVICE)
            stenc_free(ctx, p);
        else
            free(p);
        return status;
    }
    *terms = p;
    return STENC_OK;
}

stenc_status stenc_launch_reduce_finish(const stenc_launch_desc *desc, stenc_ctx *ctx,
                                        const stenc_field *const fields[],
                                        const stenc_launch_shape *shape, const char *ops,
                                        stenc_status kernel, double *terms, double *results) {
    const stenc_field *dist = desc && fields ? distributed_field(desc, fields) : NULL;
    const stenc_field_dist_ops *dops = dist ? stenc_field_dist_ops_of(dist) : NULL;
    stenc_status status;
    if (!dops || !ctx || !shape || !ops || !terms || !results)
        status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                             "stenc_launch_reduce_finish: not a prepared distributed launch");
    else
        status = dops->reduce_terms(dist, kernel, ops, terms, shape->n,
                                    shape->location == STENC_ON_DEVICE, results, desc->name);
    if (shape && shape->location == STENC_ON_DEVICE)
        stenc_free(ctx, terms);
    else
        free(terms);
    return status;
}
