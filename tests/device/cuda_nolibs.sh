#!/bin/sh
# tests/device/cuda_nolibs.sh - a CUDA build runs where the CUDA libraries
# are not (docs/ARCHITECTURE.md, "The CUDA libraries"), on any host:
#   - libtfsess.so and tfsess have no DT_NEEDED entry for the CUDA runtime,
#     cuBLAS or cuDNN (nor the driver), reference no symbol of theirs and
#     libtfsess.so exports none of the static runtime's;
#   - tests/device/test_cuda_nolibs: cuDNN and cuBLAS missing (their
#     loaders' statuses; on a GPU, Conv2D falls back to the CPU), then no
#     GPU (CUDA_VISIBLE_DEVICES="", what a host without a driver sees);
#   - tfsess runs the bundled model on the CPU with the libraries hidden
#     and LD_LIBRARY_PATH pointing nowhere.
# Skips (77) in a build without CUDA.  Run from the build directory.
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! grep -q '^#define TFS_HAVE_CUDA 1' src/tfs_config.h 2>/dev/null; then
  echo "SKIP: not a CUDA build (configure --with-cuda): no CUDA libraries to check"
  exit 77
fi
for t in readelf nm; do
  command -v $t >/dev/null 2>&1 ||
    { echo "SKIP: $t (binutils) is not installed"; exit 77; }
done
failed=0
ok() { echo "ok: $1"; }
bad() { failed=1; echo "FAILED: $1"; }
cudalibs='libcudart|libcudnn|libcublas|libcuda\.'

# A static-only build (--disable-shared: libtfsess.la names no shared
# library) has no libtfsess.so to look at.
shared=.libs/libtfsess.so
grep -q "^dlname=''" libtfsess.la 2>/dev/null && shared=
[ -n "$shared" ] || echo "(libtfsess.so not checked: a static-only build)"
for f in $shared tfsess; do
  [ -f "$f" ] || { bad "$f was not built"; continue; }
  needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "$f NEEDED: $needed"
  if printf '%s\n' "$needed" | grep -Eq "$cudalibs"; then
    bad "$f needs a CUDA library: $needed"
  else
    ok "$f has no DT_NEEDED on a CUDA library"
  fi
  undef=$(nm -D --undefined-only "$f" | grep -E ' (cuda|cudnn|cublas|cu)[A-Z_]' | tr -s ' \n' ' ')
  if [ -n "$undef" ]; then bad "$f references CUDA symbols:$undef"
  else ok "$f references no symbol of a CUDA library"; fi
done
if [ -n "$shared" ]; then
  exported=$(nm -D --defined-only "$shared" | grep -E ' (cuda|__cuda|cudnn|cublas)' | head -n 3 | tr '\n' ' ')
  if [ -n "$exported" ]; then bad "libtfsess.so exports CUDA runtime symbols: $exported"
  else ok "libtfsess.so exports no CUDA runtime symbol"; fi
fi

prog=tests/device/test_cuda_nolibs
if [ -x "$prog" ]; then
  if "$prog" cuda_missing_libs; then ok "cuDNN and cuBLAS missing"
  else bad "$prog cuda_missing_libs"; fi
  if CUDA_VISIBLE_DEVICES='' "$prog" cuda_no_gpu; then ok "no GPU"
  else bad "$prog cuda_no_gpu"; fi
else
  echo "($prog not built: CUnit missing; its checks are left out)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m=$top/models/digits
for gpu in visible hidden; do
  if [ $gpu = hidden ]; then set -- env CUDA_VISIBLE_DEVICES=''; else set -- env; fi
  if "$@" LD_LIBRARY_PATH=/nonexistent TFS_CUDNN_LIBRARY=/nonexistent/libcudnn.so \
       TFS_CUBLAS_LIBRARY=/nonexistent/libcublas.so \
       ./tfsess run "$m/graph.pb" --feed "x=$m/x_test.npy" --fetch probs \
       --out "$tmp" >"$tmp/log" 2>&1 &&
     ls "$tmp"/probs*.npy >/dev/null 2>&1; then
    ok "tfsess runs the digits model without the CUDA libraries (GPU $gpu)"
  else
    bad "tfsess run without the CUDA libraries (GPU $gpu):"
    cat "$tmp/log"
  fi
  rm -f "$tmp"/probs*.npy
done
maps=$(ldd ./tfsess 2>/dev/null | grep -E "$cudalibs" | tr -s ' \n' ' ')
if [ -n "$maps" ]; then bad "tfsess maps CUDA libraries at start: $maps"
else ok "tfsess maps no CUDA library at start (ldd)"; fi
exit $failed
