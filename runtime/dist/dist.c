/* Distributed fields over MPI: contexts on a communicator, Cartesian decompositions, halo
 * exchange, exact global reductions, gather and scatter. See stenc/dist.h and
 * docs/distributed.md. */
#include "stenc/dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support */
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "dist_internal.h"
#include "dist_mpi.h"
#include "field_internal.h" /* interior copies of host and device fields */
#include "io_internal.h"    /* parallel HDF5 files */
#include "stenc/io.h"
#include "stenc/multigrid.h"
#include "stenc/reduce.h"

/* ---- every rank agrees on a status ----------------------------------------------------------- */

/* Collective over comm: STENC_OK when every rank passes STENC_OK; else the status of the
 * lowest failing rank, everywhere. A rank that did not fail itself gets that rank's message. */
stenc_status dist_agree(MPI_Comm comm, stenc_status mine, const char *fn) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int candidate = mine == STENC_OK ? size : rank, first = size;
    MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return STENC_OK;
    struct {
        int status;
        char message[480];
    } report = {(int)mine, ""};
    if (rank == first) snprintf(report.message, sizeof report.message, "%s", stenc_last_error());
    MPI_Bcast(&report, (int)sizeof report, MPI_BYTE, first, comm);
    if (mine != STENC_OK) return mine;
    return STENC_ERROR((stenc_status)report.status, "%s: rank %d failed: %s", fn, first,
                       report.message);
}

/* ---- contexts on a communicator -------------------------------------------------------------- */

typedef struct dist_ctx {
    MPI_Comm comm;
} dist_ctx;

static const stenc_cache_key dist_key = {"dist"}; /* a context's communicator */

static void release_dist_ctx(stenc_ctx *ctx, void *state) {
    (void)ctx;
    dist_ctx *dc = state;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&dc->comm);
    free(dc);
}

/* The GPU of this process, chosen once: every context of a process, whatever its
 * communicator, uses the same device (the runtime keeps the current device its contexts'). */
static int process_gpu = -1;

/* The node-local rank: the launcher's (Open MPI, MPICH, Slurm) when it says, which is the
 * same for every communicator; else this rank's in `comm`'s node. */
static int node_local_rank(MPI_Comm comm) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                       "SLURM_LOCALID"};
    for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
        const char *value = getenv(vars[v]);
        if (value && *value) return atoi(value);
    }
    MPI_Comm node;
    int local_rank = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    return local_rank;
}

static stenc_status create_mpi(stenc_ctx **out, MPI_Comm comm, stenc_device device) {
    const int local_rank = node_local_rank(comm); /* collective when it splits comm */
    const int devices = stenc_cuda_device_count();
    if (device == STENC_DEVICE_CUDA && devices == 0)
        return STENC_ERROR(STENC_ERR_NO_DEVICE,
                           "stenc_ctx_create_mpi: no CUDA device is present on this rank's node");
    if (device == STENC_DEVICE_OPENCL)
        return STENC_ERROR(STENC_ERR_UNSUPPORTED, "stenc_ctx_create_mpi: distributed fields run "
                                                  "on CPU and CUDA contexts, not OpenCL ones");
    if (devices > 0 && device != STENC_DEVICE_CPU) {
        if (process_gpu < 0) process_gpu = local_rank % devices;
        STENC_TRY(stenc_cuda_select_device(process_gpu));
    }
    STENC_TRY(stenc_ctx_create(out, device));
    /* AUTO may have become OpenCL (STENC_DEVICE=opencl). */
    const stenc_status status = stenc_ctx_require_cpu_or_cuda(*out, "stenc_ctx_create_mpi");
    if (status != STENC_OK) {
        stenc_ctx_destroy(*out);
        *out = NULL;
    }
    return status;
}

stenc_status stenc_ctx_create_mpi(stenc_ctx **out, MPI_Comm comm, stenc_device device) {
    STENC_REQUIRE(out != NULL, "stenc_ctx_create_mpi: ctx pointer is NULL");
    *out = NULL;
    int initialized = 0;
    MPI_Initialized(&initialized);
    STENC_REQUIRE(initialized, "stenc_ctx_create_mpi: MPI is not initialised (call MPI_Init)");
    STENC_REQUIRE(comm != MPI_COMM_NULL, "stenc_ctx_create_mpi: comm is MPI_COMM_NULL");
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    STENC_REQUIRE(!inter, "stenc_ctx_create_mpi: comm is an intercommunicator");
    MPI_Comm dup; /* collective: every rank makes it, whatever fails after */
    MPI_Comm_dup(comm, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN); /* the library never aborts */
    dist_ctx *dc = calloc(1, sizeof *dc);
    stenc_status status = create_mpi(out, dup, device); /* collective: made even without dc */
    if (status == STENC_OK && !dc)
        status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_ctx_create_mpi: no memory");
    else if (status == STENC_OK) {
        dc->comm = dup;
        status = stenc_ctx_cache_set(*out, &dist_key, dc, release_dist_ctx);
        dc = NULL; /* the context's now, or released with the duplicate by a failed set */
        dup = MPI_COMM_NULL;
    }
    status = dist_agree(comm, status, "stenc_ctx_create_mpi");
    if (status != STENC_OK) {
        stenc_ctx_destroy(*out); /* releases what the context holds */
        *out = NULL;
        free(dc);
        if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    }
    return status;
}

static const dist_ctx *ctx_dist(const stenc_ctx *ctx) {
    return stenc_ctx_cache_get(ctx, &dist_key);
}

stenc_status stenc_ctx_comm(const stenc_ctx *ctx, MPI_Comm *comm) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_ctx_comm"));
    STENC_REQUIRE(comm != NULL, "stenc_ctx_comm: comm is NULL");
    const dist_ctx *dc = ctx_dist(ctx);
    STENC_REQUIRE(dc != NULL, "stenc_ctx_comm: the context was not made by stenc_ctx_create_mpi");
    *comm = dc->comm;
    return STENC_OK;
}

/* ---- decompositions ------------------------------------------------------------------------- */

static const stenc_handle_kind decomp_kind = {"decomposition"};

struct stenc_decomp {
    stenc_ctx *ctx;
    MPI_Comm cart; /* Cartesian; dimension 0 is k (the slowest), so k is split first */
    stenc_decomp_info info;
    int neighbour[3][2]; /* rank in cart across each face, or MPI_PROC_NULL */
    int node;            /* the lowest rank in cart on this rank's node: equal on one node */
    /* start[d][c]: the first global index of the ranks at coordinate c along d, for
     * c = 0..procs[d] (start[d][procs[d]] == n[d]). */
    size_t *start[3];
    size_t smallest[3]; /* the fewest points of any rank along d */
    uint64_t sig;
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t bytes) {
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The balanced split of n points over p ranks: the first (n mod p) take one point more. */
static void split_balanced(size_t n, int p, size_t *start) {
    const size_t base = n / (size_t)p, extra = n % (size_t)p;
    for (int c = 0; c <= p; c++)
        start[c] = (size_t)c * base + ((size_t)c < extra ? (size_t)c : extra);
}

/* Points of the ranks at coordinate `c` along d, and their first point. */
static void split_1d(const stenc_decomp *dp, int d, int c, size_t *lo, size_t *count) {
    *lo = dp->start[d][c];
    *count = dp->start[d][c + 1] - dp->start[d][c];
}

/* The box of the rank at `rank` in the decomposition's Cartesian communicator. */
static void rank_box(const stenc_decomp *dp, int rank, size_t lo[3], size_t count[3],
                     int coords[3]) {
    const stenc_decomp_info *info = &dp->info;
    int cart[3] = {0, 0, 0};
    MPI_Cart_coords(dp->cart, rank, info->dims, cart);
    for (int d = 0; d < 3; d++) {
        coords[d] = d < info->dims ? cart[info->dims - 1 - d] : 0;
        split_1d(dp, d, coords[d], &lo[d], &count[d]);
    }
}

static stenc_status check_decomp_args(const stenc_ctx *ctx, int dims, const size_t n[3],
                                      const int procs[3], int size, int chosen[3]) {
    STENC_REQUIRE(dims >= 1 && dims <= 3, "stenc_decomp_create: dims is %d (1, 2 or 3)", dims);
    STENC_REQUIRE(n != NULL, "stenc_decomp_create: n is NULL");
    STENC_REQUIRE(ctx_dist(ctx) != NULL,
                  "stenc_decomp_create: the context was not made by stenc_ctx_create_mpi");
    for (int d = 0; d < 3; d++) {
        if (d >= dims) {
            STENC_REQUIRE(procs == NULL || procs[d] <= 1,
                          "stenc_decomp_create: procs[%d] = %d in an unused dimension", d,
                          procs[d]);
            chosen[d] = 1;
            continue;
        }
        STENC_REQUIRE(n[d] >= 1, "stenc_decomp_create: n[%d] is 0", d);
        STENC_REQUIRE(procs == NULL || procs[d] >= 0, "stenc_decomp_create: procs[%d] = %d", d,
                      procs[d]);
        chosen[d] = procs ? procs[d] : 0;
    }
    int fixed = 1;
    for (int d = 0; d < 3; d++)
        if (chosen[d] > 0) fixed *= chosen[d];
    STENC_REQUIRE(size % fixed == 0,
                  "stenc_decomp_create: the fixed ranks per dimension multiply to %d, which does "
                  "not divide the communicator's %d ranks",
                  fixed, size);
    /* MPI_Dims_create fills the free dimensions, most ranks first; give them to k, j, i. */
    int free_dims = 0;
    int mpi_dims[3] = {0, 0, 0};
    for (int d = dims - 1; d >= 0; d--)
        if (chosen[d] == 0) free_dims++;
    if (free_dims > 0) {
        MPI_Dims_create(size / fixed, free_dims, mpi_dims);
        int next = 0;
        for (int d = dims - 1; d >= 0; d--)
            if (chosen[d] == 0) chosen[d] = mpi_dims[next++];
    } else {
        STENC_REQUIRE(fixed == size,
                      "stenc_decomp_create: procs multiply to %d but the communicator has %d "
                      "ranks",
                      fixed, size);
    }
    for (int d = 0; d < dims; d++)
        if ((size_t)chosen[d] > n[d])
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "stenc_decomp_create: %d ranks along dimension %d but only %zu "
                               "points: a rank would hold none",
                               chosen[d], d, n[d]);
    return STENC_OK;
}

