/* Multi-block grids over MPI: block structures with patches, a largest-first partitioner,
 * multi-block fields, the exchange across patches and exact global sums. See
 * stenc/multiblock.h and docs/distributed.md. */
#include "stenc/multiblock.h"

#include <stdlib.h>
#include <string.h>

#include "dist_mpi.h"

static const stenc_handle_kind mb_kind = {"multi-block structure"};
static const stenc_handle_kind mb_field_kind = {"multi-block field"};

struct stenc_mb {
    stenc_ctx *ctx;
    MPI_Comm comm;
    int rank, size, dims, nblocks, npatches, nlocal;
    size_t (*n)[3];
    int *owner;        /* block -> rank */
    int *local_blocks; /* this rank's blocks, in block order */
    stenc_mb_patch *patches;
    unsigned char *on_patch; /* [block * 6 + face]: 1 when a patch joins that face */
};

struct stenc_mb_field {
    const stenc_mb *mb;
    stenc_type type;
    int halo;
    stenc_field **blocks; /* one per local block */
    dist_stream stream;   /* device fields: the exchange's stream */
    int have_stream;
    /* The exchange's buffers, kept from call to call: the same size every time. host is
     * pinned when it stages device fields (host_pinned). */
    char *host, *dev;
    int host_pinned;
    /* CUDA IPC with the ranks of this node whose GPUs reach this one (device fields): each
     * rank packs the routes it sends into ipc_buf (two slots of ipc_slot bytes, used by
     * turns); peer[r] is rank r's ipc_buf mapped here when this rank reads what r packs
     * (NULL: MPI brings it), at peer_offset[q] for route q; pulled_by[r]: rank r reads this
     * rank's buffer, so MPI carries an empty message. */
    char *ipc_buf;
    size_t ipc_slot;
    char **peer;
    size_t *peer_slot; /* [rank]: the slot size of that rank's buffer */
    size_t *peer_offset;
    unsigned char *pulled_by;
    unsigned round;
    int ipc_setup;
};

/* ---- the block structure ------------------------------------------------------------------ */

static stenc_status check_patch(int dims, int nblocks, const size_t (*n)[3],
                                const stenc_mb_patch *p, int index, unsigned char *on_patch) {
    const char *fn = "stenc_mb_create";
    for (int s = 0; s < 2; s++) {
        STENC_REQUIRE(p->block[s] >= 0 && p->block[s] < nblocks,
                      "%s: patch %d names block %d (there are %d)", fn, index, p->block[s],
                      nblocks);
        STENC_REQUIRE((int)p->face[s] >= 0 && (int)p->face[s] < 2 * dims,
                      "%s: patch %d names face %d of a %d-D block", fn, index, (int)p->face[s],
                      dims);
        unsigned char *used = &on_patch[p->block[s] * STENC_FACE_COUNT + p->face[s]];
        STENC_REQUIRE(!*used,
                      "%s: patch %d joins face %s of block %d, which another patch "
                      "joins already",
                      fn, index, stenc_face_names[p->face[s]], p->block[s]);
        *used = 1;
    }
    int seen[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        STENC_REQUIRE(p->axis[a] >= 0 && p->axis[a] < 3 && !seen[p->axis[a]],
                      "%s: patch %d: axis[] is not a permutation of 0, 1, 2", fn, index);
        seen[p->axis[a]] = 1;
        STENC_REQUIRE(a < dims || (p->axis[a] == a && !p->reverse[a]),
                      "%s: patch %d maps unused axis %d", fn, index, a);
    }
    const int d0 = p->face[0] / 2, d1 = p->face[1] / 2;
    STENC_REQUIRE(p->axis[d0] == d1,
                  "%s: patch %d: the normal axis %d of face %s maps to axis %d, not to the "
                  "normal axis %d of face %s",
                  fn, index, d0, stenc_face_names[p->face[0]], p->axis[d0], d1,
                  stenc_face_names[p->face[1]]);
    for (int a = 0; a < dims; a++) {
        if (a == d0) continue;
        const size_t e0 = n[p->block[0]][a], e1 = n[p->block[1]][p->axis[a]];
        if (e0 != e1)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: patch %d: face %s of block %d is %zu points along axis %d, "
                               "face %s of block %d %zu along axis %d; the sizes must match",
                               fn, index, stenc_face_names[p->face[0]], p->block[0], e0, a,
                               stenc_face_names[p->face[1]], p->block[1], e1, p->axis[a]);
    }
    return STENC_OK;
}

