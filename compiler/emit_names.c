/* emit_names: how emitted code names things, the same for every target. */
#include "emit_names.h"

void emit_offset_suffix(tmpl_buf *b, int d) {
    if (d < 0)
        tmpl_buf_printf(b, "m%d", -d);
    else if (d > 0)
        tmpl_buf_printf(b, "p%d", d);
    else
        tmpl_buf_puts(b, "0");
}
