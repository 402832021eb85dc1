#!/bin/sh
# tests/compat_c_api/headertest_each.sh - every TensorFlow C API header
# under include/tensorflow/c compiles on its own (first and only include
# of a translation unit) as C99 and as C++17 under -Wall -Wextra
# -pedantic-errors -Werror, and defines TensorFlow's include guard.
# Uses $CC and $CXX (make check passes the configured compilers).
srcdir=${top_srcdir:-.}
cc=${CC:-cc}
cxx=${CXX:-c++}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/headertest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
for h in c_api_macros.h tf_attrtype.h tf_datatype.h tf_status.h tf_buffer.h \
         tf_tensor.h tf_tstring.h c_api.h eager/c_api.h; do
  guard=TENSORFLOW_C_$(printf '%s' "$h" | tr 'a-z/.' 'A-Z__')_
  {
    printf '#include <tensorflow/c/%s>\n' "$h"
    printf '#ifndef %s\n#error "no %s"\n#endif\n' "$guard" "$guard"
    printf 'int header_check_%s;\n' "$(printf '%s' "$h" | tr '/.' '__')"
  } >"$tmp/t.c"
  cp "$tmp/t.c" "$tmp/t.cc"
  if $cc -std=c99 -Wall -Wextra -pedantic-errors -Werror \
       -I"$srcdir/include" -fsyntax-only "$tmp/t.c"; then
    pass=$((pass + 1))
  else
    echo "FAIL: tensorflow/c/$h alone as C99"
    fail=$((fail + 1))
  fi
  if $cxx -std=c++17 -Wall -Wextra -pedantic-errors -Werror \
       -I"$srcdir/include" -fsyntax-only "$tmp/t.cc"; then
    pass=$((pass + 1))
  else
    echo "FAIL: tensorflow/c/$h alone as C++17"
    fail=$((fail + 1))
  fi
done
echo "TFS-RESULT: passed=$pass failed=$fail"
[ "$fail" = 0 ]
