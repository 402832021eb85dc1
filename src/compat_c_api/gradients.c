/*
 * compat_c_api/gradients.c - TF_AddGradients and TF_AddGradientsWithPrefix
 * over tfs_gradients (include/tfsess/gradients.h).
 */
#include <stdlib.h>

#include "compat_c_api/capi_internal.h"
#include "core/status.h"
#include "tfsess/gradients.h"

static tfs_output *convert(const TF_Output *o, int n) {
  tfs_output *v = calloc((size_t)n + 1, sizeof *v);
  if (v)
    for (int i = 0; i < n; i++) v[i] = tfs_capi__out(o[i]);
  return v;
}

void TF_AddGradientsWithPrefix(TF_Graph *g, const char *prefix, TF_Output *y,
                               int ny, TF_Output *x, int nx, TF_Output *dx,
                               TF_Status *status, TF_Output *dy) {
  tfs_status *st = ST(status);
  if (ny < 0 || nx < 0 || (ny && !y) || (nx && (!x || !dy))) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "TF_AddGradients: null or negative-length arguments");
    return;
  }
  tfs_output *ty = convert(y, ny), *tx = convert(x, nx);
  tfs_output *tdx = dx ? convert(dx, ny) : NULL;
  tfs_output *tdy = calloc((size_t)nx + 1, sizeof *tdy);
  if (!ty || !tx || !tdy || (dx && !tdx)) {
    TFS_OOM(st);
  } else {
    tfs_gradients(g, prefix, ty, ny, tx, nx, tdx, tdy, st);
    if (tfs_status_ok(st))
      for (int i = 0; i < nx; i++) dy[i] = tfs_capi__tf_out(tdy[i]);
  }
  free(ty);
  free(tx);
  free(tdx);
  free(tdy);
}

void TF_AddGradients(TF_Graph *g, TF_Output *y, int ny, TF_Output *x, int nx,
                     TF_Output *dx, TF_Status *status, TF_Output *dy) {
  TF_AddGradientsWithPrefix(g, NULL, y, ny, x, nx, dx, status, dy);
}
