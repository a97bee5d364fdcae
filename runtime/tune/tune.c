/* The tuning cache: per-context memory in front of a small text file. The file is rewritten
 * whole through a temporary and a rename, so that a crash or a concurrent writer never leaves
 * a torn line behind (the last writer wins). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "stenc/tune.h"

#define TUNE_KEY_MAX 512
#define TUNE_VARIANT_MAX 128

struct stenc_tune_entry {
    char key[TUNE_KEY_MAX];
    char variant[TUNE_VARIANT_MAX];
    struct stenc_tune_entry *next;
};

/* The keys a context has tuned or looked up, kept under tune_key in the context. */
typedef struct tune_memory {
    struct stenc_tune_entry *first;
} tune_memory;

static const stenc_cache_key tune_key = {"tune"};

static void release_memory(stenc_ctx *ctx, void *state) {
    (void)ctx;
    tune_memory *m = state;
    for (struct stenc_tune_entry *e = m ? m->first : NULL; e;) {
        struct stenc_tune_entry *next = e->next;
        free(e);
        e = next;
    }
    free(m);
}

/* The context's memory, made on first use. */
static stenc_status memory_of(stenc_ctx *ctx, tune_memory **out) {
    *out = stenc_ctx_cache_get(ctx, &tune_key);
    if (*out) return STENC_OK;
    tune_memory *m = calloc(1, sizeof *m);
    if (!m) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_tune: no memory");
    STENC_TRY(stenc_ctx_cache_set(ctx, &tune_key, m, release_memory)); /* released if full */
    *out = m;
    return STENC_OK;
}

stenc_status stenc_tune(stenc_ctx *ctx, stenc_tune_mode mode) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_tune"));
    STENC_REQUIRE(mode == STENC_TUNE_OFF || mode == STENC_TUNE_ON || mode == STENC_TUNE_FORCE,
                  "stenc_tune: unknown mode %d", (int)mode);
    ctx->tune_mode = mode;
    /* FORCE forgets, so that keys re-tune. */
    if (mode == STENC_TUNE_FORCE) return stenc_ctx_cache_set(ctx, &tune_key, NULL, NULL);
    return STENC_OK;
}

stenc_tune_mode stenc_tune_get_mode(const stenc_ctx *ctx) {
    return ctx && stenc_ctx_check(ctx, "stenc_tune_get_mode") == STENC_OK
               ? (stenc_tune_mode)ctx->tune_mode
               : STENC_TUNE_OFF;
}

stenc_status stenc_tune_cache_path(char *path, size_t capacity) {
    STENC_REQUIRE(path != NULL && capacity > 0, "stenc_tune_cache_path: no buffer");
    const char *env = getenv("STENC_TUNE_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    const char *root, *tail;
    if (env && *env)
        root = env, tail = "";
    else if (xdg && *xdg)
        root = xdg, tail = "/stenc/tune-cache.txt";
    else if (home && *home)
        root = home, tail = "/.cache/stenc/tune-cache.txt";
    else
        return STENC_ERROR(STENC_ERR_IO, "stenc_tune_cache_path: none of STENC_TUNE_CACHE, "
                                         "XDG_CACHE_HOME or HOME is set");
    /* Measured first: a failed call leaves the buffer untouched. */
    size_t len = strlen(root) + strlen(tail);
    if (len >= capacity)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT,
                           "stenc_tune_cache_path: the path needs %zu bytes, the buffer has %zu",
                           len + 1, capacity);
    snprintf(path, capacity, "%s%s", root, tail);
    return STENC_OK;
}

stenc_status stenc_tune_key(const stenc_ctx *ctx, const char *stencil, const char *digest,
                            const size_t n[3], stenc_type type, char *key, size_t capacity) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_tune_key"));
    STENC_REQUIRE(stencil && n && key, "stenc_tune_key: NULL argument");
    if (!digest) digest = "";
    /* Measured first: a failed call leaves the buffer untouched. */
    const char *const format = "%s#%s|%zux%zux%zu|%s|%s|stenc " STENC_VERSION_STRING;
    int len = snprintf(NULL, 0, format, stencil, digest, n[0], n[1], n[2], stenc_type_name(type),
                       ctx->name);
    if (len < 0 || (size_t)len >= capacity || (size_t)len >= TUNE_KEY_MAX)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "stenc_tune_key: key for '%s' too long",
                           stencil);
    snprintf(key, capacity, format, stencil, digest, n[0], n[1], n[2], stenc_type_name(type),
             ctx->name);
    /* Tabs and newlines would break the file format. */
    for (char *c = key; *c; c++)
        if (*c == '\t' || *c == '\n') *c = ' ';
    return STENC_OK;
}