static void decomp_free(stenc_decomp *dp) {
    if (!dp) return;
    if (dp->cart != MPI_COMM_NULL) MPI_Comm_free(&dp->cart);
    for (int d = 0; d < 3; d++)
        free(dp->start[d]);
    free(dp);
}

/* A decomposition of n[] over procs[] ranks whose splits along each dimension are
 * start[d][0..procs[d]] (NULL: balanced). Every rank must pass the same arguments, checked
 * already; collective, and agreed. */
static stenc_status decomp_build(stenc_decomp **out, stenc_ctx *ctx, int dims, const size_t n[3],
                                 const int procs[3], const int periodic[3], size_t *const start[3],
                                 const char *fn) {
    const dist_ctx *dc = ctx_dist(ctx);
    int rank, size;
    MPI_Comm_rank(dc->comm, &rank);
    MPI_Comm_size(dc->comm, &size);
    stenc_status status = STENC_OK;
    stenc_decomp *dp = calloc(1, sizeof *dp);
    if (dp) {
        dp->cart = MPI_COMM_NULL;
        for (int d = 0; d < 3 && dp; d++) {
            dp->start[d] = malloc(((size_t)procs[d] + 1) * sizeof *dp->start[d]);
            if (!dp->start[d]) decomp_free(dp), dp = NULL;
        }
    }
    if (!dp) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    STENC_TRY(dist_agree(dc->comm, status, fn));

    stenc_decomp_info *info = &dp->info;
    info->dims = dims;
    info->rank = rank;
    info->size = size;
    int cart_dims[3], cart_periods[3];
    uint64_t sig = 0xcbf29ce484222325ull;
    for (int d = 0; d < 3; d++) {
        info->n[d] = n[d];
        info->procs[d] = procs[d];
        info->periodic[d] = periodic[d];
        if (start && start[d])
            memcpy(dp->start[d], start[d], ((size_t)procs[d] + 1) * sizeof *dp->start[d]);
        else
            split_balanced(n[d], procs[d], dp->start[d]);
        dp->smallest[d] = n[d];
        for (int c = 0; c < procs[d]; c++)
            if (dp->start[d][c + 1] - dp->start[d][c] < dp->smallest[d])
                dp->smallest[d] = dp->start[d][c + 1] - dp->start[d][c];
        sig = fnv1a(sig, dp->start[d], ((size_t)procs[d] + 1) * sizeof *dp->start[d]);
    }
    for (int d = 0; d < dims; d++) {
        cart_dims[dims - 1 - d] = procs[d];
        cart_periods[dims - 1 - d] = info->periodic[d];
    }
    MPI_Cart_create(dc->comm, dims, cart_dims, cart_periods, 0, &dp->cart);
    MPI_Comm_set_errhandler(dp->cart, MPI_ERRORS_RETURN); /* the library never aborts */
    int cart_coords[3] = {0, 0, 0};
    MPI_Cart_coords(dp->cart, rank, dims, cart_coords);
    for (int d = 0; d < 3; d++) {
        info->coords[d] = d < dims ? cart_coords[dims - 1 - d] : 0;
        split_1d(dp, d, info->coords[d], &info->lo[d], &info->local[d]);
        dp->neighbour[d][0] = dp->neighbour[d][1] = MPI_PROC_NULL;
        if (d < dims)
            MPI_Cart_shift(dp->cart, dims - 1 - d, 1, &dp->neighbour[d][0], &dp->neighbour[d][1]);
    }
    dp->node = dist_node_key(dp->cart);
    dp->ctx = ctx;
    sig = fnv1a(sig, &dims, sizeof dims);
    sig = fnv1a(sig, info->n, sizeof info->n);
    sig = fnv1a(sig, info->procs, sizeof info->procs);
    sig = fnv1a(sig, info->periodic, sizeof info->periodic);
    sig = fnv1a(sig, &size, sizeof size);
    dp->sig = sig ? sig : 1;
    status = stenc_handle_add(dp, &decomp_kind, fn);
    status = dist_agree(dc->comm, status, fn);
    if (status != STENC_OK) {
        decomp_free(dp);
        return status;
    }
    *out = dp;
    return STENC_OK;
}

stenc_status stenc_decomp_create(stenc_decomp **out, stenc_ctx *ctx, int dims, const size_t n[3],
                                 const int procs[3], const int periodic[3]) {
    static const char fn[] = "stenc_decomp_create";
    STENC_REQUIRE(out != NULL, "stenc_decomp_create: decomp pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_ctx_check(ctx, fn));
    const dist_ctx *dc = ctx_dist(ctx);
    STENC_REQUIRE(dc != NULL,
                  "stenc_decomp_create: the context was not made by stenc_ctx_create_mpi");
    int size;
    MPI_Comm_size(dc->comm, &size);
    int chosen[3];
    STENC_TRY(dist_agree(dc->comm, check_decomp_args(ctx, dims, n, procs, size, chosen), fn));
    size_t extent[3];
    int wraps[3];
    for (int d = 0; d < 3; d++) {
        extent[d] = d < dims ? n[d] : 1;
        wraps[d] = d < dims && periodic ? periodic[d] != 0 : 0;
    }
    return decomp_build(out, ctx, dims, extent, chosen, wraps, NULL, fn);
}

stenc_status stenc_decomp_coarsen(stenc_decomp **out, const stenc_decomp *fine) {
    static const char fn[] = "stenc_decomp_coarsen";
    STENC_REQUIRE(out != NULL, "stenc_decomp_coarsen: decomp pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_handle_check(fine, &decomp_kind, fn, "fine"));
    const stenc_decomp_info *fi = &fine->info;
    const dist_ctx *dc = ctx_dist(fine->ctx);
    /* Every rank holds the whole split, so every rank finds the same answer: no agreement is
     * needed for the checks, only for the allocation (in decomp_build). */
    size_t nc[3] = {1, 1, 1};
    size_t *start[3] = {NULL, NULL, NULL};
    stenc_status status = STENC_OK;
    for (int d = 0; d < fi->dims && status == STENC_OK; d++) {
        if (fi->periodic[d])
            status = STENC_ERROR(STENC_ERR_UNSUPPORTED,
                                 "%s: dimension %d is periodic; the 2^n-1 (INTERIOR) coarsening "
                                 "is for Dirichlet boundaries",
                                 fn, d);
        else
            status = stenc_mg_coarse_extent(STENC_MG_GRID_INTERIOR, fi->n[d], &nc[d]);
        if (status != STENC_OK) break;
        start[d] = malloc(((size_t)fi->procs[d] + 1) * sizeof *start[d]);
        if (!start[d]) {
            status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
            break;
        }
        /* Coarse point I sits on fine point 2I+1: it belongs to the rank owning that fine
         * point, so the ranks from fine index F on own the coarse points from F/2 on. */
        for (int c = 0; c <= fi->procs[d]; c++)
            start[d][c] = fine->start[d][c] / 2;
        for (int c = 0; c < fi->procs[d] && status == STENC_OK; c++)
            if (start[d][c + 1] == start[d][c])
                status = STENC_ERROR(STENC_ERR_SHAPE,
                                     "%s: along dimension %d the ranks at coordinate %d own fine "
                                     "points %zu..%zu, on which no coarse point sits: the "
                                     "coarse grid of %zu points is too small for %d ranks (gather "
                                     "it onto one rank instead: stenc_field_gather_field)",
                                     fn, d, c, fine->start[d][c], fine->start[d][c + 1] - 1, nc[d],
                                     fi->procs[d]);
    }
    status = dist_agree(dc->comm, status, fn);
    if (status == STENC_OK)
        status = decomp_build(out, fine->ctx, fi->dims, nc, fi->procs, fi->periodic, start, fn);
    for (int d = 0; d < 3; d++)
        free(start[d]);
    return status;
}

int dist_decomp_is_coarsening(const stenc_decomp *coarse, const stenc_decomp *fine) {
    const stenc_decomp_info *c = &coarse->info, *f = &fine->info;
    if (c->dims != f->dims || coarse->ctx != fine->ctx) return 0;
    for (int d = 0; d < 3; d++) {
        if (c->procs[d] != f->procs[d]) return 0;
        if (d >= c->dims) continue;
        if (f->n[d] != 2 * c->n[d] + 1) return 0;
        for (int p = 0; p <= c->procs[d]; p++)
            if (coarse->start[d][p] != fine->start[d][p] / 2) return 0;
    }
    return 1;
}

stenc_status stenc_decomp_destroy(stenc_decomp *decomp) {
    if (!decomp) return STENC_OK;
    STENC_TRY(stenc_handle_remove(decomp, &decomp_kind, "stenc_decomp_destroy", "decomp"));
    decomp_free(decomp);
    return STENC_OK;
}

stenc_status stenc_decomp_get_info(const stenc_decomp *decomp, stenc_decomp_info *info) {
    STENC_TRY(stenc_handle_check(decomp, &decomp_kind, "stenc_decomp_get_info", "decomp"));
    STENC_REQUIRE(info != NULL, "stenc_decomp_get_info: info is NULL");
    *info = decomp->info;
    return STENC_OK;
}

/* ---- distributed fields -----------------------------------------------------------------------
 */

/* A field's part here: its decomposition, and the buffers and state of its exchange. */
typedef struct dist_field {
    const stenc_decomp *decomp;
    int halo;
    size_t elem;
    /* Per dimension and side: send and receive buffers of `cap[d]` elements each. */
    size_t cap[3];
    char *host_buf;         /* send and receive buffers, on the host (pinned for device fields) */
    char *device_buf;       /* the same on the device, device fields only */
    dist_stream stream;     /* device fields: the exchange's stream and events */
    size_t offset[3][2][2]; /* element offset of [dim][side][0 send, 1 receive] */
    /* CUDA IPC with the neighbours on this node (device fields). What this rank sends across
     * face (d, s) is packed into ipc_buf, two slots used by turns, where the neighbour reads
     * it (pulled[d][s]): MPI carries an empty message that says it is there. peer[d][s] is the
     * neighbour's slot 0 of what it sends to this rank, mapped here (NULL: MPI brings it). */
    char *ipc_buf;
    size_t ipc_offset[3][2]; /* bytes: slot 0 of face (d, s); slot 1 follows at cap[d] */
    int pulled[3][2];
    char *peer[3][2], *peer_base[3][2];
    unsigned round[3]; /* exchanges of dimension d so far: the slot is round % 2 */
    int ipc_setup;     /* the links were agreed on: releasing the field closes them */
    /* The exchange under way. */
    int pending, device, staged;
    int ready_marked;      /* stenc_dist_overlap marked `ready` before the interior's launch */
    unsigned filled_early; /* dimensions whose physical faces stenc_dist_overlap filled */
    unsigned flags;
    stenc_bc bc[STENC_FACE_COUNT];
    MPI_Request req[3][4];
} dist_field;

static stenc_status dist_reduce(int kind, const stenc_field *a, const stenc_field *b,
                                double *result);
static void dist_release(void *dist, stenc_ctx *ctx);
static stenc_status dist_field_agree(const stenc_field *field, stenc_status mine, const char *fn);
static stenc_status dist_reduce_terms(const stenc_field *field, stenc_status kernel,
                                      const char *ops, const double *terms, const size_t n[3],
                                      int on_device, double *results, const char *fn);

static void dist_shared_faces(const stenc_field *field, int shared[STENC_FACE_COUNT]);
static void dist_global_extent(const stenc_field *field, size_t n[3], int periodic[3]);

static const stenc_field_dist_ops dist_ops = {
    dist_release,         dist_reduce,       dist_field_agree,  dist_reduce_terms,
    stenc_field_exchange, dist_shared_faces, dist_global_extent};

static void free_buffers(dist_field *df, stenc_ctx *ctx) {
    dist_cuda_stream_destroy(&df->stream);
    if (df->device_buf) {
        dist_cuda_host_free(df->host_buf);
        stenc_free(ctx, df->device_buf);
    } else {
        stenc_host_free(df->host_buf);
    }
    df->host_buf = df->device_buf = NULL;
}

enum { TAG_IPC_OFFER = 64, TAG_IPC_PULL = 72, TAG_IPC_CLOSED = 80 };

/* A neighbour's buffer may be freed only once this rank has unmapped it: unmap, then tell
 * each IPC neighbour so, and free this rank's buffer once they have said the same. */
static void release_ipc(dist_field *df) {
    if (!df->ipc_setup) return;
    if (df->stream.stream) dist_cuda_sync(&df->stream); /* no unpack still reads a peer */
    const stenc_decomp *dp = df->decomp;
    int link[3][2] = {{0}};
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            link[d][s] = df->pulled[d][s] || df->peer[d][s];
            dist_cuda_ipc_close(df->peer_base[d][s]);
            df->peer[d][s] = df->peer_base[d][s] = NULL;
        }
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (int d = 0; d < dp->info.dims && !finalized; d++)
        for (int s = 0; s < 2; s++) {
            const int *nb = dp->neighbour[d];
            int mine = 1, theirs = 0;
            MPI_Sendrecv(&mine, 1, MPI_INT, link[d][s] ? nb[s] : MPI_PROC_NULL,
                         TAG_IPC_CLOSED + 2 * d + s, &theirs, 1, MPI_INT,
                         link[d][1 - s] ? nb[1 - s] : MPI_PROC_NULL, TAG_IPC_CLOSED + 2 * d + s,
                         dp->cart, MPI_STATUS_IGNORE);
        }
    dist_cuda_ipc_free(df->ipc_buf);
    df->ipc_buf = NULL;
    df->ipc_setup = 0;
}

static void dist_release(void *dist, stenc_ctx *ctx) {
    dist_field *df = dist;
    if (!df) return;
    if (df->pending) /* complete the messages, so MPI holds no pointer into freed memory */
        for (int d = 0; d < 3; d++)
            MPI_Waitall(4, df->req[d], MPI_STATUSES_IGNORE);
    release_ipc(df);
    free_buffers(df, ctx);
    free(df);
}

static const dist_field *field_dist(const stenc_field *field) {
    return stenc_field_dist_ops_of(field) == &dist_ops ? stenc_field_dist(field) : NULL;
}

static void dist_shared_faces(const stenc_field *field, int shared[STENC_FACE_COUNT]) {
    const dist_field *df = field_dist(field);
    for (int f = 0; f < STENC_FACE_COUNT; f++)
        shared[f] = 0;
    if (!df) return;
    const stenc_decomp *dp = df->decomp;
    for (int d = 0; d < dp->info.dims; d++)
        for (int s = 0; s < 2; s++)
            shared[2 * d + s] = dp->neighbour[d][s] != MPI_PROC_NULL;
}

static void dist_global_extent(const stenc_field *field, size_t n[3], int periodic[3]) {
    const dist_field *df = field_dist(field);
    for (int d = 0; d < 3; d++) {
        n[d] = df ? df->decomp->info.n[d] : field->layout.n[d];
        periodic[d] = df ? df->decomp->info.periodic[d] : 0;
    }
}

const stenc_decomp *stenc_field_decomp(const stenc_field *field) {
    if (stenc_field_check(field, "stenc_field_decomp", "field") != STENC_OK) return NULL;
    const dist_field *df = field_dist(field);
    if (!df) {
        STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "stenc_field_decomp: the field is not distributed");
        return NULL;
    }
    return df->decomp;
}

