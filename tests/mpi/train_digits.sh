#!/bin/sh
# tests/mpi/train_digits.sh - examples/mpi_train_digits, data-parallel
# training of the digits MLP: on two ranks under mpirun (rank 0's output
# must equal examples/mpi_train_digits.expected: every step's averaged
# loss and the final weights on every rank equal TensorFlow's
# single-process run over the same global batches), and as one process
# (the collectives of a one-rank job change nothing).  Run from the build
# directory; without MPI or mpirun only the one-process run.
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=./examples/mpi_train_digits
[ -x "$prog" ] || { echo "FAILED: $prog was not built"; exit 1; }
failed=0
out=$(mktemp "${TMPDIR:-/tmp}/tfs_train.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT

# one process: the same weights
if "$prog" >"$out" 2>&1 &&
   grep -q '^final weights on every rank equal' "$out" &&
   grep -q '^digits MLP 64-32-10 on 1 rank, global batch 64' "$out"; then
  echo "ok: one process"
else
  failed=1
  echo "FAILED: one process:"
  cat "$out"
fi

mpirun=${MPIRUN:-$(command -v mpirun)}
if [ "${TFS_MPI_BUILT:-no}" != yes ] || [ -z "$mpirun" ] ||
   ! [ -x "$mpirun" ]; then
  echo "two ranks: skipped (built without MPI or no mpirun)"
  exit $failed
fi
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top/tests/mpi/lsan.supp:print_suppressions=0"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS ASAN_OPTIONS
timeout 300 "$mpirun" --allow-run-as-root --oversubscribe -np 2 "$prog" \
  >"$out" 2>&1
rc=$?
if [ $rc = 0 ] && cmp -s "$out" "$top/examples/mpi_train_digits.expected"
then
  echo "ok: two ranks"
else
  failed=1
  echo "FAILED: two ranks (mpirun exit status $rc); the output:"
  cat "$out"
  diff "$top/examples/mpi_train_digits.expected" "$out"
fi
exit $failed
