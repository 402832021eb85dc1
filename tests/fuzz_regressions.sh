#!/bin/sh
# tests/fuzz_regressions.sh - replays every saved fuzz input, the seeds
# under fuzz/seeds/TARGET/ and the crash reproducers under
# fuzz/regressions/TARGET/, through the replay program fuzz/replay_TARGET
# (the fuzz target with a plain main(), built by make check).  One check
# per file: it passes when the program exits 0.  A target whose replay
# program was not built (the C API when --disable-tf-c-api) is skipped.
# Uses $top_srcdir (make check sets it); runs in the build directory.
src="${top_srcdir:-.}"
passed=0 failed=0
for t in graphdef run config npy npz tfrecord c_api strings checkpoint \
         saved_model; do
  prog="./fuzz/replay_$t"
  if [ ! -x "$prog" ]; then
    echo "skip: $prog not built"
    continue
  fi
  for dir in "$src/fuzz/seeds/$t" "$src/fuzz/regressions/$t"; do
    [ -d "$dir" ] || continue
    for f in "$dir"/*; do
      [ -f "$f" ] || continue
      "$prog" "$f" >/dev/null 2>&1
      rc=$?
      if [ "$rc" = 0 ]; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1))
        echo "FAILED: $t ${f#"$src"/} (exit status $rc)"
      fi
    done
  done
done
echo "TFS-RESULT: passed=$passed failed=$failed"
[ "$failed" = 0 ]