static stenc_status check_create(stenc_ctx *ctx, const stenc_decomp *decomp, int halo) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_field_create_dist"));
    STENC_TRY(stenc_handle_check(decomp, &decomp_kind, "stenc_field_create_dist", "decomp"));
    const dist_ctx *dc = ctx_dist(ctx);
    STENC_REQUIRE(dc != NULL,
                  "stenc_field_create_dist: the context was not made by stenc_ctx_create_mpi");
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(dc->comm, decomp->cart, &same);
    STENC_REQUIRE(same == MPI_IDENT || same == MPI_CONGRUENT,
                  "stenc_field_create_dist: the decomposition was made on another communicator "
                  "than the context's");
    STENC_REQUIRE(halo >= 0 && halo <= 16, "stenc_field_create_dist: halo is %d (0 to 16)", halo);
    const stenc_decomp_info *info = &decomp->info;
    for (int d = 0; d < info->dims; d++) {
        if (info->procs[d] == 1 && !info->periodic[d]) continue;
        const size_t smallest = decomp->smallest[d];
        if (smallest < (size_t)halo)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "stenc_field_create_dist: along dimension %d the smallest part "
                               "is %zu points (%zu over %d ranks), narrower than the halo %d",
                               d, smallest, info->n[d], info->procs[d], halo);
    }
    return STENC_OK;
}

/* Extents of the box sent across face (d, side), in corner mode: the halo of earlier
 * dimensions is included (it was filled first); later ones take the interior. */
static void face_box_extent(const stenc_field_layout *L, int d, int corners, long lo[3],
                            long count[3]) {
    const long h = L->halo;
    for (int e = 0; e < 3; e++) {
        const long n = (long)L->n[e], he = e < L->dims ? h : 0;
        if (e < d && corners) {
            lo[e] = -he;
            count[e] = n + 2 * he;
        } else {
            lo[e] = 0;
            count[e] = n;
        }
    }
    count[d] = h;
}

static stenc_status make_buffers(stenc_field *field, dist_field *df) {
    stenc_field_layout L;
    STENC_TRY(stenc_field_get_layout(field, &L));
    size_t total = 0;
    for (int d = 0; d < L.dims; d++) {
        long lo[3], count[3];
        face_box_extent(&L, d, 1, lo, count);
        df->cap[d] = (size_t)count[0] * (size_t)count[1] * (size_t)count[2];
        for (int s = 0; s < 2; s++)
            for (int r = 0; r < 2; r++) {
                df->offset[d][s][r] = total;
                total += df->cap[d];
            }
    }
    const size_t bytes = total * df->elem;
    stenc_ctx *ctx = stenc_field_ctx(field);
    if (stenc_ctx_device(ctx) == STENC_DEVICE_CUDA) {
        STENC_TRY(dist_cuda_stream_create(&df->stream)); /* freed with the field on failure */
        STENC_TRY(dist_cuda_host_alloc((void **)&df->host_buf, bytes));
        stenc_status status = stenc_malloc(ctx, (void **)&df->device_buf, bytes);
        if (status != STENC_OK) {
            dist_cuda_host_free(df->host_buf);
            df->host_buf = NULL;
            return status;
        }
    } else {
        df->host_buf = stenc_host_alloc(bytes);
        if (!df->host_buf)
            return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY,
                               "stenc_field_create_dist: no memory for %zu bytes of exchange "
                               "buffers",
                               bytes);
    }
    return STENC_OK;
}