/* Largest block first, each to the least loaded rank so far (ties: the lower rank). */
static void partition(int nblocks, const size_t (*n)[3], int size, int *owner) {
    double *load = calloc((size_t)size, sizeof *load);
    int *order = malloc(sizeof *order * (size_t)nblocks);
    for (int b = 0; b < nblocks; b++)
        order[b] = b;
    for (int a = 1; a < nblocks; a++) /* insertion sort: points descending, then block number */
        for (int b = a; b > 0; b--) {
            const int x = order[b - 1], y = order[b];
            const size_t px = n[x][0] * n[x][1] * n[x][2], py = n[y][0] * n[y][1] * n[y][2];
            if (px > py || (px == py && x < y)) break;
            order[b - 1] = y, order[b] = x;
        }
    for (int i = 0; i < nblocks; i++) {
        const int b = order[i];
        int best = 0;
        for (int r = 1; r < size; r++)
            if (load[r] < load[best]) best = r;
        owner[b] = best;
        load[best] += (double)(n[b][0] * n[b][1] * n[b][2]);
    }
    free(order);
    free(load);
}

static void mb_free(stenc_mb *mb) {
    if (!mb) return;
    free(mb->n);
    free(mb->owner);
    free(mb->local_blocks);
    free(mb->patches);
    free(mb->on_patch);
    free(mb);
}

static stenc_status mb_build(stenc_mb *mb, int dims, int nblocks, const size_t (*n)[3],
                             int npatches, const stenc_mb_patch *patches, const int *owner,
                             int allow_idle) {
    const char *fn = "stenc_mb_create";
    STENC_REQUIRE(dims >= 1 && dims <= 3, "%s: dims is %d (1, 2 or 3)", fn, dims);
    STENC_REQUIRE(nblocks >= 1 && n != NULL, "%s: %d blocks, or n is NULL", fn, nblocks);
    STENC_REQUIRE(npatches >= 0 && (npatches == 0 || patches != NULL),
                  "%s: %d patches, or patches is NULL", fn, npatches);
    mb->dims = dims, mb->nblocks = nblocks, mb->npatches = npatches;
    mb->n = calloc((size_t)nblocks, sizeof *mb->n);
    mb->owner = calloc((size_t)nblocks, sizeof *mb->owner);
    mb->local_blocks = calloc((size_t)nblocks, sizeof *mb->local_blocks);
    mb->patches = calloc((size_t)npatches + 1, sizeof *mb->patches);
    mb->on_patch = calloc((size_t)nblocks * STENC_FACE_COUNT, 1);
    if (!mb->n || !mb->owner || !mb->local_blocks || !mb->patches || !mb->on_patch)
        return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory for %d blocks", fn, nblocks);
    for (int b = 0; b < nblocks; b++)
        for (int d = 0; d < 3; d++) {
            STENC_REQUIRE(d < dims ? n[b][d] >= 1 : n[b][d] == 1,
                          "%s: block %d has extent %zu along axis %d of a %d-D grid", fn, b,
                          n[b][d], d, dims);
            mb->n[b][d] = n[b][d];
        }
    for (int p = 0; p < npatches; p++) {
        STENC_TRY(check_patch(dims, nblocks, n, &patches[p], p, mb->on_patch));
        mb->patches[p] = patches[p];
    }
    if (owner) {
        for (int b = 0; b < nblocks; b++) {
            STENC_REQUIRE(owner[b] >= 0 && owner[b] < mb->size,
                          "%s: owner[%d] = %d is not one of the %d ranks", fn, b, owner[b],
                          mb->size);
            mb->owner[b] = owner[b];
        }
    } else {
        partition(nblocks, n, mb->size, mb->owner);
    }
    int idle = 0;
    for (int r = 0; r < mb->size; r++) {
        int held = 0;
        for (int b = 0; b < nblocks; b++)
            held += mb->owner[b] == r;
        idle += held == 0;
    }
    if (idle && !allow_idle)
        return STENC_ERROR(STENC_ERR_SHAPE,
                           "%s: %d of the %d ranks would hold no block (%d blocks); pass "
                           "allow_idle, or split blocks",
                           fn, idle, mb->size, nblocks);
    for (int b = 0; b < nblocks; b++)
        if (mb->owner[b] == mb->rank) mb->local_blocks[mb->nlocal++] = b;
    return STENC_OK;
}

stenc_status stenc_mb_create(stenc_mb **out, stenc_ctx *ctx, int dims, int nblocks,
                             const size_t (*n)[3], int npatches, const stenc_mb_patch *patches,
                             const int *owner, int allow_idle) {
    STENC_REQUIRE(out != NULL, "stenc_mb_create: mb pointer is NULL");
    *out = NULL;
    MPI_Comm comm;
    STENC_TRY(stenc_ctx_comm(ctx, &comm));
    stenc_mb *mb = calloc(1, sizeof *mb);
    stenc_status status = mb ? STENC_OK : STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "no memory");
    if (mb) {
        mb->ctx = ctx, mb->comm = comm;
        MPI_Comm_rank(comm, &mb->rank);
        MPI_Comm_size(comm, &mb->size);
        status = mb_build(mb, dims, nblocks, n, npatches, patches, owner, allow_idle);
    }
    if (status == STENC_OK) status = stenc_handle_add(mb, &mb_kind, "stenc_mb_create");
    status = dist_agree(comm, status, "stenc_mb_create");
    if (status != STENC_OK) {
        if (mb && stenc_handle_live(mb, &mb_kind)) stenc_handle_remove(mb, &mb_kind, "", "");
        mb_free(mb);
        return status;
    }
    *out = mb;
    return STENC_OK;
}

