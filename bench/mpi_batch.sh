#!/bin/sh
# bench/mpi_batch.sh - throughput of the CLI batch job, `tfsess run
# --batch`, on 1 rank and on 2 ranks of mpirun (rows gathered by rank 0),
# one intra-op and one inter-op thread per rank:
#
#   bench/mpi_batch.sh [BUILD_DIR [ROWS [MODEL_DIR]]]
#
# BUILD_DIR defaults to ./build (configured --with-mpi), ROWS to 20000,
# MODEL_DIR to tests/conformance/models/densenet_blocks (a Keras
# classifier exported by TensorFlow: 32x32x3 images in, 10 classes out,
# so the job is compute, not output bytes; any fixture with a 4-D float
# input works, e.g. models/unet, whose outputs are as large as its
# inputs).  Its feed0.npy's rows are repeated to ROWS, a multiple of
# their count; BATCH (default 32) is --batch.  1 and 2 ranks run in turn
# ROUNDS times (default 5); the
# median wall time (mpirun's start included) gives rows/s, then the
# ratio; with /usr/bin/time, also the CPU seconds of the busiest rank
# (what the wall time would be with a free core per rank).
# The two outputs are checked to be the same bytes.  Needs no Python.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
rows=${2:-20000}
model=${3:-$src/tests/conformance/models/densenet_blocks}
rounds=${ROUNDS:-5}
batch=${BATCH:-32}
prog=$build/tfsess
mpirun=${MPIRUN:-mpirun}
[ -x "$prog" ] || { echo "mpi_batch: $prog is not built" >&2; exit 1; }
feed=$(awk '$1 == "feed" { sub(/:0$/, "", $2); print $2 "=" $3; exit }' \
  "$model/manifest.txt")
fetch=$(awk '$1 == "fetch" { sub(/:0$/, "", $2); print $2; exit }' \
  "$model/manifest.txt")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tfsess-mpibench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ROWS rows: the fixture's rows repeated, the header's first dimension
# rewritten (a version 1.0 header of 118 bytes)
in=$model/${feed#*=}
len=$(od -An -tu2 -j8 -N2 "$in" | tr -d ' ')
have=$(head -c $((10 + len)) "$in" | tail -c +11 |
  sed -n "s/.*'shape': (\([0-9]*\),.*/\1/p")
if [ -z "$have" ] || [ $((rows % have)) != 0 ]; then
  echo "mpi_batch: ROWS must be a multiple of $in's ${have:-?} rows" >&2
  exit 1
fi
head -c $((10 + len)) "$in" | tail -c +11 | tr -d '\n' |
  sed -e "s/'shape': ([0-9]*,/'shape': ($rows,/" -e 's/ *$//' > "$tmp/hdr"
grep -q "'shape': ($rows," "$tmp/hdr" || {
  echo "mpi_batch: $in: not a float tensor of rows" >&2
  exit 1
}
tail -c +$((11 + len)) "$in" > "$tmp/rows"
{
  printf '\223NUMPY\001\000\166\000'
  printf '%-117s\n' "$(cat "$tmp/hdr")"
  i=0
  while [ $i -lt $((rows / have)) ]; do
    cat "$tmp/rows"
    i=$((i + 1))
  done
} > "$tmp/x.npy"

# wall time in seconds of `tfsess run` on $1 ranks; with /usr/bin/time,
# each rank's CPU seconds (user + system) go to $tmp/cpu$1.RANK too
timed() {
  wrap=
  [ -x /usr/bin/time ] && wrap="/usr/bin/time -f %U+%S -o $tmp/cpu$1"
  t0=$(date +%s%N)
  "$mpirun" --allow-run-as-root --oversubscribe -np "$1" sh -c \
    "exec $wrap.\${OMPI_COMM_WORLD_RANK:-0} \"\$@\"" sh "$prog" run \
    "$model/graph.pb" --feed "${feed%%=*}=$tmp/x.npy" --fetch "$fetch" \
    --batch "$batch" --intra 1 --inter 1 --quiet --no-progress --force \
    --out "$tmp/out$1"
  t1=$(date +%s%N)
  awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
  # the slowest rank's CPU seconds
  [ -z "$wrap" ] || cat "$tmp/cpu$1".* | awk -F+ '
    $1 + $2 > m { m = $1 + $2 } END { printf "%.3f\n", m }' >> "$tmp/c$1"
}

echo "tfsess run --batch $batch --intra 1 --inter 1: $(basename "$model"), $rows rows"
# 1 and 2 ranks in turn, so that a busy spell of the machine slows both
i=0
while [ $i -lt "$rounds" ]; do
  timed 1 >> "$tmp/t1"
  timed 2 >> "$tmp/t2"
  i=$((i + 1))
done
echo "1 rank:  $(tr '\n' ' ' < "$tmp/t1")s"
echo "2 ranks: $(tr '\n' ' ' < "$tmp/t2")s"
mid=$(((rounds + 1) / 2))
t1=$(sort -n "$tmp/t1" | sed -n ${mid}p)
t2=$(sort -n "$tmp/t2" | sed -n ${mid}p)
# On a machine whose cores other jobs share, wall time shows the CPU
# the job got; the busiest rank's CPU time shows the work it was given.
if [ -f "$tmp/c1" ]; then
  echo "CPU s of the busiest rank, 1 rank:  $(tr '\n' ' ' < "$tmp/c1")"
  echo "CPU s of the busiest rank, 2 ranks: $(tr '\n' ' ' < "$tmp/c2")"
  awk -v a="$(sort -n "$tmp/c1" | sed -n ${mid}p)" \
    -v b="$(sort -n "$tmp/c2" | sed -n ${mid}p)" \
    'BEGIN { printf "CPU-time speed-up (medians): %.2fx\n", a / b }'
fi
cmp -s "$tmp/out1/${fetch}_0.npy" "$tmp/out2/${fetch}_0.npy" || {
  echo "mpi_batch: the 2-rank output differs from the 1-rank output" >&2
  exit 1
}
awk -v r="$rows" -v a="$t1" -v b="$t2" 'BEGIN {
  printf "median, 1 rank:  %.3f s  %.0f rows/s\n", a, r / a
  printf "median, 2 ranks: %.3f s  %.0f rows/s\n", b, r / b
  printf "speed-up: %.2fx\n", a / b
}'