int dist_node_key(MPI_Comm comm) {
    int rank = 0, key = 0;
    MPI_Comm node;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Allreduce(&rank, &key, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    return key;
}

int dist_ipc_wanted(const stenc_ctx *ctx, int halo, dist_ipc_offer *offer) {
    const char *env = getenv("STENC_MPI_IPC");
    return stenc_ctx_device(ctx) == STENC_DEVICE_CUDA && halo > 0 &&
           !(env && strcmp(env, "0") == 0) && dist_cuda_bus_id(offer->bus);
}

/* Collective. Agree with each neighbour on this node whose device this one can reach that it
 * reads what this rank sends from this rank's memory (CUDA IPC). Off with STENC_MPI_IPC=0,
 * on the host, and for a rank that is its own neighbour. Every rank makes the same calls,
 * whatever fails; the status is this rank's alone. */
static stenc_status setup_ipc(stenc_field *field, dist_field *df) {
    const stenc_decomp *dp = df->decomp;
    const int dims = dp->info.dims, me = dp->info.rank;
    stenc_status status = STENC_OK;
    dist_ipc_offer mine;
    memset(&mine, 0, sizeof mine);
    mine.node = dp->node;
    mine.usable = dist_ipc_wanted(stenc_field_ctx(field), df->halo, &mine);
    if (mine.usable) {
        size_t total = 0;
        for (int d = 0; d < dims; d++)
            for (int s = 0; s < 2; s++) {
                df->ipc_offset[d][s] = total;
                total += 2 * df->cap[d] * df->elem;
            }
        status = dist_cuda_ipc_alloc((void **)&df->ipc_buf, total, mine.handle);
        mine.usable = status == STENC_OK;
    }
    df->ipc_setup = 1;
    for (int d = 0; d < dims; d++)
        for (int s = 0; s < 2; s++) { /* offer across face s; what comes is for face 1 - s */
            const int *nb = dp->neighbour[d], face = 1 - s;
            dist_ipc_offer theirs;
            memset(&theirs, 0, sizeof theirs);
            mine.offset = df->ipc_offset[d][s];
            MPI_Sendrecv(&mine, (int)sizeof mine, MPI_BYTE, nb[s], TAG_IPC_OFFER + 2 * d + s,
                         &theirs, (int)sizeof theirs, MPI_BYTE, nb[face], TAG_IPC_OFFER + 2 * d + s,
                         dp->cart, MPI_STATUS_IGNORE);
            if (nb[face] == MPI_PROC_NULL || nb[face] == me || !mine.usable || !theirs.usable ||
                theirs.node != mine.node)
                continue;
            char *base = dist_cuda_ipc_open(theirs.handle, theirs.bus);
            if (!base) continue;
            df->peer_base[d][face] = base;
            df->peer[d][face] = base + theirs.offset;
        }
    for (int d = 0; d < dims; d++)
        for (int s = 0; s < 2; s++) { /* tell the neighbour across 1 - s whether we read it */
            const int *nb = dp->neighbour[d];
            int reads = df->peer[d][1 - s] != NULL, read = 0;
            MPI_Sendrecv(&reads, 1, MPI_INT, nb[1 - s], TAG_IPC_PULL + 2 * d + s, &read, 1, MPI_INT,
                         nb[s], TAG_IPC_PULL + 2 * d + s, dp->cart, MPI_STATUS_IGNORE);
            df->pulled[d][s] = nb[s] != MPI_PROC_NULL && read;
        }
    return status;
}

stenc_status stenc_field_create_dist(stenc_ctx *ctx, stenc_field **out, const stenc_decomp *decomp,
                                     stenc_type type, int halo) {
    STENC_REQUIRE(out != NULL, "stenc_field_create_dist: field pointer is NULL");
    *out = NULL;
    STENC_TRY(stenc_ctx_check(ctx, "stenc_field_create_dist"));
    const dist_ctx *dc = ctx_dist(ctx);
    STENC_REQUIRE(dc != NULL,
                  "stenc_field_create_dist: the context was not made by stenc_ctx_create_mpi");
    stenc_status status = check_create(ctx, decomp, halo);
    stenc_field *field = NULL;
    dist_field *df = NULL;
    if (status == STENC_OK) {
        const stenc_decomp_info *info = &decomp->info;
        status = stenc_field_create(ctx, &field, type, info->dims, info->local[0], info->local[1],
                                    info->local[2], halo);
    }
    if (status == STENC_OK) {
        df = calloc(1, sizeof *df);
        if (!df)
            status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_field_create_dist: no memory");
    }
    if (status == STENC_OK) {
        df->decomp = decomp;
        df->halo = halo;
        df->elem = stenc_type_size(type);
        status = make_buffers(field, df);
        if (status != STENC_OK) {
            free_buffers(df, ctx);
            free(df);
            df = NULL;
        }
    }
    if (status == STENC_OK)
        stenc_field_set_dist(field, &dist_ops, df, decomp->sig, decomp->info.lo);
    status = dist_agree(dc->comm, status, "stenc_field_create_dist");
    if (status == STENC_OK) /* every rank here: the offers pair up */
        status = dist_agree(dc->comm, setup_ipc(field, df), "stenc_field_create_dist");
    if (status != STENC_OK) {
        stenc_field_free(field);
        return status;
    }
    *out = field;
    return STENC_OK;
}

/* ---- halo exchange ----------------------------------------------------------------------- */

static int cuda_aware_cached = -1;

int stenc_mpi_cuda_aware(void) {
    if (cuda_aware_cached >= 0) return cuda_aware_cached;
    int aware = 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    aware = MPIX_Query_cuda_support();
#endif
    const char *env = getenv("STENC_MPI_CUDA_AWARE");
    if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)) aware = env[0] == '1';
    cuda_aware_cached = aware;
    return aware;
}

int stenc_field_ipc_faces(const stenc_field *field) {
    if (stenc_field_check(field, "stenc_field_ipc_faces", "field") != STENC_OK) return -1;
    const dist_field *df = field_dist(field);
    if (!df) {
        STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                    "stenc_field_ipc_faces: the field is not distributed");
        return -1;
    }
    int faces = 0;
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            faces += df->peer[d][s] != NULL;
    return faces;
}

static stenc_status check_exchange(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                                   const char *fn, dist_field **out) {
    STENC_TRY(stenc_field_check(field, fn, "field"));
    STENC_REQUIRE(bc != NULL, "%s: bc is NULL", fn);
    dist_field *df = stenc_field_dist_ops_of(field) == &dist_ops ? stenc_field_dist(field) : NULL;
    STENC_REQUIRE(df != NULL, "%s: the field is not distributed (use stenc_field_fill_halo)", fn);
    STENC_REQUIRE(!df->pending,
                  "%s: an exchange of this field is under way (call "
                  "stenc_field_exchange_end first)",
                  fn);
    const stenc_decomp_info *info = &df->decomp->info;
    for (int d = 0; d < info->dims; d++)
        for (int s = 0; s < 2; s++) {
            const stenc_bc_kind kind = bc[2 * d + s].kind;
            STENC_REQUIRE((unsigned)kind <= STENC_BC_PERIODIC, "%s: face %s has unknown kind %u",
                          fn, stenc_face_names[2 * d + s], (unsigned)kind);
            STENC_REQUIRE((kind == STENC_BC_PERIODIC) == (info->periodic[d] != 0),
                          "%s: face %s is %speriodic but the decomposition is %speriodic along "
                          "dimension %d",
                          fn, stenc_face_names[2 * d + s], kind == STENC_BC_PERIODIC ? "" : "not ",
                          info->periodic[d] ? "" : "not ", d);
        }
    *out = df;
    return STENC_OK;
}

/* The box of face (d, side): what this rank sends there (recv = 0) or receives (recv = 1). */
static dist_box face_box(const stenc_field *field, const dist_field *df, int d, int side,
                         int recv) {
    stenc_field_layout L;
    stenc_field_get_layout(field, &L);
    dist_box b;
    b.origin = df->device ? stenc_field_device_origin(field) : stenc_field_host_origin(field);
    for (int e = 0; e < 3; e++)
        b.stride[e] = L.stride[e];
    b.elem = df->elem;
    face_box_extent(&L, d, !(df->flags & STENC_EXCHANGE_FACES), b.lo, b.count);
    const long n = (long)L.n[d], h = L.halo;
    b.lo[d] = recv ? (side ? n : -h) : (side ? n - h : 0);
    return b;
}

/* Pack and post the messages of dimension d. Tag 2d + s: sent across this rank's face s. The
 * messages are posted even when packing failed, so that no neighbour waits for them. */
static stenc_status post_dim(stenc_field *field, dist_field *df, int d) {
    const stenc_decomp *dp = df->decomp;
    stenc_ctx *ctx = stenc_field_ctx(field);
    for (int r = 0; r < 4; r++)
        df->req[d][r] = MPI_REQUEST_NULL;
    df->round[d]++; /* on every rank alike: neighbours agree on the slot */
    const size_t slot = (df->round[d] & 1) * df->cap[d] * df->elem;
    if (df->halo == 0) return STENC_OK;
    const int *nb = dp->neighbour[d];
    if (nb[0] == MPI_PROC_NULL && nb[1] == MPI_PROC_NULL) return STENC_OK;
    MPI_Datatype bytes = MPI_BYTE;
    stenc_status status = STENC_OK;
    if (df->device) { /* pack what the context's stream wrote before (or before `ready`) */
        if (!df->ready_marked) status = dist_cuda_mark_ready(ctx, &df->stream);
        if (status == STENC_OK) status = dist_cuda_wait_ready(&df->stream);
    }
    for (int s = 0; s < 2 && status == STENC_OK; s++) {
        if (nb[s] == MPI_PROC_NULL) continue;
        const dist_box send = face_box(field, df, d, s, 0);
        const size_t count = dist_box_points(&send) * df->elem;
        const size_t so = df->offset[d][s][0] * df->elem;
        if (df->device && df->pulled[d][s]) { /* where the neighbour reads it */
            status =
                dist_cuda_box(&df->stream, &send, df->ipc_buf + df->ipc_offset[d][s] + slot, 0);
        } else if (df->device) {
            status = dist_cuda_box(&df->stream, &send, df->device_buf + so, 0);
            if (status == STENC_OK && df->staged)
                status =
                    dist_cuda_copy(&df->stream, df->host_buf + so, df->device_buf + so, count, 0);
        } else {
            dist_host_box(&send, df->host_buf + so, 0);
        }
    }
    /* Packed before MPI reads them or the neighbours are told; and this rank's reads of the
     * neighbours' slots of the last round are done, so they may refill them. */
    if (df->device && status == STENC_OK) status = dist_cuda_sync(&df->stream);
    char *base = df->device && !df->staged ? df->device_buf : df->host_buf;
    for (int s = 0; s < 2; s++) {
        if (nb[s] == MPI_PROC_NULL) continue;
        const dist_box recv = face_box(field, df, d, s, 1);
        const int count = (int)(dist_box_points(&recv) * df->elem);
        /* What arrives across face s was sent across the neighbour's opposite face. */
        MPI_Irecv(base + df->offset[d][s][1] * df->elem, count, bytes, nb[s], 2 * d + (1 - s),
                  dp->cart, &df->req[d][s]);
    }
    for (int s = 0; s < 2; s++) {
        if (nb[s] == MPI_PROC_NULL) continue;
        const dist_box send = face_box(field, df, d, s, 0);
        /* Through IPC, an empty message: the data is in place. */
        const int count =
            df->device && df->pulled[d][s] ? 0 : (int)(dist_box_points(&send) * df->elem);
        MPI_Isend(base + df->offset[d][s][0] * df->elem, count, bytes, nb[s], 2 * d + s, dp->cart,
                  &df->req[d][2 + s]);
    }
    return status;
}

