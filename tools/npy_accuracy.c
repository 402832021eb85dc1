/*
 * tools/npy_accuracy.c - a helper of scripts/demo (not installed): the
 * classification accuracy of class scores in a .npy file ([N, classes],
 * arg-max per row) against integer labels, and how many arg-max
 * predictions agree with a reference .npy of predicted classes.
 *
 *   npy_accuracy SCORES.npy LABELS.npy [REFERENCE_PREDICTIONS.npy]
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/tensor.h"
#include "tfsess/tfsess.h"

static tfs_tensor *load(const char *path) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_npy_read(path, st);
  if (!t) fprintf(stderr, "npy_accuracy: %s\n", tfs_status_message(st));
  tfs_status_free(st);
  return t;
}

static int is_int(tfs_dtype dt) {
  return dt == TFS_INT32 || dt == TFS_INT64 || dt == TFS_UINT8 ||
         dt == TFS_INT8 || dt == TFS_INT16 || dt == TFS_UINT16;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr,
            "usage: npy_accuracy SCORES.npy LABELS.npy "
            "[REFERENCE_PREDICTIONS.npy]\n");
    return 2;
  }
  tfs_tensor *scores = load(argv[1]), *labels = load(argv[2]);
  tfs_tensor *ref = argc > 3 ? load(argv[3]) : NULL;
  int rc = 1;
  if (!scores || !labels || (argc > 3 && !ref)) goto out;
  int64_t n = tfs_tensor_ndims(scores) == 2 ? tfs_tensor_dim(scores, 0) : -1;
  int64_t classes = n >= 0 ? tfs_tensor_dim(scores, 1) : 0;
  if (n < 1 || classes < 1 || tfs_tensor_num_elements(labels) != n ||
      !is_int(tfs_tensor_dtype(labels)) ||
      (ref &&
       (tfs_tensor_num_elements(ref) != n || !is_int(tfs_tensor_dtype(ref))))) {
    fprintf(stderr,
            "npy_accuracy: expected scores [N, classes] and N "
            "integer labels (and N integer reference predictions)\n");
    goto out;
  }
  int64_t correct = 0, agree = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t best = 0;
    for (int64_t c = 1; c < classes; c++)
      if (tfs_tensor__get_as_double(scores, i * classes + c) >
          tfs_tensor__get_as_double(scores, i * classes + best))
        best = c;
    correct += best == tfs_tensor__get_as_int64(labels, i);
    if (ref) agree += best == tfs_tensor__get_as_int64(ref, i);
  }
  printf("accuracy %.4f (%lld of %lld correct)\n", (double)correct / (double)n,
         (long long)correct, (long long)n);
  if (ref)
    printf("predictions equal to the reference: %lld of %lld\n",
           (long long)agree, (long long)n);
  rc = ref && agree != n ? 1 : 0;
out:
  tfs_tensor_free(scores);
  tfs_tensor_free(labels);
  tfs_tensor_free(ref);
  return rc;
}
