#!/bin/sh
# tests/lint_test.sh - scripts/lint finds what it should and nothing else:
# run on a made-up tree with a 151-line function, a strcpy call, strcpy
# in a comment and a string (not flagged), a file without a header
# comment and an include cycle between two modules; then on a clean tree,
# which must pass.  Uses $top_srcdir (make check sets it).
lint="${top_srcdir:-.}/scripts/lint"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lint_test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; }
has() { # has PATTERN WHAT: the last lint output holds PATTERN
  if grep -q -- "$1" "$tmp/out"; then ok "$2"; else bad "$2"; fi
}
hasnt() {
  if grep -q -- "$1" "$tmp/out"; then bad "$2"; else ok "$2"; fi
}
body() { # body N: N lines of statements
  i=0
  while [ "$i" -lt "$1" ]; do echo "  x++;"; i=$((i + 1)); done
}

# --- a tree with one of each problem
bad_tree=$tmp/bad
mkdir -p "$bad_tree/src/a" "$bad_tree/src/b"
{
  echo "/* a/long.c - a function one line too long, one just short enough */"
  echo "int too_long(int x) {"; body 150; echo "  return x;"; echo "}"
  echo "int just_fits(int x) {"; body 149; echo "  return x;"; echo "}"
} > "$bad_tree/src/a/long.c"
cat > "$bad_tree/src/a/banned.c" <<'EOF'
/* a/banned.c - one banned call; the others are comments or strings */
#include <stdio.h>
#include <string.h>
/* never strcpy(d, s) here */
void copy(char *d, const char *s, size_t n) {
  const char *msg = "strcpy(d, s) is banned";
  // gets(d) too
  snprintf(d, n, "%s", msg);
  strcpy(d, s);
}
EOF
cat > "$bad_tree/src/a/nohead.c" <<'EOF'

int no_header_comment;
EOF
cat > "$bad_tree/src/a/x.h" <<'EOF'
/* a/x.h - half of a cycle */
#include "b/y.h"
EOF
cat > "$bad_tree/src/b/y.h" <<'EOF'
/* b/y.h - the other half */
#include "a/x.h"
EOF

"$lint" "$bad_tree" > "$tmp/out" 2>&1
status=$?
cat "$tmp/out"
if [ "$status" = 1 ]; then ok "exit status 1 on errors"; else
  bad "exit status $status on errors, not 1"; fi
has "src/a/long.c:2: error: function too_long is 151 lines long" \
  "151-line function"
hasnt "just_fits" "150-line function not flagged"
has "src/a/banned.c:9: error: banned function strcpy()" "strcpy call"
hasnt "src/a/banned.c:[0-8]:" "strcpy or gets in a comment or string"
hasnt "snprintf" "snprintf allowed"
has "src/a/nohead.c:1: error: does not open with a /\\* comment" \
  "missing header comment"
has "error: include cycle between modules: a b" "include cycle"
has 'a -> b: .*/src/a/x.h:2 includes "b/y.h"' "cycle edge a -> b"
has 'b -> a: .*/src/b/y.h:2 includes "a/x.h"' "cycle edge b -> a"
has "^lint: 4 errors, 0 notes$" "summary line"

# --- the cycle allowed
mkdir -p "$bad_tree/scripts"
echo "cycle: b a" > "$bad_tree/scripts/lint.allow"
"$lint" "$bad_tree" > "$tmp/out" 2>&1
has "note: known cycle (allowed): a b" "allowed cycle is a note"
has "^lint: 3 errors, 1 notes$" "allowed cycle not counted as error"

# --- a clean tree passes
good_tree=$tmp/good
mkdir -p "$good_tree/src/a" "$good_tree/src/b" "$good_tree/build/src"
printf '/* a/ok.c - fine */\n#include "b/y.h"\nint ok(void) {\n' \
  > "$good_tree/src/a/ok.c"
{ body 149; echo "  return 0;"; echo "}"; } >> "$good_tree/src/a/ok.c"
printf '/* b/y.h - fine */\nint ok(void);\n' > "$good_tree/src/b/y.h"
printf 'void skipped(char *d) { strcpy(d, "x"); }\n' \
  > "$good_tree/build/src/gen.c"
printf 'void skipped(char *d) { strcpy(d, "x"); }\n' \
  > "$good_tree/src/a/gen.pb-c.c"
if "$lint" "$good_tree" > "$tmp/out" 2>&1; then ok "clean tree passes"
else cat "$tmp/out"; bad "clean tree passes"; fi
has "^lint: 0 errors, 0 notes$" "clean tree summary"

echo "TFS-RESULT: passed=$passed failed=$failed"
[ "$failed" = 0 ]
