/* emit_names: how emitted code names things, the same for every target. Below emit.c and the
 * targets' emitters, which all use it. */
#ifndef STENC_COMPILER_EMIT_NAMES_H
#define STENC_COMPILER_EMIT_NAMES_H

#include "template.h"

/* "m1", "0", "p2": an offset component inside an identifier (the loads' locals, u_m1_0_). */
void emit_offset_suffix(tmpl_buf *b, int d);

/* The C names emit.c gives a kernel model's values, for the targets' own data. */
typedef struct emit_symbols {
    const char *const *read_name;   /* the local of km->reads[r] */
    const char *const *value_name;  /* the name of km->arrays[a] */
    const char *const *reduce_name; /* the value of reduction id */
    const char *const *reduce_acc;  /* its accumulator */
} emit_symbols;

#endif /* STENC_COMPILER_EMIT_NAMES_H */