/* Wait for dimension d, unpack it, then fill its physical faces by the boundary conditions. */
static stenc_status finish_dim(stenc_field *field, dist_field *df, int d) {
    const stenc_decomp *dp = df->decomp;
    stenc_ctx *ctx = stenc_field_ctx(field);
    MPI_Status got[4];
    int err = MPI_Waitall(4, df->req[d], got);
    if (err != MPI_SUCCESS)
        return STENC_ERROR(STENC_ERR_IO,
                           "stenc_field_exchange: MPI_Waitall failed (%d) along "
                           "dimension %d",
                           err, d);
    const int *nb = dp->neighbour[d];
    const size_t slot = (df->round[d] & 1) * df->cap[d] * df->elem;
    for (int s = 0; s < 2 && df->halo > 0; s++) { /* data where data was due, else empty */
        if (nb[s] == MPI_PROC_NULL) continue;
        const dist_box recv = face_box(field, df, d, s, 1);
        const int ipc = df->device && df->peer[d][s] != NULL;
        const int want = ipc ? 0 : (int)(dist_box_points(&recv) * df->elem);
        int bytes = -1;
        MPI_Get_count(&got[s], MPI_BYTE, &bytes);
        if (bytes != want) /* after the wait: nothing of this dimension is left in flight */
            return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                               "stenc_field_exchange: across face %s came %d bytes where %d were "
                               "due: the neighbour's part is %s (upload every rank's part, or "
                               "none)",
                               stenc_face_names[2 * d + s], bytes, want,
                               ipc ? "on the host, this one on the device"
                                   : "on the device, this one on the host");
    }
    stenc_bc faces[STENC_FACE_COUNT] = {{STENC_BC_NONE, 0}};
    int physical = 0;
    for (int s = 0; s < 2; s++) {
        if (nb[s] == MPI_PROC_NULL) {
            if (df->filled_early & (1u << d)) continue;
            faces[2 * d + s] = df->bc[2 * d + s];
            physical = 1;
            continue;
        }
        if (df->halo == 0) continue;
        const dist_box recv = face_box(field, df, d, s, 1);
        const size_t ro = df->offset[d][s][1] * df->elem;
        if (df->device && df->peer[d][s]) {
            STENC_TRY(dist_cuda_box(&df->stream, &recv, df->peer[d][s] + slot, 1));
        } else if (df->device) {
            if (df->staged)
                STENC_TRY(dist_cuda_copy(&df->stream, df->device_buf + ro, df->host_buf + ro,
                                         dist_box_points(&recv) * df->elem, 1));
            STENC_TRY(dist_cuda_box(&df->stream, &recv, df->device_buf + ro, 1));
        } else {
            dist_host_box(&recv, df->host_buf + ro, 1);
        }
    }
    /* Later kernels on the context's stream, and the physical faces' fill, see the halo. */
    if (df->device) STENC_TRY(dist_cuda_join(ctx, &df->stream));
    if (physical && df->halo > 0) STENC_TRY(stenc_field_fill_halo(field, faces));
    return STENC_OK;
}

/* The rest of the exchange after begin's posts: every dimension's wait, and in corner mode the
 * later dimensions' posts. Every step runs whatever failed before, so that the neighbours'
 * messages are all matched; the first failure is returned. */
static stenc_status complete(stenc_field *field, dist_field *df) {
    const int dims = df->decomp->info.dims;
    stenc_status status = STENC_OK, st;
    for (int d = 0; d < dims; d++) {
        if (d > 0 && !(df->flags & STENC_EXCHANGE_FACES)) {
            st = post_dim(field, df, d);
            if (status == STENC_OK) status = st;
        }
        st = finish_dim(field, df, d);
        if (status == STENC_OK) status = st;
    }
    df->pending = 0;
    df->ready_marked = 0;
    return status;
}

static stenc_status begin(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT], unsigned flags,
                          const char *fn) {
    dist_field *df = NULL;
    STENC_TRY(check_exchange(field, bc, fn, &df));
    STENC_REQUIRE((flags & ~STENC_EXCHANGE_FACES) == 0, "%s: unknown flags 0x%x", fn, flags);
    memcpy(df->bc, bc, sizeof df->bc);
    df->flags = flags;
    df->device = stenc_field_location(field) == STENC_ON_DEVICE;
    df->staged = df->device && !stenc_mpi_cuda_aware();
    const int dims = df->decomp->info.dims;
    const int upto = flags & STENC_EXCHANGE_FACES ? dims : 1;
    for (int d = 0; d < 3; d++)
        for (int r = 0; r < 4; r++)
            df->req[d][r] = MPI_REQUEST_NULL;
    df->pending = 1;
    stenc_status status = STENC_OK;
    for (int d = 0; d < upto; d++) {
        const stenc_status st = post_dim(field, df, d);
        if (status == STENC_OK) status = st;
    }
    if (status != STENC_OK) { /* run the exchange to its end: the neighbours take part */
        complete(field, df);
        return status;
    }
    df->ready_marked = 0; /* later dimensions wait for what the context's stream did since */
    return STENC_OK;
}

static stenc_status end(stenc_field *field, const char *fn) {
    STENC_TRY(stenc_field_check(field, fn, "field"));
    dist_field *df = stenc_field_dist_ops_of(field) == &dist_ops ? stenc_field_dist(field) : NULL;
    STENC_REQUIRE(df != NULL, "%s: the field is not distributed", fn);
    STENC_REQUIRE(df->pending, "%s: no exchange of this field is under way", fn);
    return complete(field, df);
}

stenc_status stenc_field_exchange_begin(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                                        unsigned flags) {
    return begin(field, bc, flags, "stenc_field_exchange_begin");
}

stenc_status stenc_field_exchange_end(stenc_field *field) {
    return end(field, "stenc_field_exchange_end");
}

stenc_status stenc_field_exchange(stenc_field *field, const stenc_bc bc[STENC_FACE_COUNT],
                                  unsigned flags) {
    STENC_TRY(begin(field, bc, flags, "stenc_field_exchange"));
    return end(field, "stenc_field_exchange");
}

/* ---- overlapping the exchange with computation ---------------------------------------------- */

/* The regions of an interior n[] for a stencil of `radius`: region 0 is the inner box, which
 * reads no halo of the dimensions in `shell` (a bit mask); the others tile the rest, slabs
 * of k, then j, then i. Views must start rows on the alignment that generated kernels assume,
 * so along i the inner box starts and ends on a multiple of `align` points. Returns the count
 * of regions, or -1 when the part is too thin to have an inner box. */
static int overlap_regions(int dims, const size_t n[3], size_t r, unsigned shell, size_t align,
                           size_t lo[7][3], size_t count[7][3]) {
    size_t a[3], b[3]; /* the inner box: a[d] <= i < b[d] */
    for (int d = 0; d < 3; d++) {
        a[d] = 0, b[d] = n[d];
        if (d >= dims || !(shell & (1u << d))) continue;
        if (d == 0) {
            a[d] = (r + align - 1) / align * align;
            b[d] = n[d] >= r ? (n[d] - r) / align * align : 0;
        } else {
            a[d] = r;
            b[d] = n[d] >= r ? n[d] - r : 0;
        }
        if (b[d] <= a[d]) return -1;
    }
    int m = 0;
    for (int d = 0; d < 3; d++)
        lo[m][d] = a[d], count[m][d] = b[d] - a[d];
    m++;
    for (int d = dims - 1; d >= 0; d--) {
        if (!(shell & (1u << d))) continue;
        for (int side = 0; side < 2; side++) {
            for (int e = 0; e < 3; e++) {
                if (e == d) {
                    lo[m][e] = side ? b[e] : 0;
                    count[m][e] = side ? n[e] - b[e] : a[e];
                } else if (e > d) { /* slabs of later dimensions took their ends already */
                    lo[m][e] = a[e], count[m][e] = b[e] - a[e];
                } else {
                    lo[m][e] = 0, count[m][e] = n[e];
                }
            }
            m++;
        }
    }
    return m;
}

static stenc_status run_region(stenc_dist_launch_fn launch, void *user, int nfields,
                               stenc_field *const fields[], const size_t lo[3],
                               const size_t count[3]) {
    stenc_field *views[STENC_DIST_OVERLAP_MAX_FIELDS] = {NULL};
    stenc_status status = STENC_OK;
    for (int f = 0; f < nfields && status == STENC_OK; f++)
        status = stenc_field_view(&views[f], fields[f], lo, count);
    if (status == STENC_OK) status = launch(user, views);
    for (int f = 0; f < nfields; f++)
        stenc_field_free(views[f]);
    return status;
}

static stenc_status run_shell(stenc_dist_launch_fn launch, void *user, int nfields,
                              stenc_field *const fields[], int regions, size_t lo[7][3],
                              size_t count[7][3]) {
    for (int r = 1; r < regions; r++)
        STENC_TRY(run_region(launch, user, nfields, fields, lo[r], count[r]));
    return STENC_OK;
}

