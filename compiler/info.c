/* Printing the kernel model for people: a summary table, then per kernel the arrays. */
#include "info.h"

#include <string.h>

#include "divide.h"

static const char *const dim_names[AST_MAX_DIMS] = {"i", "j", "k"};

void info_print_table(FILE *out, const km_kernel *kms, int n) {
    int width = 6; /* "kernel" */
    for (int k = 0; k < n; k++)
        if ((int)strlen(kms[k].name) > width) width = (int)strlen(kms[k].name);
    fprintf(out, "%-*s  dims  type    flops/pt  bytes/pt      AI\n", width, "kernel");
    for (int k = 0; k < n; k++)
        fprintf(out, "%-*s  %4d  %-6s  %8ld  %8ld  %6.2f\n", width, kms[k].name, kms[k].dims,
                ast_type_name(kms[k].type), kms[k].flops, kms[k].bytes, kms[k].intensity);
}

/* An offset as written: every dimension, or those a lower-dimensional input spans. */
static void print_offset(FILE *out, const km_offset *o, int dims, unsigned axes) {
    fputc('[', out);
    for (int k = 0, shown = 0; k < dims; k++)
        if (!axes || axes >> k & 1) fprintf(out, "%s%d", shown++ ? "," : "", o->d[k]);
    fputc(']', out);
}

