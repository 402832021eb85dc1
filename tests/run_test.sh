#!/bin/sh
# tests/run_test.sh - runs one test program.  When NAME.expected exists
# beside the program's source (examples/, examples/c_api/) or in
# examples/, the program's standard output must equal it; CUnit suites
# report through their exit status.
prog="$1"
shift
# In the sanitizer build a request for more memory than exists fails as
# it does elsewhere (the allocation returns NULL and tfsess reports
# RESOURCE_EXHAUSTED) instead of AddressSanitizer aborting the program;
# the hostile-size tests ask for exactly that.
ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1}
export ASAN_OPTIONS
name=$(basename "$prog")
# NAME.expected beside the program's source (examples/, examples/c_api/)
expected="${top_srcdir:-.}/$(dirname "$prog")/$name.expected"
[ -f "$expected" ] || expected="${top_srcdir:-.}/examples/$name.expected"
if [ -f "$expected" ]; then
  out=$("$prog" "$@") || { echo "$name exited with status $?"; echo "$out"; exit 1; }
  printf '%s\n' "$out"
  if [ "$out" != "$(cat "$expected")" ]; then
    echo "--- output differs from $expected:"
    printf '%s\n' "$out" | diff "$expected" - || true
    exit 1
  fi
  echo "TFS-RESULT: passed=1 failed=0"
  exit 0
fi
exec "$prog" "$@"
