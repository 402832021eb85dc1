#!/bin/sh
# tests/mpi/run_mpi.sh - runs tests/mpi/test_mpi_engine on two ranks under
# $MPIRUN (exit 77, skipped, when there is none), or alone in a build
# without MPI.  Every rank writes its totals; the test fails unless both
# ranks ran every case and passed, whatever mpirun's own status says.
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
$limit "$MPIRUN" --allow-run-as-root --oversubscribe -np 2 "$prog"
rc=$?
status=0
for r in 0 1; do
  if [ ! -f "$dir/rank.$r" ]; then
    echo "rank $r did not finish (mpirun exited with status $rc)"
    status=1
  elif ! grep -q ' failed=0$' "$dir/rank.$r"; then
    echo "rank $r: $(cat "$dir/rank.$r")"
    status=1
  fi
done
[ "$rc" -eq 0 ] || status=1
exit $status