void info_print_kernel(FILE *out, const km_kernel *km) {
    fprintf(out, "\nstencil %s: %d-D %s, %d scalar%s, %d input%s, %d output%s", km->name, km->dims,
            ast_type_name(km->type), km->nscalars, km->nscalars == 1 ? "" : "s", km->ninputs,
            km->ninputs == 1 ? "" : "s", km->noutputs, km->noutputs == 1 ? "" : "s");
    if (km->ninouts) fprintf(out, ", %d inout%s", km->ninouts, km->ninouts == 1 ? "" : "s");
    fprintf(out, ", %d let%s%s\n", km->nlets, km->nlets == 1 ? "" : "s",
            km->has_branches ? ", branches" : "");
    fprintf(out, "  flops/point %ld, bytes/point %ld, arithmetic intensity %.2f\n", km->flops,
            km->bytes, km->intensity);
    fprintf(out, "  %-12s %-7s %6s %8s", "array", "kind", "reads", "offsets");
    for (int k = 0; k < km->dims; k++)
        fprintf(out, "  halo %s lo/hi", dim_names[k]);
    fputc('\n', out);
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        const char *kind = arr->kind == KM_SCALAR  ? "scalar"
                           : arr->kind == KM_INPUT ? "input"
                           : arr->kind == KM_INOUT ? "inout"
                                                   : "output";
        fprintf(out, "  %-12s %-7s %6d ", arr->name, kind, arr->reads);
        if (arr->kind != KM_INPUT && arr->kind != KM_INOUT) {
            fprintf(out, "%8s\n", "-");
            continue;
        }
        fprintf(out, "%8d", arr->noffsets);
        for (int k = 0; k < km->dims; k++)
            fprintf(out, "  %9d/%-4d", arr->halo_lo[k], arr->halo_hi[k]);
        fputc('\n', out);
    }
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (arr->elem != AST_ELEM_REAL)
            fprintf(out, "  %s holds %s (an integer input, read as %s)\n", arr->name,
                    ast_elem_name(arr->elem), ast_type_name(km->type));
    }
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (!arr->axes) continue;
        fprintf(out, "  %s spans ", arr->name);
        for (int k = 0, shown = 0; k < km->dims && k < AST_MAX_DIMS; k++)
            if (arr->axes >> k & 1) fprintf(out, "%s%s", shown++ ? ", " : "", dim_names[k]);
        fprintf(out, " (a lower-dimensional input, offsets along those alone)\n");
    }
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if (!arr->stagger[0] && !arr->stagger[1] && !arr->stagger[2]) continue;
        fprintf(out, "  %s is staggered: extent", arr->name);
        for (int k = 0, shown = 0; k < km->dims && k < AST_MAX_DIMS; k++)
            if (!arr->axes || arr->axes >> k & 1)
                fprintf(out, arr->stagger[k] ? "%s n%s%+d" : "%s n%s", shown++ ? "," : "",
                        dim_names[k], arr->stagger[k]);
        fprintf(out, " against the reference grid\n");
    }
    if (km->stagger[0] || km->stagger[1] || km->stagger[2]) {
        fprintf(out, "  the launch runs over");
        for (int k = 0; k < km->dims && k < AST_MAX_DIMS; k++)
            fprintf(out, km->stagger[k] ? "%s n%s%+d" : "%s n%s", k ? "," : "", dim_names[k],
                    km->stagger[k]);
        fprintf(out, " (the written arrays' extent)\n");
    }
    for (int a = 0; a < km->narrays; a++) {
        const km_array *arr = &km->arrays[a];
        if ((arr->kind != KM_INPUT && arr->kind != KM_INOUT) || arr->noffsets == 0) continue;
        fprintf(out, "  offsets of %s:", arr->name);
        for (int o = 0; o < arr->noffsets; o++) {
            fputc(' ', out);
            print_offset(out, &arr->offsets[o], km->dims, arr->axes);
        }
        fputc('\n', out);
    }
    if (km->ncolors)
        fprintf(out, "  colours: %d, period %d x %d x %d (each launch updates one colour)\n",
                km->ncolors, km->color_period[0], km->color_period[1], km->color_period[2]);
    if (km->nreduces) {
        fprintf(out, "  reductions:");
        for (int n = 0; n < km->st->body.nstmts; n++) {
            const ast_stmt *s = km->st->body.stmts[n];
            if (s->kind != AST_STMT_REDUCE) continue;
            static const char *const ops[] = {"?", "sum", "max", "min"};
            fprintf(out, " %s %s", ops[s->u.reduce.rop], s->u.reduce.name);
        }
        fputc('\n', out);
    }
    if (km->order) {
        /* The dependences: each neighbour read o of an inout, from the point it reads to the
         * point computed (updated values before the point, old ones after it). */
        fprintf(out, "  order %s: dependences", km->order > 0 ? "forward" : "backward");
        for (int a = 0; a < km->narrays; a++) {
            const km_array *arr = &km->arrays[a];
            if (arr->kind != KM_INOUT) continue;
            for (int o = 0; o < arr->noffsets; o++) {
                const km_offset *off = &arr->offsets[o];
                if (!off->d[0] && !off->d[1] && !off->d[2]) continue;
                int after = 0; /* lexicographically after the centre, k slowest */
                for (int d = km->dims - 1; d >= 0 && !after; d--)
                    if (off->d[d]) after = (off->d[d] > 0) == (km->order > 0) ? 1 : -1;
                fprintf(out, " %s", arr->name);
                print_offset(out, off, km->dims, 0);
                fprintf(out, "%s", after > 0 ? "(old)" : "(new)");
            }
        }
        fprintf(out, "\n  wavefront: hyperplanes t =");
        static const char *const idx[3] = {"i", "j", "k"};
        for (int d = 0; d < km->dims && d < AST_MAX_DIMS; d++)
            fprintf(out, "%s%s%d*%s", d ? " +" : "", d ? " " : " ", km->wave[d], idx[d]);
        fprintf(out, ", %s; the points of one are computed in parallel\n",
                km->order > 0 ? "increasing" : "decreasing");
    }
    const ast_solve *sv = km->st->solve;
    if (sv) {
        /* The runtime's layout of the lines: along i they are rows, contiguous; along j and k
         * the lines' points lie a row or a plane apart, the layout of an interleaved batch. */
        fprintf(out,
                "  solve %s along %s: one tridiagonal system per line, solved by the runtime's "
                "batched solver (%s layout)\n",
                sv->decl->name, sv->along, sv->dim == 0 ? "contiguous" : "interleaved");
        fprintf(out, "    the kernel writes:");
        for (int a = 0; a < km->narrays; a++)
            if (km->arrays[a].decl->solve_slot)
                fprintf(out, " %s", ast_solve_slot_name(km->arrays[a].decl->solve_slot - 1));
        fputc('\n', out);
        if (sv->uniform) {
            fprintf(out, "    the same at every point, computed once per launch:");
            for (int q = 0; q < AST_SOLVE_SLOTS; q++)
                if (sv->uniform >> q & 1) fprintf(out, " %s", ast_solve_slot_name(q));
            fputc('\n', out);
        }
        fprintf(out, "    %s's halo (at least 1) holds the values beyond the ends of the lines\n",
                sv->decl->name);
    }
    if (km->step_in >= 0)
        fprintf(out, "  steps: %s -> %s (%s_steps)\n", km->arrays[km->step_out].name,
                km->arrays[km->step_in].name, km->name);
    if (km->st->ninlined) {
        fprintf(out, "  functions inlined:");
        for (int f = 0; f < km->st->ninlined; f++)
            fprintf(out, "%s %s", f ? "," : "", km->st->inlined[f]);
        fputc('\n', out);
    }
    if (km->ndivisors) {
        /* divide_plan() checks a binade per divisor (~50 ms): only files that divide by literals */
        fprintf(out, "  divisions by literals:");
        int kept = 0;
        for (int d = 0; d < km->ndivisors; d++) {
            divide_const k;
            const int planned = divide_plan(km->divisors[d], &k);
            kept |= !planned;
            fprintf(out, "%s / %g%s", d ? "," : "", (double)km->divisors[d],
                    planned ? "" : " (kept)");
        }
        fprintf(out, "\n    CUDA: a reciprocal and an FMA correction, bitwise the division%s\n",
                kept ? "; (kept): a division" : "");
    }
    fprintf(out, "  halo of the kernel:");
    for (int k = 0; k < km->dims; k++)
        fprintf(out, " %s %d/%d", dim_names[k], km->halo_lo[k], km->halo_hi[k]);
    fprintf(out, "  (radius %d)\n", km->radius);
}