stenc_status stenc_dist_overlap(stenc_field *exchanged, const stenc_bc bc[STENC_FACE_COUNT],
                                unsigned flags, int radius, int nfields,
                                stenc_field *const fields[], stenc_dist_launch_fn launch,
                                void *user) {
    const char *fn = "stenc_dist_overlap";
    dist_field *df = NULL;
    STENC_TRY(check_exchange(exchanged, bc, fn, &df));
    STENC_REQUIRE(launch != NULL && fields != NULL, "%s: launch or fields is NULL", fn);
    STENC_REQUIRE(nfields >= 1 && nfields <= STENC_DIST_OVERLAP_MAX_FIELDS,
                  "%s: nfields is %d (1 to %d)", fn, nfields, STENC_DIST_OVERLAP_MAX_FIELDS);
    STENC_REQUIRE(radius >= 0 && radius <= df->halo,
                  "%s: radius %d is negative or wider than the exchanged halo %d", fn, radius,
                  df->halo);
    for (int f = 0; f < nfields; f++) {
        STENC_TRY(stenc_field_check(fields[f], fn, "a field"));
        if (stenc_field_decomp_signature(fields[f]) != stenc_field_decomp_signature(exchanged))
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: field %d is split over the ranks "
                               "differently from the exchanged field",
                               fn, f);
    }
    stenc_field_layout L;
    STENC_TRY(stenc_field_get_layout(exchanged, &L));
    /* With FACES, a dimension that meets no other rank has only physical faces: they are
     * filled first, and it needs no shell. Without it every dimension waits its turn. */
    unsigned shell = 0, isolated = 0;
    for (int d = 0; d < L.dims; d++) {
        const int *nb = df->decomp->neighbour[d];
        if ((flags & STENC_EXCHANGE_FACES) && nb[0] == MPI_PROC_NULL && nb[1] == MPI_PROC_NULL)
            isolated |= 1u << d;
        else
            shell |= 1u << d;
    }
    size_t lo[7][3], count[7][3];
    const int regions = overlap_regions(L.dims, L.n, (size_t)radius, shell,
                                        STENC_FIELD_ALIGN / df->elem, lo, count);
    const int device = stenc_field_location(exchanged) == STENC_ON_DEVICE;
    stenc_status status = STENC_OK;
    if (regions >= 0 && isolated) { /* (a failed check above leaves the halo untouched) */
        stenc_bc faces[STENC_FACE_COUNT] = {{STENC_BC_NONE, 0}};
        for (int d = 0; d < L.dims; d++)
            if (isolated & (1u << d)) faces[2 * d] = bc[2 * d], faces[2 * d + 1] = bc[2 * d + 1];
        STENC_TRY(stenc_field_fill_halo(exchanged, faces));
        df->filled_early = isolated;
    }
    if (regions < 0) { /* too thin to have an inner box: exchange, then everything */
        STENC_TRY(stenc_field_exchange(exchanged, bc, flags));
        const size_t zero[3] = {0, 0, 0};
        return run_region(launch, user, nfields, fields, zero, L.n);
    }
    /* On the device the inner box is queued first and runs while the exchange packs, sends
     * and unpacks on its own stream; `ready` keeps the exchange from waiting for it. On the
     * host the messages are posted first, and travel while the inner box is computed. */
    if (device) {
        status = dist_cuda_mark_ready(stenc_field_ctx(exchanged), &df->stream);
        df->ready_marked = status == STENC_OK;
        if (status == STENC_OK) status = run_region(launch, user, nfields, fields, lo[0], count[0]);
        if (status == STENC_OK) status = begin(exchanged, bc, flags, fn);
        df->ready_marked = 0;
        if (status == STENC_OK) status = end(exchanged, fn);
    } else {
        status = begin(exchanged, bc, flags, fn);
        if (status == STENC_OK) {
            status = run_region(launch, user, nfields, fields, lo[0], count[0]);
            stenc_status ended = end(exchanged, fn); /* the messages complete in any case */
            if (status == STENC_OK) status = ended;
        }
    }
    df->filled_early = 0;
    STENC_TRY(status);
    return run_shell(launch, user, nfields, fields, regions, lo, count);
}

/* ---- global reductions ----------------------------------------------------------------------- */

/* The bit pattern of |x|: ordered like |x| for numbers, NaN above every number. */
static uint64_t abs_bits(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits & 0x7fffffffffffffffull;
}

static double load(const stenc_field_layout *L, const void *origin, size_t i, size_t j, size_t k) {
    const ptrdiff_t off = (ptrdiff_t)i + (ptrdiff_t)j * L->stride[1] + (ptrdiff_t)k * L->stride[2];
    return L->type == STENC_F32 ? (double)((const float *)origin)[off]
                                : ((const double *)origin)[off];
}

/* The host's exact partial sums, one accumulator per thread added up as integers. */
/* Over the interior n[] of La (a at origin oa) and Lb (b at ob), on the host. */
static void host_reduce_layout(int kind, const stenc_field_layout *pa, const void *oa,
                               const stenc_field_layout *pb, const void *ob, xsum *acc,
                               uint64_t *max_bits) {
    const stenc_field_layout La = *pa, Lb = *pb;
    const long planes = (long)(La.n[1] * La.n[2]);
    memset(acc, 0, sizeof *acc);
    uint64_t top = 0;
#pragma omp parallel
    {
        xsum mine;
        memset(&mine, 0, sizeof mine);
        uint64_t my_top = 0;
        size_t terms = 0;
#pragma omp for schedule(static)
        for (long r = 0; r < planes; r++) {
            const size_t j = (size_t)r % La.n[1], k = (size_t)r / La.n[1];
            for (size_t i = 0; i < La.n[0]; i++) {
                const double x = load(&La, oa, i, j, k);
                if (kind == DIST_SUM) {
                    xsum_add(&mine, x);
                } else if (kind == DIST_DOT) {
                    xsum_add_product(&mine, x, load(&Lb, ob, i, j, k));
                } else {
                    const uint64_t bits = abs_bits(x);
                    my_top = bits > my_top ? bits : my_top;
                }
            }
            terms += 2 * La.n[0];
            if (terms > ((size_t)1 << 29)) {
                xsum_normalize(&mine);
                terms = 0;
            }
        }
        xsum_normalize(&mine);
#pragma omp critical(stenc_dist_reduce)
        {
            for (int w = 0; w < XSUM_WORDS; w++)
                acc->w[w] += mine.w[w];
            top = my_top > top ? my_top : top;
        }
    }
    xsum_normalize(acc);
    *max_bits = top;
}

static stenc_status host_reduce(int kind, const stenc_field *a, const stenc_field *b, xsum *acc,
                                uint64_t *max_bits) {
    stenc_field_layout La, Lb;
    STENC_TRY(stenc_field_get_layout(a, &La));
    STENC_TRY(stenc_field_get_layout(b, &Lb));
    host_reduce_layout(kind, &La, stenc_field_host_origin(a), &Lb, stenc_field_host_origin(b), acc,
                       max_bits);
    return STENC_OK;
}

stenc_status dist_local_reduce(int kind, const stenc_field *a, const stenc_field *b, xsum *acc,
                               uint64_t *max_bits) {
    const stenc_field *bb = b ? b : a;
    stenc_field_layout La, Lb;
    STENC_TRY(stenc_field_get_layout(a, &La));
    STENC_TRY(stenc_field_get_layout(bb, &Lb));
    if (!stenc_type_is_real(La.type) || !stenc_type_is_real(Lb.type))
        return STENC_ERROR(STENC_ERR_UNSUPPORTED,
                           "stenc reductions: a field of %s; sums and norms are of float and "
                           "double fields",
                           stenc_type_name(stenc_type_is_real(La.type) ? Lb.type : La.type));
    if (stenc_field_location(a) != STENC_ON_DEVICE) return host_reduce(kind, a, bb, acc, max_bits);
    return dist_cuda_reduce(stenc_field_ctx(a), kind, La.type, La.n, stenc_field_device_origin(a),
                            La.stride, stenc_field_device_origin(bb), Lb.stride, acc, max_bits);
}

static stenc_status dist_reduce(int kind, const stenc_field *a, const stenc_field *b,
                                double *result) {
    const dist_field *df = field_dist(a);
    MPI_Comm comm = df->decomp->cart;
    const stenc_field *bb = b ? b : a;
    xsum acc;
    uint64_t top = 0;
    stenc_status status;
    if (stenc_field_location(a) == STENC_ON_DEVICE) {
        stenc_field_layout La, Lb;
        stenc_field_get_layout(a, &La);
        stenc_field_get_layout(bb, &Lb);
        status =
            dist_cuda_reduce(stenc_field_ctx(a), kind, La.type, La.n, stenc_field_device_origin(a),
                             La.stride, stenc_field_device_origin(bb), Lb.stride, &acc, &top);
    } else {
        status = host_reduce(kind, a, bb, &acc, &top);
    }
    STENC_TRY(dist_agree(comm, status, "stenc_field reduction"));
    if (kind == DIST_MAX_ABS) {
        uint64_t global = 0;
        MPI_Allreduce(&top, &global, 1, MPI_UINT64_T, MPI_MAX, comm);
        double r;
        memcpy(&r, &global, sizeof r);
        *result = r;
        return STENC_OK;
    }
    xsum global;
    MPI_Allreduce(acc.w, global.w, XSUM_WORDS, MPI_INT64_T, MPI_SUM, comm);
    *result = xsum_result(&global);
    return STENC_OK;
}

static stenc_status dist_field_agree(const stenc_field *field, stenc_status mine, const char *fn) {
    return dist_agree(field_dist(field)->decomp->cart, mine, fn);
}

/* A double as an integer of the same order, -0 below +0 (NaN is handled apart). */
static int64_t order_key(double x) {
    int64_t k;
    memcpy(&k, &x, sizeof k);
    return k < 0 ? k ^ INT64_MAX : k;
}

static double from_order_key(int64_t k) {
    k = k < 0 ? k ^ INT64_MAX : k;
    double x;
    memcpy(&x, &k, sizeof x);
    return x;
}

/* Sums: each rank's terms summed exactly, the ranks' exact sums added, the total rounded once:
 * the same bits whatever the ranks. Max and min are exact anyway; NaN anywhere gives NaN. */