stenc_status stenc_mb_destroy(stenc_mb *mb) {
    if (!mb) return STENC_OK;
    STENC_TRY(stenc_handle_remove(mb, &mb_kind, "stenc_mb_destroy", "mb"));
    mb_free(mb);
    return STENC_OK;
}

int stenc_mb_owner(const stenc_mb *mb, int block) {
    if (stenc_handle_check(mb, &mb_kind, "stenc_mb_owner", "mb") != STENC_OK) return -1;
    if (block < 0 || block >= mb->nblocks) {
        STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "stenc_mb_owner: block %d of %d", block,
                    mb->nblocks);
        return -1;
    }
    return mb->owner[block];
}

int stenc_mb_local_count(const stenc_mb *mb) {
    if (stenc_handle_check(mb, &mb_kind, "stenc_mb_local_count", "mb") != STENC_OK) return 0;
    return mb->nlocal;
}

/* ---- multi-block fields ------------------------------------------------------------------- */

static stenc_status setup_mb_ipc(stenc_mb_field *f);

static void release_buffers(stenc_mb_field *f) {
    if (f->have_stream) dist_cuda_sync(&f->stream); /* no copy still reads or writes them */
    if (f->host_pinned)
        dist_cuda_host_free(f->host);
    else
        free(f->host);
    if (f->dev) stenc_free(f->mb->ctx, f->dev);
    f->host = f->dev = NULL;
    f->host_pinned = 0;
}

/* Collective: every rank unmaps what it mapped before any buffer is freed (CUDA forbids
 * freeing memory another process has mapped). */
static void release_ipc(stenc_mb_field *f) {
    if (!f->ipc_setup) return;
    if (f->have_stream) dist_cuda_sync(&f->stream);
    for (int r = 0; f->peer && r < f->mb->size; r++)
        dist_cuda_ipc_close(f->peer[r]);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Barrier(f->mb->comm);
    dist_cuda_ipc_free(f->ipc_buf);
    free(f->peer);
    free(f->peer_slot);
    free(f->peer_offset);
    free(f->pulled_by);
    f->ipc_buf = NULL, f->peer = NULL, f->peer_offset = NULL, f->pulled_by = NULL;
    f->peer_slot = NULL;
    f->ipc_setup = 0;
}

static void field_free(stenc_mb_field *f) {
    if (!f) return;
    release_ipc(f);
    release_buffers(f);
    if (f->have_stream) dist_cuda_stream_destroy(&f->stream);
    for (int l = 0; f->blocks && l < f->mb->nlocal; l++)
        stenc_field_free(f->blocks[l]);
    free(f->blocks);
    free(f);
}

stenc_status stenc_mb_field_create(stenc_mb_field **out, const stenc_mb *mb, stenc_type type,
                                   int halo) {
    const char *fn = "stenc_mb_field_create";
    STENC_REQUIRE(out != NULL, "%s: field pointer is NULL", fn);
    *out = NULL;
    STENC_TRY(stenc_handle_check(mb, &mb_kind, fn, "mb"));
    stenc_status status = STENC_OK;
    /* Global checks first: every rank finds the same. A patch copies `halo` layers of the
     * block across it, so that block must be as deep. */
    for (int p = 0; p < mb->npatches && status == STENC_OK; p++)
        for (int s = 0; s < 2; s++) {
            const stenc_mb_patch *pa = &mb->patches[p];
            const size_t depth = mb->n[pa->block[s]][pa->face[s] / 2];
            if (depth < (size_t)halo)
                status =
                    STENC_ERROR(STENC_ERR_SHAPE,
                                "%s: block %d is %zu points deep at face %s (patch %d), "
                                "less than the halo %d",
                                fn, pa->block[s], depth, stenc_face_names[pa->face[s]], p, halo);
        }
    stenc_mb_field *f = NULL;
    if (status == STENC_OK) {
        f = calloc(1, sizeof *f);
        if (f) f->blocks = calloc((size_t)mb->nlocal + 1, sizeof *f->blocks);
        if (!f || !f->blocks) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    }
    if (status == STENC_OK) {
        f->mb = mb, f->type = type, f->halo = halo;
        for (int l = 0; l < mb->nlocal && status == STENC_OK; l++) {
            const size_t *n = mb->n[mb->local_blocks[l]];
            status =
                stenc_field_create(mb->ctx, &f->blocks[l], type, mb->dims, n[0], n[1], n[2], halo);
        }
        if (status == STENC_OK && stenc_ctx_device(mb->ctx) == STENC_DEVICE_CUDA) {
            status = dist_cuda_stream_create(&f->stream);
            f->have_stream = 1;
        }
        if (status == STENC_OK) status = stenc_handle_add(f, &mb_field_kind, fn);
    }
    status = dist_agree(mb->comm, status, fn);
    if (status == STENC_OK) status = setup_mb_ipc(f); /* collective, agreed inside */
    if (status != STENC_OK) {
        if (f && stenc_handle_live(f, &mb_field_kind))
            stenc_handle_remove(f, &mb_field_kind, "", "");
        field_free(f);
        return status;
    }
    *out = f;
    return STENC_OK;
}

