/* The libFuzzer harness: one input is one .stencil file, taken through the whole compiler as
 * `stenc` would: parse and check (in the stencil's own precision and with --precision double
 * and float), analyse every stencil, print `--info`, and emit every target into a temporary
 * directory. Crashes, sanitizer reports and leaks are findings; so is a stencil that the
 * checker accepts and the emitter cannot build ("never accept what it cannot build").
 *
 * Built with clang -fsanitize=fuzzer,address,undefined when possible (fuzz_pipeline), and
 * without libFuzzer by any compiler with fuzz_corpus_main.c (fuzz_corpus), which runs the same
 * function over the seed corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "emit.h"
#include "frontend.h"
#include "info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;       /* diagnostics and --info output: only their production is tested */
static char outdir[256]; /* per process, removed at exit */

static void remove_outdir(void) {
    if (outdir[0]) rmdir(outdir);
}

static void init(void) {
    sink = fopen("/dev/null", "w");
    if (!sink) abort();
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(outdir, sizeof outdir, "%s/stenc_fuzz_XXXXXX", base);
    if (!mkdtemp(outdir)) {
        perror("stenc fuzz: mkdtemp");
        abort();
    }
    atexit(remove_outdir);
}

static void remove_outputs(const char *name, unsigned targets) {
    char file[1024], path[1400];
    for (int k = 0; emit_output_name(name, targets, k, file, sizeof file); k++) {
        snprintf(path, sizeof path, "%s/%s", outdir, file);
        unlink(path);
    }
}

static void run(const char *text, size_t size, ast_type precision) {
    fe_options opt = {0};
    opt.precision = precision;
    ast_file *file = NULL;
    int warnings = 0;
    int errors = fe_check_source_with("fuzz.stencil", text, size, sink, &opt, &file, &warnings);
    if (errors == 0 && file->nstencils > 0) {
        int n = file->nstencils;
        km_kernel *kms = calloc((size_t)n, sizeof *kms);
        if (!kms) abort();
        for (int s = 0; s < n; s++)
            if (analyze_stencil(file->stencils[s], precision, &kms[s]) != 0) abort();
        info_print_table(sink, kms, n);
        for (int s = 0; s < n; s++)
            info_print_kernel(sink, &kms[s]);
        const unsigned targets = (1u << emit_ntargets) - 1; /* every target */
        for (int s = 0; s < n; s++) {
            emit_options eo = {outdir, FUZZ_TEMPLATE_DIR, targets, precision != AST_TYPE_NONE,
                               "fuzz.stencil"};
            if (emit_stencil(&kms[s], &eo, stderr) != 0) {
                fprintf(stderr, "stenc fuzz: stencil '%s' was accepted, but emission failed\n",
                        file->stencils[s]->name);
                abort();
            }
            remove_outputs(file->stencils[s]->name, targets);
        }
        for (int s = 0; s < n; s++)
            analyze_free(&kms[s]);
        free(kms);
    }
    ast_file_free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!sink) init();
    /* The front end takes the bytes as they are (NULs included); copy them so that an over-read
     * past `size` is the sanitizer's to see, whatever the caller's buffer. */
    char *text = malloc(size ? size : 1);
    if (!text) abort();
    if (size) memcpy(text, data, size);
    run(text, size, AST_TYPE_NONE);
    run(text, size, AST_TYPE_DOUBLE);
    run(text, size, AST_TYPE_FLOAT);
    free(text);
    return 0;
}