static stenc_status dist_reduce_terms(const stenc_field *field, stenc_status kernel,
                                      const char *ops, const double *terms, const size_t n[3],
                                      int on_device, double *results, const char *fn) {
    MPI_Comm comm = field_dist(field)->decomp->cart;
    STENC_TRY(dist_agree(comm, kernel, fn));
    const size_t points = n[0] * n[1] * n[2];
    const int count = (int)strlen(ops);
    stenc_field_layout L;
    memset(&L, 0, sizeof L);
    L.type = STENC_F64;
    for (int d = 0; d < 3; d++)
        L.n[d] = n[d];
    L.stride[0] = 1, L.stride[1] = (ptrdiff_t)n[0], L.stride[2] = (ptrdiff_t)(n[0] * n[1]);
    stenc_status status = STENC_OK;
    for (int r = 0; r < count; r++) {
        if (ops[r] == 's') {
            const double *t = terms + (size_t)r * points;
            xsum acc, global;
            uint64_t unused = 0;
            if (on_device)
                status = dist_cuda_reduce(stenc_field_ctx(field), DIST_SUM, STENC_F64, n, t,
                                          L.stride, t, L.stride, &acc, &unused);
            else
                host_reduce_layout(DIST_SUM, &L, t, &L, t, &acc, &unused);
            status = dist_agree(comm, status, fn);
            if (status != STENC_OK) return status;
            MPI_Allreduce(acc.w, global.w, XSUM_WORDS, MPI_INT64_T, MPI_SUM, comm);
            results[r] = xsum_result(&global);
        } else {
            int nan = isnan(results[r]), any_nan = 0;
            MPI_Allreduce(&nan, &any_nan, 1, MPI_INT, MPI_MAX, comm);
            int64_t key = nan ? 0 : order_key(results[r]), global = 0;
            if (nan) key = ops[r] == 'x' ? INT64_MIN : INT64_MAX; /* no say in the order */
            MPI_Allreduce(&key, &global, 1, MPI_INT64_T, ops[r] == 'x' ? MPI_MAX : MPI_MIN, comm);
            results[r] = any_nan ? (double)NAN : from_order_key(global);
        }
    }
    return STENC_OK;
}

/* A root that is a rank, and on it a non-NULL `ptr` (named `what`). */
static stenc_status check_root(const stenc_decomp_info *info, int root, const void *ptr,
                               const char *what, const char *fn) {
    if (root < 0 || root >= info->size)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: root %d is not one of the %d ranks", fn,
                           root, info->size);
    if (info->rank == root && !ptr)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: %s is NULL on the root", fn, what);
    return STENC_OK;
}

/* Fields to write together: at most 8, with names, all split like fields[0] (whose dist part
 * is df). */
static stenc_status check_written(const dist_field *df, int count, const char *const names[],
                                  const stenc_field *const fields[], const char *fn) {
    if (count > 8 || !names)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: %d fields (at most 8) or names is NULL",
                           fn, count);
    for (int f = 1; f < count; f++) {
        STENC_TRY(stenc_field_check(fields[f], fn, "a field"));
        if (stenc_field_decomp_signature(fields[f]) != df->decomp->sig)
            return STENC_ERROR(STENC_ERR_SHAPE,
                               "%s: fields[%d] is split over the ranks differently from "
                               "fields[0]",
                               fn, f);
    }
    return STENC_OK;
}

/* ---- gather and scatter --------------------------------------------------------------------- */

/* Copy a rank's part (box lo[], count[]) between its dense buffer and the dense global array. */
static void place_part(const stenc_decomp_info *info, size_t elem, const size_t lo[3],
                       const size_t count[3], char *part, char *global, int to_global) {
    const size_t row = count[0] * elem;
    for (size_t k = 0; k < count[2]; k++)
        for (size_t j = 0; j < count[1]; j++) {
            const size_t g = lo[0] + info->n[0] * ((lo[1] + j) + info->n[1] * (lo[2] + k));
            char *p = part + (j + count[1] * k) * row;
            if (to_global)
                memcpy(global + g * elem, p, row);
            else
                memcpy(p, global + g * elem, row);
        }
}

static stenc_status gather_scatter(stenc_field *field, int root, char *global, int scatter,
                                   const char *fn) {
    STENC_TRY(stenc_field_check(field, fn, "field"));
    const dist_field *df = field_dist(field);
    STENC_REQUIRE(df != NULL, "%s: the field is not distributed", fn);
    const stenc_decomp_info *info = &df->decomp->info;
    MPI_Comm comm = df->decomp->cart;
    stenc_status status = check_root(info, root, global, "global", fn);
    /* The largest part of any rank. */
    size_t biggest = df->elem;
    for (int d = 0; d < 3; d++) {
        size_t widest = 0;
        for (int c = 0; c < info->procs[d]; c++)
            if (df->decomp->start[d][c + 1] - df->decomp->start[d][c] > widest)
                widest = df->decomp->start[d][c + 1] - df->decomp->start[d][c];
        biggest *= widest;
    }
    char *part = NULL;
    if (status == STENC_OK) {
        part = malloc(biggest);
        if (!part) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
    }
    if (status == STENC_OK && !scatter) status = stenc_field_interior_get(field, part, fn);
    status = dist_agree(comm, status, fn);
    if (status != STENC_OK) {
        free(part);
        return status;
    }
    if (!scatter && info->rank == root)
        place_part(info, df->elem, info->lo, info->local, part, global, 1);
    /* Rank by rank through the root: every rank's box is known to all (the same split). */
    for (int r = 0; r < info->size; r++) {
        if (r == root || (info->rank != r && info->rank != root)) continue;
        int coords[3];
        size_t lo[3], count[3];
        rank_box(df->decomp, r, lo, count, coords);
        const int bytes = (int)(count[0] * count[1] * count[2] * df->elem);
        if (info->rank == root) {
            if (scatter) {
                place_part(info, df->elem, lo, count, part, global, 0);
                MPI_Send(part, bytes, MPI_BYTE, r, 100, comm);
            } else {
                MPI_Recv(part, bytes, MPI_BYTE, r, 100, comm, MPI_STATUS_IGNORE);
                place_part(info, df->elem, lo, count, part, global, 1);
            }
        } else if (scatter) {
            MPI_Recv(part, bytes, MPI_BYTE, root, 100, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(part, bytes, MPI_BYTE, root, 100, comm);
        }
    }
    if (scatter) {
        /* The root's own part went into `part` first and was overwritten by the others'. */
        if (info->rank == root) place_part(info, df->elem, info->lo, info->local, part, global, 0);
        status = stenc_field_interior_put(field, part, fn);
    }
    free(part);
    return dist_agree(comm, status, fn);
}

stenc_status stenc_field_gather(const stenc_field *field, int root, void *global) {
    return gather_scatter((stenc_field *)field, root, global, 0, "stenc_field_gather");
}

stenc_status stenc_field_scatter(stenc_field *field, int root, const void *global) {
    return gather_scatter(field, root, (char *)(uintptr_t)global, 1, "stenc_field_scatter");
}

/* Gather a distributed field into an ordinary field `whole` on the root, or scatter it back:
 * through the dense global array, which the root fills from or copies into `whole`. */
static stenc_status whole_field(stenc_field *part, int root, stenc_field *whole, int scatter,
                                const char *fn) {
    STENC_TRY(stenc_field_check(part, fn, "part"));
    const dist_field *df = field_dist(part);
    STENC_REQUIRE(df != NULL, "%s: the part is not distributed", fn);
    const stenc_decomp_info *info = &df->decomp->info;
    MPI_Comm comm = df->decomp->cart;
    stenc_status status = check_root(info, root, whole, "whole", fn);
    char *global = NULL;
    if (status == STENC_OK && info->rank == root) {
        stenc_field_layout wl, pl;
        status = stenc_field_check(whole, fn, "whole");
        if (status == STENC_OK && field_dist(whole))
            status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: 'whole' is distributed", fn);
        if (status == STENC_OK) {
            stenc_field_get_layout(whole, &wl);
            stenc_field_get_layout(part, &pl);
            if (wl.type != pl.type || wl.dims != info->dims || wl.n[0] != info->n[0] ||
                wl.n[1] != info->n[1] || wl.n[2] != info->n[2])
                status = STENC_ERROR(STENC_ERR_SHAPE,
                                     "%s: 'whole' is %s %zux%zux%zu (%d-D), the distributed "
                                     "field's global grid %s %zux%zux%zu (%d-D)",
                                     fn, stenc_type_name(wl.type), wl.n[0], wl.n[1], wl.n[2],
                                     wl.dims, stenc_type_name(pl.type), info->n[0], info->n[1],
                                     info->n[2], info->dims);
        }
        if (status == STENC_OK) {
            global = malloc(info->n[0] * info->n[1] * info->n[2] * df->elem);
            if (!global) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
        }
        if (status == STENC_OK && scatter) status = stenc_field_interior_get(whole, global, fn);
    }
    status = dist_agree(comm, status, fn);
    if (status == STENC_OK) status = gather_scatter(part, root, global, scatter, fn);
    if (status == STENC_OK && !scatter && info->rank == root) {
        status = dist_agree(comm, stenc_field_interior_put(whole, global, fn), fn);
    } else if (status == STENC_OK && !scatter) {
        status = dist_agree(comm, STENC_OK, fn);
    }
    free(global);
    return status;
}

stenc_status stenc_field_gather_field(const stenc_field *part, int root, stenc_field *whole) {
    return whole_field((stenc_field *)part, root, whole, 0, "stenc_field_gather_field");
}

stenc_status stenc_field_scatter_field(stenc_field *part, int root, const stenc_field *whole) {
    return whole_field(part, root, (stenc_field *)whole, 1, "stenc_field_scatter_field");
}

/* ---- VTK: one .vti piece per rank and a .pvti ----------------------------------------------- */

/* The piece of rank `rank`: its part and, toward each neighbour above it (not across a
 * periodic wrap), that neighbour's first layer, so that pieces share their boundary points
 * and ParaView shows no gap. */
static void piece_box(const stenc_decomp *dp, int rank, size_t lo[3], size_t count[3]) {
    int coords[3];
    rank_box(dp, rank, lo, count, coords);
    for (int d = 0; d < dp->info.dims; d++)
        if (coords[d] + 1 < dp->info.procs[d]) count[d]++;
}

/* The piece's file name: BASE_pRANK.vti, BASE the .pvti path without its extension. */
static void piece_name(char *buf, size_t cap, const char *pvti, int rank, int basename_only) {
    const char *start = pvti;
    if (basename_only) {
        const char *slash = strrchr(pvti, '/');
        if (slash) start = slash + 1;
    }
    const size_t len = strlen(start) - strlen(".pvti");
    snprintf(buf, cap, "%.*s_p%d.vti", (int)len, start, rank);
}

static stenc_status write_piece(const char *path, int count, const char *const names[],
                                const stenc_field *const fields[], const double origin[3],
                                const double spacing[3], const dist_field *df, const char *fn) {
    const stenc_decomp_info *info = &df->decomp->info;
    size_t lo[3], n[3];
    piece_box(df->decomp, info->rank, lo, n);
    stenc_ctx *ctx = stenc_field_ctx(fields[0]);
    stenc_field *tmp[8] = {NULL}, *piece[8] = {NULL};
    stenc_bc bc[STENC_FACE_COUNT];
    for (int d = 0; d < 3; d++) {
        const stenc_bc_kind kind = info->periodic[d] ? STENC_BC_PERIODIC : STENC_BC_NEUMANN;
        bc[2 * d] = bc[2 * d + 1] = (stenc_bc){kind, 0};
    }
    stenc_status status = STENC_OK;
    for (int f = 0; f < count && status == STENC_OK; f++) {
        /* The neighbours' layers: a copy with a halo of 1, exchanged (edges and corners too). */
        stenc_field_layout L;
        status = stenc_field_get_layout(fields[f], &L);
        char *dense = NULL;
        const size_t esz = stenc_type_size(L.type); /* fields may differ in type */
        if (status == STENC_OK)
            status = stenc_field_create_dist(ctx, &tmp[f], df->decomp, L.type, 1);
        if (status == STENC_OK) {
            dense = malloc(info->local[0] * info->local[1] * info->local[2] * esz + 1);
            if (!dense) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
        }
        if (status == STENC_OK) status = stenc_field_interior_get(fields[f], dense, fn);
        if (status == STENC_OK) status = stenc_field_interior_put(tmp[f], dense, fn);
        free(dense);
        if (status == STENC_OK) status = stenc_field_exchange(tmp[f], bc, 0);
        if (status == STENC_OK)
            status = stenc_field_create(ctx, &piece[f], L.type, info->dims, n[0], n[1], n[2], 0);
        if (status != STENC_OK) break;
        stenc_field_layout T, P;
        stenc_field_get_layout(tmp[f], &T);
        stenc_field_get_layout(piece[f], &P);
        const char *src = stenc_field_host_origin(tmp[f]);
        char *dst = stenc_field_host_origin(piece[f]);
        for (size_t k = 0; k < n[2]; k++)
            for (size_t j = 0; j < n[1]; j++)
                memcpy(
                    dst + esz * (size_t)((ptrdiff_t)j * P.stride[1] + (ptrdiff_t)k * P.stride[2]),
                    src + esz * (size_t)((ptrdiff_t)j * T.stride[1] + (ptrdiff_t)k * T.stride[2]),
                    n[0] * esz);
    }
    if (status == STENC_OK)
        status = stenc_io_vti_write_piece(path, count, names, (const stenc_field *const *)piece,
                                          origin, spacing, lo, info->n, fn);
    for (int f = 0; f < count; f++) {
        stenc_field_free(tmp[f]);
        stenc_field_free(piece[f]);
    }
    return status;
}

static void xml_text(FILE *fp, const char *text) {
    for (const char *c = text; *c; c++) {
        if (*c == '&')
            fputs("&amp;", fp);
        else if (*c == '<')
            fputs("&lt;", fp);
        else if (*c == '>')
            fputs("&gt;", fp);
        else if (*c == '"')
            fputs("&quot;", fp);
        else
            fputc(*c, fp);
    }
}

stenc_status stenc_dist_vti_write(const char *path, int count, const char *const names[],
                                  const stenc_field *const fields[], const double origin[3],
                                  const double spacing[3]) {
    const char *fn = "stenc_dist_vti_write";
    STENC_REQUIRE(fields != NULL && count >= 1 && fields[0] != NULL, "%s: no fields (count %d)", fn,
                  count);
    STENC_TRY(stenc_field_check(fields[0], fn, "fields[0]"));
    const dist_field *df = field_dist(fields[0]);
    STENC_REQUIRE(df != NULL, "%s: fields[0] is not distributed", fn);
    const stenc_decomp_info *info = &df->decomp->info;
    MPI_Comm comm = df->decomp->cart;
    /* Checks that every rank makes alike: the same arguments, the same decomposition. */
    stenc_status status = STENC_OK;
    const size_t len = path ? strlen(path) : 0;
    if (!path || len < 6 || strcmp(path + len - 5, ".pvti") != 0)
        status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "%s: path '%s' does not end in .pvti", fn,
                             path ? path : "(null)");
    else
        status = check_written(df, count, names, fields, fn);
    STENC_TRY(dist_agree(comm, status, fn));
    char piece_path[4200];
    piece_name(piece_path, sizeof piece_path, path, info->rank, 0);
    status = write_piece(piece_path, count, names, fields, origin, spacing, df, fn);
    STENC_TRY(dist_agree(comm, status, fn));
    if (info->rank == 0) { /* the parallel header: every piece's extent and file */
        static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
        const double *o = origin ? origin : zero, *s = spacing ? spacing : one;
        FILE *fp = fopen(path, "w");
        if (!fp) {
            status = STENC_ERROR(STENC_ERR_IO, "%s: cannot create %s", fn, path);
        } else {
            fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PImageData\" version=\"1.0\" "
                        "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n");
            fprintf(fp,
                    "  <PImageData WholeExtent=\"0 %zu 0 %zu 0 %zu\" GhostLevel=\"0\" "
                    "Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g %.17g\">\n",
                    info->n[0] - 1, info->n[1] - 1, info->n[2] - 1, o[0], o[1], o[2], s[0], s[1],
                    s[2]);
            fputs("    <PPointData Scalars=\"", fp);
            xml_text(fp, names[0]);
            fputs("\">\n", fp);
            for (int f = 0; f < count; f++) {
                stenc_field_layout L;
                stenc_field_get_layout(fields[f], &L);
                fprintf(fp, "      <PDataArray type=\"%s\" Name=\"", io_vtk_type(L.type));
                xml_text(fp, names[f]);
                fputs("\"/>\n", fp);
            }
            fprintf(fp, "    </PPointData>\n");
            for (int r = 0; r < info->size; r++) {
                size_t lo[3], n[3];
                piece_box(df->decomp, r, lo, n);
                char name[4200];
                piece_name(name, sizeof name, path, r, 1);
                fprintf(fp, "    <Piece Extent=\"%zu %zu %zu %zu %zu %zu\" Source=\"", lo[0],
                        lo[0] + n[0] - 1, lo[1], lo[1] + n[1] - 1, lo[2], lo[2] + n[2] - 1);
                xml_text(fp, name);
                fputs("\"/>\n", fp);
            }
            fprintf(fp, "  </PImageData>\n</VTKFile>\n");
            if (fclose(fp) != 0)
                status = STENC_ERROR(STENC_ERR_IO, "%s: writing %s failed", fn, path);
        }
    }
    return dist_agree(comm, status, fn);
}