stenc_status stenc_mb_field_free(stenc_mb_field *field) {
    if (!field) return STENC_OK;
    STENC_TRY(stenc_handle_remove(field, &mb_field_kind, "stenc_mb_field_free", "field"));
    field_free(field);
    return STENC_OK;
}

stenc_field *stenc_mb_field_block(const stenc_mb_field *field, int local, int *block) {
    if (block) *block = -1;
    if (stenc_handle_check(field, &mb_field_kind, "stenc_mb_field_block", "field") != STENC_OK)
        return NULL;
    if (local < 0 || local >= field->mb->nlocal) {
        STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                    "stenc_mb_field_block: local block %d of the %d on this rank", local,
                    field->mb->nlocal);
        return NULL;
    }
    if (block) *block = field->mb->local_blocks[local];
    return field->blocks[local];
}

static stenc_status move(stenc_mb_field *field, int up, const char *fn) {
    STENC_TRY(stenc_handle_check(field, &mb_field_kind, fn, "field"));
    for (int l = 0; l < field->mb->nlocal; l++)
        STENC_TRY(up ? stenc_field_upload(field->blocks[l])
                     : stenc_field_download(field->blocks[l]));
    return STENC_OK;
}

stenc_status stenc_mb_field_upload(stenc_mb_field *field) {
    return move(field, 1, "stenc_mb_field_upload");
}

stenc_status stenc_mb_field_download(stenc_mb_field *field) {
    return move(field, 0, "stenc_mb_field_download");
}

stenc_status stenc_mb_foreach(int nfields, stenc_mb_field *const fields[],
                              stenc_dist_launch_fn launch, void *user) {
    const char *fn = "stenc_mb_foreach";
    STENC_REQUIRE(nfields >= 1 && nfields <= STENC_DIST_OVERLAP_MAX_FIELDS && fields && launch,
                  "%s: %d fields (1 to %d), or fields or launch is NULL", fn, nfields,
                  STENC_DIST_OVERLAP_MAX_FIELDS);
    for (int f = 0; f < nfields; f++) {
        STENC_TRY(stenc_handle_check(fields[f], &mb_field_kind, fn, "a field"));
        STENC_REQUIRE(fields[f]->mb == fields[0]->mb,
                      "%s: field %d has another block structure than field 0", fn, f);
    }
    for (int l = 0; l < fields[0]->mb->nlocal; l++) {
        stenc_field *views[STENC_DIST_OVERLAP_MAX_FIELDS];
        for (int f = 0; f < nfields; f++)
            views[f] = fields[f]->blocks[l];
        STENC_TRY(launch(user, views));
    }
    return STENC_OK;
}

/* ---- the exchange across patches ----------------------------------------------------------- */

/* One direction of a patch: the halo of face `dface` of block `dst` from block `src`, whose
 * face `sface` it meets; dst axis e runs along src axis src_axis[e], reversed where rev[e]. */
typedef struct mb_route {
    int dst, src;
    int dface, sface;
    int src_axis[3], rev[3];
} mb_route;

static mb_route route_of(const stenc_mb_patch *p, int dir) {
    mb_route r;
    r.dst = p->block[dir], r.src = p->block[1 - dir];
    r.dface = p->face[dir], r.sface = p->face[1 - dir];
    for (int a = 0; a < 3; a++) {
        if (dir == 0) {
            r.src_axis[a] = p->axis[a], r.rev[a] = p->reverse[a];
        } else { /* the inverse map: block[1]'s axis p->axis[a] runs along block[0]'s a */
            r.src_axis[p->axis[a]] = a, r.rev[p->axis[a]] = p->reverse[a];
        }
    }
    return r;
}

/* The dst halo box of the route (dst block coordinates): the face's interior extent along
 * the tangential axes, or with `corners` their halo too (edges and corners). */
