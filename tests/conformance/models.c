/*
 * tests/conformance/models.c - the bundled models against TensorFlow:
 * models/digits (a 64-32-10 MLP trained by scripts/fixtures/gen_digits.py)
 * must give TensorFlow's class probabilities, the very same predicted
 * classes and the same accuracy, on the held-out rows and on the
 * generated rows of the 10,000-row batch test.
 */
#include <stdlib.h>

#include "conformance.h"
#include "iotest.h"

static tfs_tensor *load(const char *rel) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_npy_read(it_src(rel), st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return t;
}

/* Runs models/digits/graph.pb on `x` and returns probs. */
static tfs_tensor *run_digits(tfs_tensor *x) {
  size_t len;
  uint8_t *bytes = it_read_file(it_src("models/digits/graph.pb"), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(tfs_graph_import_graphdef(g, bytes, len, NULL, st));
  free(bytes);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output in = tfs_graph_output_by_name(g, "x", st);
  tfs_output out = tfs_graph_output_by_name(g, "probs", st);
  TFS_ASSERT_OK(st);
  tfs_tensor *probs = NULL;
  tfs_session_run(s, &in, &x, 1, &out, &probs, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
  return probs;
}

static int64_t argmax_row(const float *p, int64_t classes) {
  int64_t best = 0;
  for (int64_t c = 1; c < classes; c++)
    if (p[c] > p[best]) best = c;
  return best;
}

static void test_digits_matches_tensorflow(void) {
  tfs_tensor *x = load("models/digits/x_test.npy");
  tfs_tensor *y = load("models/digits/y_test.npy");
  tfs_tensor *want = load("models/digits/tf_probs.npy");
  tfs_tensor *pred = load("models/digits/tf_predictions.npy");
  tfs_tensor *probs = run_digits(x);
  char err[1024];
  int rc = tc_compare(probs, want, -1, -1, err, sizeof err);
  if (rc) fprintf(stderr, "\n  digits probs: %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  int64_t n = tfs_tensor_dim(probs, 0), same = 0, correct = 0;
  const float *p = tfs_tensor_data(probs);
  const int64_t *tp = tfs_tensor_data(pred), *labels = tfs_tensor_data(y);
  for (int64_t i = 0; i < n; i++) {
    int64_t c = argmax_row(p + i * 10, 10);
    same += c == tp[i];
    correct += c == labels[i];
  }
  CU_ASSERT_EQUAL(same, n); /* every prediction equals TensorFlow's */
  size_t len;
  char *acc =
      (char *)it_read_file(it_src("models/digits/tf_accuracy.txt"), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(acc);
  char ours[32];
  snprintf(ours, sizeof ours, "%.4f\n", (double)correct / (double)n);
  CU_ASSERT_TRUE(len == strlen(ours) && memcmp(acc, ours, len) == 0);
  free(acc);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
  tfs_tensor_free(want);
  tfs_tensor_free(pred);
  tfs_tensor_free(probs);
}

/* Row i of the generated input, as gen_digits.generated_rows makes it. */
void tc_generated_row(int64_t i, float *row) {
  for (int64_t j = 0; j < 64; j++) {
    uint32_t v = (uint32_t)((uint64_t)(i * 64 + j) * 2654435761u);
    row[j] = (float)(v >> 28);
  }
}

static void test_digits_generated_rows(void) {
  tfs_tensor *rows = load("models/digits/gen10k_rows.npy");
  tfs_tensor *want = load("models/digits/gen10k_tf_probs.npy");
  int64_t n = tfs_tensor_num_elements(rows);
  tfs_status *st = tfs_status_new();
  tfs_tensor *x = tfs_tensor_new(TFS_FLOAT, (int64_t[]){n, 64}, 2, st);
  const int64_t *idx = tfs_tensor_data(rows);
  for (int64_t k = 0; k < n; k++)
    tc_generated_row(idx[k], (float *)tfs_tensor_data(x) + k * 64);
  tfs_tensor *probs = run_digits(x);
  char err[1024];
  int rc = tc_compare(probs, want, -1, -1, err, sizeof err);
  if (rc) fprintf(stderr, "\n  generated rows: %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  tfs_tensor_free(probs);
  tfs_tensor_free(x);
  tfs_tensor_free(rows);
  tfs_tensor_free(want);
  tfs_status_free(st);
}

const tfs_test_case tc_model_cases[] = {
    {"digits_matches_tensorflow", test_digits_matches_tensorflow},
    {"digits_generated_rows", test_digits_generated_rows},
    {NULL, NULL}};