static struct stenc_tune_entry *memory_find(stenc_ctx *ctx, const char *key) {
    const tune_memory *m = stenc_ctx_cache_get(ctx, &tune_key);
    for (struct stenc_tune_entry *e = m ? m->first : NULL; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

static stenc_status memory_put(stenc_ctx *ctx, const char *key, const char *variant) {
    struct stenc_tune_entry *e = memory_find(ctx, key);
    if (!e) {
        tune_memory *m = NULL;
        STENC_TRY(memory_of(ctx, &m));
        e = calloc(1, sizeof *e);
        if (!e) return STENC_ERROR(STENC_ERR_OUT_OF_MEMORY, "stenc_tune: no memory");
        snprintf(e->key, sizeof e->key, "%s", key);
        e->next = m->first;
        m->first = e;
    }
    snprintf(e->variant, sizeof e->variant, "%s", variant);
    return STENC_OK;
}

/* Split "key\tvariant\tms\n" in place; 0 for a malformed line (skipped, never fatal). */
static int parse_line(char *line, char **key, char **variant) {
    char *tab1 = strchr(line, '\t');
    if (!tab1) return 0;
    char *tab2 = strchr(tab1 + 1, '\t');
    if (!tab2) return 0;
    *tab1 = *tab2 = '\0';
    *key = line;
    *variant = tab1 + 1;
    return **key && **variant && strlen(*variant) < TUNE_VARIANT_MAX;
}

stenc_status stenc_tune_lookup(stenc_ctx *ctx, const char *key, char *variant, size_t capacity,
                               int *found) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_tune_lookup"));
    STENC_REQUIRE(key && variant && found, "stenc_tune_lookup: NULL argument");
    struct stenc_tune_entry *e = memory_find(ctx, key);
    if (!e && ctx->tune_mode != STENC_TUNE_FORCE) {
        char path[1024];
        if (stenc_tune_cache_path(path, sizeof path) != STENC_OK) {
            stenc_clear_error(); /* no cache location: behave as an empty cache */
            *found = 0;
            return STENC_OK;
        }
        FILE *f = fopen(path, "r");
        if (!f) {
            *found = 0;
            return STENC_OK;
        }
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
            char *k, *v;
            if (parse_line(line, &k, &v) && strcmp(k, key) == 0) {
                stenc_status st = memory_put(ctx, key, v);
                if (st != STENC_OK) {
                    free(line);
                    fclose(f);
                    return st;
                }
            }
        }
        free(line);
        fclose(f);
        e = memory_find(ctx, key);
    }
    if (!e) {
        *found = 0;
        return STENC_OK;
    }
    if (strlen(e->variant) >= capacity)
        return STENC_ERROR(STENC_ERR_INVALID_ARGUMENT, "stenc_tune_lookup: buffer too small");
    strcpy(variant, e->variant);
    *found = 1;
    return STENC_OK;
}

static void make_parent_dirs(const char *path) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755); /* EEXIST is fine; real failures surface at fopen */
            *p = '/';
        }
}

stenc_status stenc_tune_store(stenc_ctx *ctx, const char *key, const char *variant, double ms) {
    STENC_TRY(stenc_ctx_check(ctx, "stenc_tune_store"));
    STENC_REQUIRE(key && variant, "stenc_tune_store: NULL argument");
    STENC_REQUIRE(*variant && strlen(variant) < TUNE_VARIANT_MAX && !strpbrk(variant, "\t\n"),
                  "stenc_tune_store: bad variant name '%s'", variant);
    STENC_TRY(memory_put(ctx, key, variant));

    char path[1024], tmp[1100];
    STENC_TRY(stenc_tune_cache_path(path, sizeof path));
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    make_parent_dirs(path);
    FILE *out = fopen(tmp, "w");
    if (!out)
        return STENC_ERROR(STENC_ERR_IO, "stenc_tune_store: cannot write '%s': %s", tmp,
                           strerror(errno));
    FILE *in = fopen(path, "r");
    if (in) { /* keep every other key */
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, in) > 0) {
            char copy[TUNE_KEY_MAX + TUNE_VARIANT_MAX + 64];
            snprintf(copy, sizeof copy, "%s", line);
            char *k, *v;
            if (parse_line(copy, &k, &v) && strcmp(k, key) != 0) fputs(line, out);
        }
        free(line);
        fclose(in);
    }
    fprintf(out, "%s\t%s\t%.6g\n", key, variant, ms);
    int write_failed = ferror(out);
    if (fclose(out) != 0 || write_failed || rename(tmp, path) != 0) {
        remove(tmp);
        return STENC_ERROR(STENC_ERR_IO, "stenc_tune_store: cannot update '%s': %s", path,
                           strerror(errno));
    }
    return STENC_OK;
}