static void halo_box(const stenc_mb *mb, const mb_route *r, int h, int corners, long lo[3],
                     long count[3]) {
    const size_t *n = mb->n[r->dst];
    const int dd = r->dface / 2, ds = r->dface % 2;
    for (int e = 0; e < 3; e++) {
        const int wide = corners && e < mb->dims;
        lo[e] = wide ? -h : 0, count[e] = (long)n[e] + (wide ? 2 * h : 0);
    }
    lo[dd] = ds ? (long)n[dd] : -h;
    count[dd] = h;
}

/* Bytes of the route's halo box; with corners, the most any exchange moves on it. */
static size_t route_bytes(const stenc_mb *mb, const mb_route *r, int h, int corners, size_t elem) {
    long lo[3], count[3];
    halo_box(mb, r, h, corners, lo, count);
    return (size_t)(count[0] * count[1] * count[2]) * elem;
}

/* The gather that reads, in the dst halo box's order, the src points each halo point takes. */
static dist_gather route_gather(const stenc_mb *mb, const mb_route *r, int h, int corners,
                                const stenc_field *src) {
    const size_t *ns = mb->n[r->src];
    stenc_field_layout L;
    stenc_field_get_layout(src, &L);
    const int dd = r->dface / 2, ds = r->dface % 2, ss = r->sface % 2;
    long lo[3], count[3];
    halo_box(mb, r, h, corners, lo, count);
    dist_gather g;
    ptrdiff_t base = 0;
    for (int e = 0; e < 3; e++) {
        const int a = r->src_axis[e];
        ptrdiff_t off, step;
        if (e == dd) { /* x-th halo layer: its distance m from the face, then inside src */
            const ptrdiff_t m0 = ds ? 0 : h - 1, dm = ds ? 1 : -1; /* m = m0 + dm * x */
            off = ss ? (ptrdiff_t)ns[a] - 1 - m0 : m0;
            step = ss ? -dm : dm;
        } else { /* tangential: dst index t reads src index t, or ns-1-t reversed */
            off = r->rev[e] ? (ptrdiff_t)ns[a] - 1 - lo[e] : lo[e];
            step = r->rev[e] ? -1 : 1;
        }
        base += off * L.stride[a];
        g.step[e] = step * L.stride[a];
        g.count[e] = count[e];
    }
    const int device = stenc_field_location(src) == STENC_ON_DEVICE;
    g.base =
        (const char *)(device ? stenc_field_device_origin(src) : stenc_field_host_origin(src)) +
        base * (ptrdiff_t)stenc_type_size(L.type);
    g.elem = stenc_type_size(L.type);
    return g;
}

/* Where each route's packed halo lies in the buffer of rank `rank` (the routes it sends or
 * receives, in route order, each with room for its edges and corners): offset[q] in bytes;
 * returns the total. */
static size_t route_layout(const stenc_mb *mb, int rank, int h, size_t elem, size_t *offset) {
    size_t total = 0;
    for (int q = 0; q < 2 * mb->npatches; q++) {
        const mb_route r = route_of(&mb->patches[q / 2], q % 2);
        if (offset) offset[q] = total;
        if (mb->owner[r.dst] != rank && mb->owner[r.src] != rank) continue;
        total += route_bytes(mb, &r, h, 1, elem);
    }
    return total;
}

/* Collective: map the buffers of the ranks this one receives from, where CUDA IPC reaches
 * them (off with STENC_MPI_IPC=0, on the host), and tell each rank who reads its buffer. Every
 * rank makes the same calls whatever fails; the status is this rank's. */