/* ---- HDF5: a time step gathered on one rank -------------------------------------------------- */

int stenc_dist_have_parallel_h5(void) {
    return io_h5_parallel_built();
}

stenc_status stenc_dist_h5_open(stenc_io_h5 **file, stenc_ctx *ctx, const char *path,
                                stenc_io_mode mode) {
    const char *fn = "stenc_dist_h5_open";
    if (file) *file = NULL;
    STENC_TRY(stenc_ctx_check(ctx, fn));
    const dist_ctx *dc = ctx_dist(ctx);
    STENC_REQUIRE(dc != NULL, "%s: the context was not made by stenc_ctx_create_mpi", fn);
    return io_h5_open_parallel(file, path, mode, &dc->comm, fn);
}

stenc_status stenc_dist_h5_write_step(stenc_io_h5 *file, int root, long step, double time,
                                      int count, const char *const names[],
                                      const stenc_field *const fields[]) {
    const char *fn = "stenc_dist_h5_write_step";
    STENC_REQUIRE(fields != NULL && count >= 1 && count <= 8 && fields[0] != NULL,
                  "%s: count is %d (1 to 8) or fields is NULL", fn, count);
    STENC_TRY(stenc_field_check(fields[0], fn, "fields[0]"));
    const dist_field *df = field_dist(fields[0]);
    STENC_REQUIRE(df != NULL, "%s: fields[0] is not distributed", fn);
    const stenc_decomp_info *info = &df->decomp->info;
    MPI_Comm comm = df->decomp->cart;
    /* A file opened on every rank: each writes its part, collectively. */
    const int parallel = io_h5_is_parallel(file);
    int all_parallel = 0;
    MPI_Allreduce(&parallel, &all_parallel, 1, MPI_INT, MPI_MIN, comm);
    stenc_status status = STENC_OK;
    if (parallel && !all_parallel)
        status = STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                             "%s: a file opened by stenc_dist_h5_open on some ranks and not on "
                             "others",
                             fn);
    else if (!all_parallel)
        status = check_root(info, root, file, "file", fn);
    if (status == STENC_OK) status = check_written(df, count, names, fields, fn);
    STENC_TRY(dist_agree(comm, status, fn));
    if (all_parallel)
        return dist_agree(
            comm,
            io_h5_write_step_parts(file, step, time, count, names, fields, info->n, info->lo, fn),
            fn);
    /* The root holds each field whole, as a field of its own, and writes them in one step. */
    stenc_field *whole[8] = {NULL};
    char *dense = NULL;
    const size_t points = info->n[0] * info->n[1] * info->n[2];
    for (int f = 0; f < count && status == STENC_OK; f++) {
        stenc_field_layout L;
        stenc_field_get_layout(fields[f], &L);
        if (info->rank == root) {
            status = stenc_field_create(stenc_field_ctx(fields[f]), &whole[f], L.type, info->dims,
                                        info->n[0], info->n[1], info->n[2], 0);
            if (status == STENC_OK && !dense) {
                dense = malloc(points * sizeof(double));
                if (!dense) status = STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "%s: no memory", fn);
            }
        }
        status = dist_agree(comm, status, fn);
        if (status == STENC_OK) status = stenc_field_gather(fields[f], root, dense);
        if (status == STENC_OK && info->rank == root)
            status = stenc_field_copy_from(whole[f], dense);
        status = dist_agree(comm, status, fn);
    }
    if (status == STENC_OK && info->rank == root)
        status = stenc_io_h5_write_step(file, step, time, count, names,
                                        (const stenc_field *const *)whole);
    for (int f = 0; f < count; f++)
        stenc_field_free(whole[f]);
    free(dense);
    return dist_agree(comm, status, fn);
}
