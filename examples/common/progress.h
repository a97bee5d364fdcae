/* Progress of a long run, for the examples and the benchmarks: every PROGRESS_INTERVAL_S
 * seconds one line on stderr with the fraction done, the time so far and the time left at the
 * rate so far. Only when stderr is a terminal, so that logs, pipes and ctest output stay as
 * they were, and never with --quiet. A run shorter than one interval prints nothing.
 *
 *     int main(int argc, char **argv) {
 *         progress_args(&argc, argv);            // takes --quiet out of argv
 *         progress p;
 *         progress_begin(&p, "heat_demo");
 *         for (...) progress_update(&p, work_done, work_total);
 *
 * Header-only C (also compiled as C++ by nvcc), with no dependency on stenc. */
#ifndef STENC_PROGRESS_H
#define STENC_PROGRESS_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_INTERVAL_S 2.0

/* Seconds on a monotonic clock. */
static inline double progress_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether progress lines are printed: decided once, from --quiet and isatty(stderr). */
static inline int *progress_enabled_(void) {
    static int enabled = -1; /* -1: not decided yet */
    return &enabled;
}

/* Removes every "--quiet" from argv (the program's own parser never sees it) and decides
 * whether progress lines are printed. Call once, first thing in main. */
static inline void progress_args(int *argc, char **argv) {
    if (*argc < 1) return; /* no argv[0]: nothing to take out */
    int quiet = 0, kept = 1;
    for (int a = 1; a < *argc; a++) {
        if (strcmp(argv[a], "--quiet") == 0)
            quiet = 1;
        else
            argv[kept++] = argv[a];
    }
    argv[kept] = NULL;
    *argc = kept;
    *progress_enabled_() = !quiet && isatty(STDERR_FILENO);
}

typedef struct progress {
    const char *what;  /* the start of each line: the program, or the case in hand */
    double start, due; /* seconds on progress_now_s(); due: when the next line may print */
} progress;

static inline void progress_begin(progress *p, const char *what) {
    if (*progress_enabled_() < 0) *progress_enabled_() = isatty(STDERR_FILENO);
    p->what = what;
    p->start = progress_now_s();
    p->due = p->start + PROGRESS_INTERVAL_S;
}

/* "42 s", "3 min 05 s", "2 h 07 min". */
static inline void progress_format_s_(double s, char *out, size_t size) {
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(out, size, "%ld s", t);
    else if (t < 3600)
        snprintf(out, size, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(out, size, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

/* Report that `done` of `total` units of work are done (any unit that is roughly
 * proportional to time: steps times points, bytes, cases). Cheap when no line is due. */
static inline void progress_update(progress *p, double done, double total) {
    if (*progress_enabled_() <= 0) return;
    const double now = progress_now_s();
    if (now < p->due) return;
    p->due = now + PROGRESS_INTERVAL_S;
    double fraction = total > 0 ? done / total : 0;
    fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    const double elapsed = now - p->start;
    char spent[32], left[32] = "?";
    progress_format_s_(elapsed, spent, sizeof spent);
    if (fraction > 0) progress_format_s_(elapsed * (1 - fraction) / fraction, left, sizeof left);
    fprintf(stderr, "%s: %3.0f%% done, %s so far, about %s left\n", p->what, 100 * fraction, spent,
            left);
}

#endif /* STENC_PROGRESS_H */