static stenc_status setup_mb_ipc(stenc_mb_field *f) {
    const stenc_mb *mb = f->mb;
    const int size = mb->size, nroutes = 2 * mb->npatches;
    const size_t elem = stenc_type_size(f->type);
    stenc_status status = STENC_OK;
    dist_ipc_offer mine;
    memset(&mine, 0, sizeof mine);
    mine.node = dist_node_key(mb->comm);
    const size_t total = route_layout(mb, mb->rank, f->halo, elem, NULL);
    mine.usable = total > 0 && dist_ipc_wanted(mb->ctx, f->halo, &mine);
    if (mine.usable) {
        status = dist_cuda_ipc_alloc((void **)&f->ipc_buf, 2 * total, mine.handle);
        mine.usable = status == STENC_OK;
        f->ipc_slot = total;
    }
    dist_ipc_offer *all = calloc((size_t)size, sizeof *all);
    int *reads = calloc((size_t)size, sizeof *reads), *pulls = calloc((size_t)size, sizeof *pulls);
    f->peer = calloc((size_t)size, sizeof *f->peer);
    f->peer_slot = calloc((size_t)size, sizeof *f->peer_slot);
    f->peer_offset = calloc((size_t)nroutes + 1, sizeof *f->peer_offset);
    f->pulled_by = calloc((size_t)size, 1);
    size_t *theirs = calloc((size_t)nroutes + 1, sizeof *theirs);
    if (!all || !reads || !pulls || !f->peer || !f->peer_slot || !f->peer_offset || !f->pulled_by ||
        !theirs)
        status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_mb_field_create: no memory");
    /* The exchanges below need every rank's buffers: agree first. */
    status = dist_agree(mb->comm, status, "stenc_mb_field_create");
    if (status == STENC_OK) {
        MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, mb->comm);
        for (int q = 0; mine.usable && q < nroutes; q++) {
            const mb_route r = route_of(&mb->patches[q / 2], q % 2);
            const int from = mb->owner[r.src];
            if (mb->owner[r.dst] != mb->rank || from == mb->rank) continue;
            if (!all[from].usable || all[from].node != mine.node) continue;
            if (!f->peer[from]) {
                f->peer[from] = dist_cuda_ipc_open(all[from].handle, all[from].bus);
                if (!f->peer[from]) continue;
            }
            f->peer_slot[from] = route_layout(mb, from, f->halo, elem, theirs);
            f->peer_offset[q] = theirs[q];
            reads[from] = 1;
        }
        MPI_Alltoall(reads, 1, MPI_INT, pulls, 1, MPI_INT, mb->comm);
        for (int r = 0; r < size; r++)
            f->pulled_by[r] = pulls[r] != 0;
    }
    free(all), free(reads), free(pulls), free(theirs);
    f->ipc_setup = 1;
    return status;
}

static int local_index(const stenc_mb *mb, int block) {
    for (int l = 0; l < mb->nlocal; l++)
        if (mb->local_blocks[l] == block) return l;
    return -1;
}

/* Faces on no patch: the boundary conditions, block by block. */
static stenc_status fill_free_faces(stenc_mb_field *field, const stenc_bc bc[STENC_FACE_COUNT]) {
    const stenc_mb *mb = field->mb;
    for (int l = 0; l < mb->nlocal; l++) {
        stenc_bc faces[STENC_FACE_COUNT] = {{STENC_BC_NONE, 0}};
        for (int f = 0; f < 2 * mb->dims; f++)
            if (!mb->on_patch[mb->local_blocks[l] * STENC_FACE_COUNT + f]) faces[f] = bc[f];
        STENC_TRY(stenc_field_fill_halo(field->blocks[l], faces));
    }
    return STENC_OK;
}

/* One pass over every patch: each halo box on a patch (with its edges and corners when
 * `corners`) from the other block. Buffers are allocated, the messages posted and completed
 * whatever fails; the status is this rank's. */
