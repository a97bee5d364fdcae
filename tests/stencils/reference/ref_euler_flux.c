/* euler_flux.stencil, by hand (float). Every `let` is a float temporary, evaluated as written. */
#include <math.h>

#include "ref_common.h"

stenc_status ref_euler_flux(double gm1_in, double dt_dx_in, double k2_in, double sensor_min_in,
                            const stenc_field *ro_f, const stenc_field *rovx_f,
                            const stenc_field *rovy_f, const stenc_field *roe_f, stenc_field *dro_f,
                            stenc_field *drovx_f, stenc_field *drovy_f, stenc_field *droe_f) {
    const stenc_field *all[] = {ro_f, rovx_f, rovy_f, roe_f, dro_f, drovx_f, drovy_f, droe_f};
    stenc_status st = ref_check("ref_euler_flux", STENC_F32, 3, 1, 4, 8, all);
    if (st != STENC_OK) return st;
    const float gm1 = (float)gm1_in, dt_dx = (float)dt_dx_in, k2 = (float)k2_in,
                sensor_min = (float)sensor_min_in;
    const ref_f32 ro = ref_view_f32(ro_f), rovx = ref_view_f32(rovx_f), rovy = ref_view_f32(rovy_f),
                  roe = ref_view_f32(roe_f);
    const ref_f32 dro = ref_view_f32(dro_f), drovx = ref_view_f32(drovx_f),
                  drovy = ref_view_f32(drovy_f), droe = ref_view_f32(droe_f);
    long ni, nj, nk;
    ref_extents(dro_f, &ni, &nj, &nk);
#pragma omp parallel for collapse(2) schedule(static)
    for (long k = 0; k < nk; k++)
        for (long j = 0; j < nj; j++)
            for (long i = 0; i < ni; i++) {
#define A(v, di, dj) REF_AT(v, i + (di), j + (dj), k)
                const float p =
                    gm1 * (A(roe, 0, 0) -
                           0.5f * (A(rovx, 0, 0) * A(rovx, 0, 0) + A(rovy, 0, 0) * A(rovy, 0, 0)) /
                               A(ro, 0, 0));
                const float pe =
                    gm1 * (A(roe, 1, 0) -
                           0.5f * (A(rovx, 1, 0) * A(rovx, 1, 0) + A(rovy, 1, 0) * A(rovy, 1, 0)) /
                               A(ro, 1, 0));
                const float pw = gm1 * (A(roe, -1, 0) - 0.5f *
                                                            (A(rovx, -1, 0) * A(rovx, -1, 0) +
                                                             A(rovy, -1, 0) * A(rovy, -1, 0)) /
                                                            A(ro, -1, 0));
                const float pn =
                    gm1 * (A(roe, 0, 1) -
                           0.5f * (A(rovx, 0, 1) * A(rovx, 0, 1) + A(rovy, 0, 1) * A(rovy, 0, 1)) /
                               A(ro, 0, 1));
                const float ps = gm1 * (A(roe, 0, -1) - 0.5f *
                                                            (A(rovx, 0, -1) * A(rovx, 0, -1) +
                                                             A(rovy, 0, -1) * A(rovy, 0, -1)) /
                                                            A(ro, 0, -1));
                const float vx = A(rovx, 0, 0) / A(ro, 0, 0);
                const float vy = A(rovy, 0, 0) / A(ro, 0, 0);
                const float vxe = A(rovx, 1, 0) / A(ro, 1, 0);
                const float vxw = A(rovx, -1, 0) / A(ro, -1, 0);
                const float vyn = A(rovy, 0, 1) / A(ro, 0, 1);
                const float vys = A(rovy, 0, -1) / A(ro, 0, -1);

                const float fe_ro = 0.5f * (A(rovx, 0, 0) + A(rovx, 1, 0));
                const float fw_ro = 0.5f * (A(rovx, -1, 0) + A(rovx, 0, 0));
                const float fn_ro = 0.5f * (A(rovy, 0, 0) + A(rovy, 0, 1));
                const float fs_ro = 0.5f * (A(rovy, 0, -1) + A(rovy, 0, 0));
                const float fe_mx = 0.5f * (A(rovx, 0, 0) * vx + p + A(rovx, 1, 0) * vxe + pe);
                const float fw_mx = 0.5f * (A(rovx, -1, 0) * vxw + pw + A(rovx, 0, 0) * vx + p);
                const float fn_mx = 0.5f * (A(rovx, 0, 0) * vy + A(rovx, 0, 1) * vyn);
                const float fs_mx = 0.5f * (A(rovx, 0, -1) * vys + A(rovx, 0, 0) * vy);
                const float fe_my = 0.5f * (A(rovy, 0, 0) * vx + A(rovy, 1, 0) * vxe);
                const float fw_my = 0.5f * (A(rovy, -1, 0) * vxw + A(rovy, 0, 0) * vx);
                const float fn_my = 0.5f * (A(rovy, 0, 0) * vy + p + A(rovy, 0, 1) * vyn + pn);
                const float fs_my = 0.5f * (A(rovy, 0, -1) * vys + ps + A(rovy, 0, 0) * vy + p);
                const float fe_e = 0.5f * ((A(roe, 0, 0) + p) * vx + (A(roe, 1, 0) + pe) * vxe);
                const float fw_e = 0.5f * ((A(roe, -1, 0) + pw) * vxw + (A(roe, 0, 0) + p) * vx);
                const float fn_e = 0.5f * ((A(roe, 0, 0) + p) * vy + (A(roe, 0, 1) + pn) * vyn);
                const float fs_e = 0.5f * ((A(roe, 0, -1) + ps) * vys + (A(roe, 0, 0) + p) * vy);

                const float sensor = fmaxf(fabsf(pe - 2.0f * p + pw) / (pe + 2.0f * p + pw),
                                           fabsf(pn - 2.0f * p + ps) / (pn + 2.0f * p + ps));
                const float flux_ro = (fe_ro - fw_ro) + (fn_ro - fs_ro);
                const float flux_mx = (fe_mx - fw_mx) + (fn_mx - fs_mx);
                const float flux_my = (fe_my - fw_my) + (fn_my - fs_my);
                const float flux_e = (fe_e - fw_e) + (fn_e - fs_e);

                if (sensor > sensor_min) {
                    const float eps = k2 * sensor;
                    A(dro, 0, 0) =
                        -dt_dx * flux_ro + eps * (A(ro, 1, 0) + A(ro, -1, 0) + A(ro, 0, 1) +
                                                  A(ro, 0, -1) - 4.0f * A(ro, 0, 0));
                    A(drovx, 0, 0) =
                        -dt_dx * flux_mx + eps * (A(rovx, 1, 0) + A(rovx, -1, 0) + A(rovx, 0, 1) +
                                                  A(rovx, 0, -1) - 4.0f * A(rovx, 0, 0));
                    A(drovy, 0, 0) =
                        -dt_dx * flux_my + eps * (A(rovy, 1, 0) + A(rovy, -1, 0) + A(rovy, 0, 1) +
                                                  A(rovy, 0, -1) - 4.0f * A(rovy, 0, 0));
                    A(droe, 0, 0) =
                        -dt_dx * flux_e + eps * (A(roe, 1, 0) + A(roe, -1, 0) + A(roe, 0, 1) +
                                                 A(roe, 0, -1) - 4.0f * A(roe, 0, 0));
                } else {
                    A(dro, 0, 0) = -dt_dx * flux_ro;
                    A(drovx, 0, 0) = -dt_dx * flux_mx;
                    A(drovy, 0, 0) = -dt_dx * flux_my;
                    A(droe, 0, 0) = -dt_dx * flux_e;
                }
#undef A
            }
    return STENC_OK;
}
