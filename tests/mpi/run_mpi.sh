#!/bin/sh
# tests/mpi/run_mpi.sh - runs tests/mpi/test_mpi_engine on two ranks under
# $MPIRUN (exit 77, skipped, when there is none), or alone in a build
# without MPI; then once more with TFS_MPI_FUSION_THRESHOLD=0 (its case
# only).  Every rank writes its totals; the test fails unless both ranks
# ran every case and passed, whatever mpirun's own status says.
prog=${TFS_MPI_TEST_PROG:-tests/mpi/test_mpi_engine}
srcdir=${top_srcdir:-.}
if [ "${TFS_MPI_BUILT:-no}" != yes ]; then
  exec "$prog"
fi
if [ -z "$MPIRUN" ] || ! command -v "$MPIRUN" >/dev/null 2>&1; then
  echo "SKIP: mpirun not found (MPIRUN='$MPIRUN'); install Open MPI"
  exit 77
fi
# Open MPI keeps some of what MPI_Init allocates until exit: the sanitizer
# build's leak check leaves it out (the options already set stay).  The
# frames of its components are found by the slow unwinder only (they
# have no frame pointers), so that the suppressions match.
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$srcdir/tests/mpi/lsan.supp:print_suppressions=0"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS ASAN_OPTIONS
TFS_MPI_STALL_TIMEOUT=2
export TFS_MPI_STALL_TIMEOUT
dir=$(mktemp -d "${TMPDIR:-/tmp}/tfs_mpi.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
TFS_MPI_RESULT_DIR=$dir
export TFS_MPI_RESULT_DIR
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout 600"
passed=0 failed=0
# run_ranks [ARG]: the program on two ranks; both ranks must finish and
# pass whatever mpirun's status; adds rank 0's totals
run_ranks() {
  rm -f "$dir"/rank.*
  out=$($limit "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$prog" \
    "$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -v '^TFS-RESULT:'
  line=$(printf '%s\n' "$out" | grep -a 'TFS-RESULT:' | tail -n 1)
  p=$(echo "$line" | sed -n 's/.*passed=\([0-9]*\).*/\1/p')
  f=$(echo "$line" | sed -n 's/.*failed=\([0-9]*\).*/\1/p')
  ok=1
  for r in 0 1; do
    if [ ! -f "$dir/rank.$r" ]; then
      echo "rank $r did not finish (mpirun exited with status $rc)"
      ok=0
    elif ! grep -q ' failed=0$' "$dir/rank.$r"; then
      echo "rank $r: $(cat "$dir/rank.$r")"
      ok=0
    fi
  done
  [ "$rc" -eq 0 ] || ok=0
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  [ $ok = 1 ] || [ "${f:-0}" -gt 0 ] || failed=$((failed + 1))
}
run_ranks
# the fusion threshold from the environment: 0 turns fusion off
TFS_MPI_FUSION_THRESHOLD=0
export TFS_MPI_FUSION_THRESHOLD
run_ranks fusion-off
echo "TFS-RESULT: passed=$passed failed=$failed"
[ "$failed" = 0 ]