static stenc_status exchange_pass(stenc_mb_field *field, int corners, const char *fn) {
    const stenc_mb *mb = field->mb;
    stenc_status status = STENC_OK;
    const int h = field->halo;
    const size_t elem = stenc_type_size(field->type);
    const int device = mb->nlocal > 0 && stenc_field_location(field->blocks[0]) == STENC_ON_DEVICE;
    const int staged = device && !stenc_mpi_cuda_aware();
    /* One buffer slot per route that this rank packs or receives, in route order, with room
     * for edges and corners; used[q] bytes of it move in this pass. */
    const int nroutes = 2 * mb->npatches;
    size_t *offset = calloc((size_t)nroutes + 1, sizeof *offset);
    size_t *used = calloc((size_t)nroutes + 1, sizeof *used);
    MPI_Request *req = malloc(sizeof *req * (2 * (size_t)nroutes + 1)); /* receives, sends */
    size_t total = 0;
    for (int q = 0; q < nroutes && offset && used && req; q++) {
        const mb_route r = route_of(&mb->patches[q / 2], q % 2);
        offset[q] = total;
        req[q] = req[nroutes + q] = MPI_REQUEST_NULL;
        if (mb->owner[r.dst] != mb->rank && mb->owner[r.src] != mb->rank) continue;
        total += route_bytes(mb, &r, h, 1, elem);
        used[q] = route_bytes(mb, &r, h, corners, elem);
    }
    if (offset) offset[nroutes] = total;
    if (!offset || !used || !req)
        status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    /* The buffers of the last call serve again unless the field has moved since: device
     * fields want a pinned host buffer and a device one, host fields a plain one. */
    if (status == STENC_OK && h > 0 && (device ? !field->dev : field->host_pinned))
        release_buffers(field);
    if (status == STENC_OK && h > 0 && !field->host) {
        if (device) {
            status = dist_cuda_host_alloc((void **)&field->host, total + 1);
            field->host_pinned = status == STENC_OK;
            if (status == STENC_OK) status = stenc_malloc(mb->ctx, (void **)&field->dev, total + 1);
        } else {
            field->host = malloc(total + 1);
            if (!field->host) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
        }
        if (status != STENC_OK) release_buffers(field);
    }
    char *host = field->host, *dev = field->dev;
    MPI_Status *got = malloc(sizeof *got * (2 * (size_t)nroutes + 1));
    if (!got && status == STENC_OK)
        status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    status = dist_agree(mb->comm, status, fn);
    /* CUDA IPC: the slot of this round (every rank counts its exchanges alike); slots are
     * slot bytes apart here, peer_slot[r] apart in rank r's buffer. */
    const unsigned parity = field->round++ & 1;
    const size_t slot = parity * field->ipc_slot;
#define PULLED(q_dst_rank) (device && field->pulled_by && field->pulled_by[q_dst_rank])
#define PEER(q_src_rank) (device && field->peer ? field->peer[q_src_rank] : NULL)
    if (status == STENC_OK && h > 0) {
        char *msg = staged || !device ? host : dev; /* what MPI reads and writes */
        if (device) status = dist_cuda_mark_ready(mb->ctx, &field->stream);
        if (device && status == STENC_OK) status = dist_cuda_wait_ready(&field->stream);
        /* The last call's unpacking may still read the host buffer that MPI is to fill. */
        if (device && status == STENC_OK) status = dist_cuda_sync(&field->stream);
        /* Messages are posted whatever fails on the way, so that no peer waits for them. */
        for (int q = 0; q < nroutes; q++) { /* receives first */
            const mb_route r = route_of(&mb->patches[q / 2], q % 2);
            if (mb->owner[r.dst] != mb->rank || mb->owner[r.src] == mb->rank) continue;
            MPI_Irecv(msg + offset[q], (int)(offset[q + 1] - offset[q]), MPI_BYTE, mb->owner[r.src],
                      q, mb->comm, &req[q]);
        }
        for (int q = 0; q < nroutes && status == STENC_OK; q++) { /* then pack what we hold */
            const mb_route r = route_of(&mb->patches[q / 2], q % 2);
            if (mb->owner[r.src] != mb->rank) continue;
            const dist_gather g =
                route_gather(mb, &r, h, corners, field->blocks[local_index(mb, r.src)]);
            if (mb->owner[r.dst] != mb->rank && PULLED(mb->owner[r.dst])) { /* read there */
                status = dist_cuda_gather(&field->stream, &g, field->ipc_buf + slot + offset[q]);
            } else if (device) {
                status = dist_cuda_gather(&field->stream, &g, dev + offset[q]);
                if (status == STENC_OK && staged)
                    status = dist_cuda_copy(&field->stream, host + offset[q], dev + offset[q],
                                            used[q], 0);
            } else {
                dist_host_gather(&g, host + offset[q]);
            }
        }
        if (device && status == STENC_OK) status = dist_cuda_sync(&field->stream);
        for (int q = 0; q < nroutes; q++) { /* through IPC, an empty message: it is in place */
            const mb_route r = route_of(&mb->patches[q / 2], q % 2);
            if (mb->owner[r.src] != mb->rank || mb->owner[r.dst] == mb->rank) continue;
            const int bytes = PULLED(mb->owner[r.dst]) ? 0 : (int)used[q];
            MPI_Isend(msg + offset[q], bytes, MPI_BYTE, mb->owner[r.dst], q, mb->comm,
                      &req[nroutes + q]);
        }
        /* Every posted message completes, also after a failure: peers match them. */
        if (MPI_Waitall(2 * nroutes, req, got) != MPI_SUCCESS && status == STENC_OK)
            status = STENC_ERROR(STENC_ERR_IO, "%s: MPI_Waitall failed", fn);
        for (int q = 0; q < nroutes && status == STENC_OK; q++) { /* data where data was due */
            const mb_route r = route_of(&mb->patches[q / 2], q % 2);
            if (mb->owner[r.dst] != mb->rank || mb->owner[r.src] == mb->rank) continue;
            const int want = PEER(mb->owner[r.src]) ? 0 : (int)used[q];
            int bytes = -1;
            MPI_Get_count(&got[q], MPI_BYTE, &bytes);
            if (bytes != want)
                status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                                     "%s: patch %d brought %d bytes where %d were due: rank %d "
                                     "keeps its blocks %s (upload every rank's blocks, or none)",
                                     fn, q / 2, bytes, want, mb->owner[r.src],
                                     want ? "on the device" : "on the host");
        }
        for (int q = 0; q < nroutes && status == STENC_OK; q++) { /* unpack into the halos */
            const mb_route r = route_of(&mb->patches[q / 2], q % 2);
            if (mb->owner[r.dst] != mb->rank) continue;
            stenc_field *dst = field->blocks[local_index(mb, r.dst)];
            stenc_field_layout L;
            stenc_field_get_layout(dst, &L);
            dist_box box = {device ? stenc_field_device_origin(dst) : stenc_field_host_origin(dst),
                            {L.stride[0], L.stride[1], L.stride[2]},
                            elem,
                            {0, 0, 0},
                            {0, 0, 0}};
            halo_box(mb, &r, h, corners, box.lo, box.count);
            char *peer = mb->owner[r.src] != mb->rank ? PEER(mb->owner[r.src]) : NULL;
            if (peer) {
                const size_t at =
                    parity * field->peer_slot[mb->owner[r.src]] + field->peer_offset[q];
                status = dist_cuda_box(&field->stream, &box, peer + at, 1);
            } else if (device) {
                if (staged && mb->owner[r.src] != mb->rank)
                    status = dist_cuda_copy(&field->stream, dev + offset[q], host + offset[q],
                                            used[q], 1);
                if (status == STENC_OK)
                    status = dist_cuda_box(&field->stream, &box, dev + offset[q], 1);
            } else {
                dist_host_box(&box, host + offset[q], 1);
            }
        }
        if (device && status == STENC_OK) status = dist_cuda_join(mb->ctx, &field->stream);
    }
