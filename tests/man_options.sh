#!/bin/sh
# tests/man_options.sh - the manual page (tools/tfsess.1) keeps up with the
# program: every command `tfsess --help` lists has a section (.SS NAME),
# and every option `tfsess COMMAND --help` shows appears in that section,
# in SESSION OPTIONS or in GENERAL OPTIONS; the options of `tfsess --help`
# itself in GENERAL OPTIONS.  A new option without its line in the manual
# fails here.  Run from the build directory.
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
man=$top/tools/tfsess.1
prog=./tfsess
[ -f "$man" ] || { echo "FAILED: $man is missing"; exit 1; }
[ -x "$prog" ] || { echo "FAILED: $prog was not built"; exit 1; }
failed=0 checked=0

# The page as plain text per line: font escapes dropped, \- as -.
plain=$(sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\-/-/g' \
  -e 's/\\e/\\/g' "$man")

# The lines of the section that starts with `.SS NAME` or `.SH NAME`
# (quoted or not), up to the next .SS or .SH.
section() {
  printf '%s\n' "$plain" | awk -v want="$1" '
    /^\.S[SH] / { s = substr($0, 5); gsub(/"/, "", s); on = (s == want); next }
    on { print }'
}
common="$(section "SESSION OPTIONS")
$(section "GENERAL OPTIONS")"

# has TEXT OPTION: OPTION appears in TEXT as a whole word
has() {
  printf '%s\n' "$1" | grep -Eq -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)"
}

# the options a help text shows at the start of its lines: "  --name ..."
options_of() {
  sed -n 's/^  \(--*[A-Za-z0-9][A-Za-z0-9-]*\).*/\1/p' | sort -u
}

cmds=$("$prog" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z_-]*\) .*/\1/p')
[ -n "$cmds" ] || { echo "FAILED: no commands in tfsess --help"; exit 1; }
for o in $("$prog" --help | sed -n 's/^Options: //p' | tr -d ',.'); do
  checked=$((checked + 1))
  has "$common" "$o" || { failed=1; echo "FAILED: tfsess $o is not in GENERAL OPTIONS"; }
done
for c in $cmds; do
  text=$(section "$c")
  if [ -z "$text" ]; then
    failed=1
    echo "FAILED: the manual has no section for command '$c' (.SS $c)"
    continue
  fi
  for o in $("$prog" "$c" --help | options_of); do
    checked=$((checked + 1))
    if ! has "$text" "$o" && ! has "$common" "$o"; then
      failed=1
      echo "FAILED: tfsess $c $o is not in the manual's '$c' section"
    fi
  done
done
echo "checked $checked options of $(printf '%s\n' "$cmds" | wc -l) commands"
exit $failed
