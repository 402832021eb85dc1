#!/bin/sh
# tests/tools/mpi_run.sh - `tfsess run --batch` under mpirun: the digits
# model on 359 rows (odd: the blocks differ) over 2 and 3 ranks, cut on
# batch boundaries (a rank past the last batch runs no rows).  The
# gathered output is byte for byte the single-process one, the per-rank
# files' rows concatenated in rank order are its rows, the progress line
# names the slowest rank, a rank whose rows hold a bad value makes every
# rank exit non-zero naming it (within a time limit, outputs and
# temporaries removed), and run without --batch is refused.  Run from
# the build directory; skipped (77) without mpirun.
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=$(pwd)/tfsess
mpirun=${MPIRUN:-$(command -v mpirun)}
[ -x "$prog" ] || { echo "FAILED: $prog was not built"; exit 1; }
if [ -z "$mpirun" ] || ! [ -x "$mpirun" ]; then
  echo "SKIP: mpirun not found (install openmpi-bin)"
  exit 77
fi
# Open MPI leaks in MPI_Init; the sanitizer build reports only tfsess's
# (the full stacks reach through Open MPI's plugins to libmpi)
LSAN_OPTIONS="suppressions=$top/tests/mpi/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS ASAN_OPTIONS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tfsess-mpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
model=$top/models/digits/graph.pb
failed=0
fail() { failed=1; echo "FAILED: $*"; }

# mpirun -np N tfsess run ARGS..., at most 120 s (a hang fails)
mpi() {
  n=$1
  shift
  timeout 120 "$mpirun" --allow-run-as-root --oversubscribe -np "$n" \
    "$prog" run "$model" "$@"
}

# The bytes of a .npy file after its header.
npy_data() {
  len=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
  tail -c +$((10 + len + 1)) "$1"
}

# x [359,64] float: the test rows but the last, the header's shape
# rewritten (same length)
x=$top/models/digits/x_test.npy
{
  head -c 128 "$x" | sed 's/(360, 64)/(359, 64)/'
  tail -c +129 "$x" | head -c $((359 * 256))
} > x.npy
"$prog" run "$model" --feed x=x.npy --fetch probs --fetch logits \
  --batch 16 --out single --quiet || fail "the single-process run failed"

# gathered by rank 0: the same bytes, the summary printed once
for n in 2 3; do
  mpi $n --feed x=x.npy --fetch probs --fetch logits --batch 16 \
    --out "gather$n" > out 2> err || fail "-np $n: exit status $?: $(cat err)"
  for f in probs_0 logits_0; do
    cmp -s "single/$f.npy" "gather$n/$f.npy" ||
      fail "-np $n: gather$n/$f.npy differs from the single-process output"
  done
  [ "$(grep -c '^probs: float \[359,10\]' out)" = 1 ] ||
    fail "-np $n: the summary of probs is not printed once: $(cat out)"
  # the two outputs, no temporary
  [ "$(ls -A "gather$n" | wc -l)" = 2 ] ||
    fail "-np $n: files in gather$n: $(ls -A "gather$n")"
done

# per rank: each rank's rows, whole batches of 16 (23 batches: 8, 8 and
# 7, the last one of 7 rows: 128, 128 and 103 rows); in order they are
# the rows
mpi 3 --feed x=x.npy --fetch probs --batch 16 --out per \
  --mpi-output per-rank > out 2> err ||
  fail "per-rank: exit status $?: $(cat err)"
for r in 0 1 2; do
  [ -f per/probs_0.rank-$r.npy ] || fail "per-rank: no per/probs_0.rank-$r.npy"
done
if ! grep -q "(128, 10)" per/probs_0.rank-0.npy ||
   ! grep -q "(128, 10)" per/probs_0.rank-1.npy ||
   ! grep -q "(103, 10)" per/probs_0.rank-2.npy; then
  fail "per-rank: the blocks are not 128, 128 and 103 rows"
fi
for r in 0 1 2; do npy_data per/probs_0.rank-$r.npy; done > per.bin
npy_data single/probs_0.npy > single.bin
cmp -s per.bin single.bin ||
  fail "per-rank: the ranks' rows concatenated differ from the single run"
grep -q 'per/probs_0.rank-\*.npy' out || fail "per-rank summary: $(cat out)"

# fewer batches than ranks (--batch 200: 2 batches on 3 ranks): rank 2
# runs no rows, the gathered output is the single run's with --batch 200
"$prog" run "$model" --feed x=x.npy --fetch probs --batch 200 \
  --out single200 --quiet || fail "the single-process run (--batch 200) failed"
mpi 3 --feed x=x.npy --fetch probs --batch 200 --out gather200 > out 2> err ||
  fail "-np 3 --batch 200: exit status $?: $(cat err)"
cmp -s single200/probs_0.npy gather200/probs_0.npy ||
  fail "-np 3 --batch 200: the output differs from the single-process one"
mpi 3 --feed x=x.npy --fetch probs --batch 200 --out per200 \
  --mpi-output per-rank > out 2> err ||
  fail "per-rank --batch 200: exit status $?: $(cat err)"
if ! grep -q "(200, 10)" per200/probs_0.rank-0.npy ||
   ! grep -q "(159, 10)" per200/probs_0.rank-1.npy ||
   ! grep -q "(0, 10)" per200/probs_0.rank-2.npy; then
  fail "per-rank --batch 200: the blocks are not 200, 159 and 0 rows"
fi

# the progress line (rank 0's) names the slowest rank
TFSESS_PROGRESS_INTERVAL_MS=0 mpi 2 --feed x=x.npy --fetch probs \
  --batch 1 --quiet --progress 2> err ||
  fail "progress: exit status $?: $(cat err)"
grep -q "(slowest rank [01])" err || fail "progress: no slowest rank: $(cat err)"
tr '\r' '\n' < err | grep -q "^359/359 rows  100.0%" ||
  fail "progress: no final line: $(cat err)"

# float64 rows, one of them (row 300: rank 1's block) too large for the
# float input: rank 1 fails, rank 0 stops too
d="{'descr': '<f8', 'fortran_order': False, 'shape': (359, 64), }"
{
  printf '\223NUMPY\001\000\166\000'
  printf '%-117s\n' "$d"
  head -c $((300 * 512)) /dev/zero
  printf '\234\165\000\210\074\344\067\176' # 1e300
  head -c $((59 * 512 - 8)) /dev/zero
} > bad.npy
for mode in gather per-rank; do
  mkdir -p bad-$mode
  mpi 2 --feed x=bad.npy --fetch probs --batch 16 --out bad-$mode \
    --mpi-output $mode > out 2> err
  rc=$?
  [ $rc = 124 ] && fail "$mode: a failing rank hangs the job"
  [ $rc != 0 ] || fail "$mode: a failing rank gives exit status 0"
  grep -q "rank 1: feed 'x' (file bad.npy).*out of range" err ||
    fail "$mode: rank 1's error is missing: $(cat err)"
  grep -q "rank 0: rank 1 failed" err ||
    fail "$mode: rank 0 does not name the failed rank: $(cat err)"
  [ -z "$(ls -A bad-$mode)" ] ||
    fail "$mode: a failed job left files: $(ls -A bad-$mode)"
done

# without --batch every rank would do the same: refused, once
mpi 2 --feed x=x.npy --fetch probs > out 2> err && fail "no --batch: accepted"
[ "$(grep -c 'needs --batch' err)" = 1 ] ||
  fail "no --batch: the refusal is not printed once: $(cat err)"

[ $failed = 0 ] && echo "mpi_run: passed"
exit $failed