#undef PULLED
#undef PEER
    free(offset);
    free(used);
    free(req);
    free(got);
    return status;
}

stenc_status stenc_mb_exchange(stenc_mb_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                               unsigned flags) {
    const char *fn = "stenc_mb_exchange";
    STENC_TRY(stenc_handle_check(field, &mb_field_kind, fn, "field"));
    STENC_REQUIRE(bc != NULL, "%s: bc is NULL", fn);
    const stenc_mb *mb = field->mb;
    stenc_status status = STENC_OK;
    for (int f = 0; f < 2 * mb->dims && status == STENC_OK; f++)
        if ((unsigned)bc[f].kind > STENC_BC_PERIODIC || bc[f].kind == STENC_BC_PERIODIC)
            status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                                 "%s: face %s has kind %u; multi-block grids take Dirichlet, "
                                 "Neumann or none (periodicity is a patch)",
                                 fn, stenc_face_names[f], (unsigned)bc[f].kind);
    if (status == STENC_OK && (flags & ~STENC_EXCHANGE_FACES))
        status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", fn,
                             flags & ~STENC_EXCHANGE_FACES);
    STENC_TRY(dist_agree(mb->comm, status, fn));
    /* Faces across patches first, then the free faces by bc (their edges and corners too).
     * With edges and corners, then dims-1 more passes over whole halo boxes on patches: the
     * tangential halo of a box comes from the source block's halo, filled by the pass before
     * (from other patches, or by bc), so each pass reaches one diagonal step further (an
     * edge in 2-D, a corner in 3-D). A diagonal point next to both a patch and a free face
     * is the patch's: it may be a point of another block. */
    const int passes = flags & STENC_EXCHANGE_FACES ? 1 : mb->dims;
    for (int p = 0; p < passes && status == STENC_OK; p++) {
        status = exchange_pass(field, p > 0, fn);
        if (status == STENC_OK && p == 0) status = fill_free_faces(field, bc);
        status = dist_agree(mb->comm, status, fn);
    }
    return status;
}

/* ---- exact global sums ---------------------------------------------------------------------- */

static stenc_status mb_sum(const stenc_mb_field *field, int kind, double *result, const char *fn) {
    STENC_TRY(stenc_handle_check(field, &mb_field_kind, fn, "field"));
    STENC_REQUIRE(result != NULL, "%s: result is NULL", fn);
    xsum total, part;
    memset(&total, 0, sizeof total);
    stenc_status status = STENC_OK;
    for (int l = 0; l < field->mb->nlocal && status == STENC_OK; l++) {
        uint64_t unused = 0;
        status = dist_local_reduce(kind, field->blocks[l], NULL, &part, &unused);
        for (int w = 0; w < XSUM_WORDS; w++)
            total.w[w] += part.w[w];
        xsum_normalize(&total);
    }
    STENC_TRY(dist_agree(field->mb->comm, status, fn));
    xsum global;
    MPI_Allreduce(total.w, global.w, XSUM_WORDS, MPI_INT64_T, MPI_SUM, field->mb->comm);
    *result = xsum_result(&global);
    return STENC_OK;
}

stenc_status stenc_mb_field_sum(const stenc_mb_field *field, double *result) {
    return mb_sum(field, DIST_SUM, result, "stenc_mb_field_sum");
}

stenc_status stenc_mb_field_sum_squares(const stenc_mb_field *field, double *result) {
    return mb_sum(field, DIST_DOT, result, "stenc_mb_field_sum_squares");
}
