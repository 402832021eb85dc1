#!/bin/sh
# tests/cpu_paths.sh - every path the CPU chooses, on any host that can
# run it: the test programs run again with the CPU capped at each
# instruction-set level below this CPU's (TFS_CPU_MAX_ISA=avx2, sse4.2,
# baseline), so the GEMM family, the convolution and pooling paths, the
# bfloat16 GEMM's widening path and the CRC32C that a smaller CPU would
# pick by itself run here too; and the environment overrides
# (TFS_CPU_MAX_ISA, TFS_CPU_BF16, TFS_CPU_BF16_DOT, TFS_CPU_AMX) are
# checked through tests/util/cpu_probe.  Levels above this CPU's are
# reported as skipped, with the reason.  The conformance cases run once per level, not again
# re-exported (TFS_CONFORMANCE_NO_REEXPORT=1: exporting a graph does not
# depend on the CPU), and the levels run side by side.
#
# The programs come from $TFS_CPU_PATH_PROGRAMS (set by make check); run
# from the build directory.
probe=tests/util/cpu_probe
passed=0 failed=0 skipped=0

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; }

field() { # field NAME LINE
  printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

rank() {
  case $1 in baseline) echo 0 ;; sse4.2) echo 1 ;; avx2) echo 2 ;;
    avx512) echo 3 ;; *) echo -1 ;; esac
}

line=$(env -u TFS_CPU_MAX_ISA -u TFS_CPU_BF16 -u TFS_CPU_BF16_DOT \
  -u TFS_CPU_AMX "$probe") ||
  { echo "cpu_probe failed"; exit 1; }
detected=$(field detected "$line")
native=$(field bf16_detected "$line")
echo "this CPU: $line"

# ---- the overrides
for lvl in baseline sse4.2 avx2 avx512; do
  got=$(field max "$(TFS_CPU_MAX_ISA=$lvl "$probe")")
  want=$lvl
  [ "$(rank "$lvl")" -gt "$(rank "$detected")" ] && want=$detected
  if [ "$got" = "$want" ]; then ok "TFS_CPU_MAX_ISA=$lvl gives $got"
  else bad "TFS_CPU_MAX_ISA=$lvl gives $got, expected $want"; fi
done
out=$(TFS_CPU_MAX_ISA=pentium "$probe" 2>&1)
case $out in
  *"TFS_CPU_MAX_ISA='pentium' is not one of baseline, sse4.2, avx2, avx512; ignored"*"max=$detected "*)
    ok "an unknown TFS_CPU_MAX_ISA is ignored with a warning" ;;
  *) bad "unknown TFS_CPU_MAX_ISA: $out" ;;
esac
for v in 0 1; do
  got=$(field bf16 "$(TFS_CPU_BF16=$v "$probe")")
  if [ "$got" = "$v" ]; then ok "TFS_CPU_BF16=$v gives bf16=$got"
  else bad "TFS_CPU_BF16=$v gives bf16=$got"; fi
done
dot=$(field bf16_dot_detected "$line")
got=$(field bf16_dot "$(TFS_CPU_BF16_DOT=0 "$probe")")
if [ "$got" = 0 ]; then ok "TFS_CPU_BF16_DOT=0 gives bf16_dot=0"
else bad "TFS_CPU_BF16_DOT=0 gives bf16_dot=$got"; fi
got=$(field bf16_dot "$(TFS_CPU_MAX_ISA=avx2 "$probe")")
if [ "$got" = 0 ]; then ok "TFS_CPU_MAX_ISA=avx2 gives bf16_dot=0"
else bad "TFS_CPU_MAX_ISA=avx2 gives bf16_dot=$got"; fi
got=$(field bf16_dot "$(TFS_CPU_BF16_DOT=1 "$probe")")
want=$dot
[ "$detected" = avx512 ] || want=0
if [ "$got" = "$want" ]; then ok "TFS_CPU_BF16_DOT=1 gives bf16_dot=$got"
else bad "TFS_CPU_BF16_DOT=1 gives bf16_dot=$got, expected $want"; fi
amx=$(field amx_detected "$line")
if [ "$(field amx "$line")" = "$amx" ]; then
  ok "AMX is on by default where detected (amx=$amx)"
else bad "AMX by default: $line"; fi
got=$(field amx "$(TFS_CPU_AMX=0 "$probe")")
if [ "$got" = 0 ]; then ok "TFS_CPU_AMX=0 gives amx=0"
else bad "TFS_CPU_AMX=0 gives amx=$got"; fi
got=$(field amx "$(TFS_CPU_AMX=1 TFS_CPU_MAX_ISA=avx2 "$probe")")
if [ "$got" = 0 ]; then ok "TFS_CPU_MAX_ISA=avx2 gives amx=0"
else bad "TFS_CPU_MAX_ISA=avx2 gives amx=$got"; fi
got=$(field amx "$(TFS_CPU_AMX=1 "$probe")")
if [ "$got" = "$amx" ]; then ok "TFS_CPU_AMX=1 gives amx=$got"
else bad "TFS_CPU_AMX=1 gives amx=$got, detected $amx"; fi
got=$(field bf16 "$(TFS_CPU_BF16=yes "$probe")")
if [ "$got" = "$native" ]; then ok "TFS_CPU_BF16=yes is ignored"
else bad "TFS_CPU_BF16=yes gives bf16=$got, detected $native"; fi

# ---- the programs under each lower level
# run_level LVL: the programs with TFS_CPU_MAX_ISA=LVL, one at a time;
# prints the failures, the TFS-CPU-PATH line and "counts P F".
run_level() {
  lp=0 lf=0 n=0
  for prog in $TFS_CPU_PATH_PROGRAMS; do
    if [ -n "${TFS_CPU_PATHS_ONLY:-}" ]; then
      keep=0
      for pre in $TFS_CPU_PATHS_ONLY; do
        case $prog in "$pre"*) keep=1 ;; esac
      done
      [ $keep = 1 ] || continue
    fi
    log=$(TFS_CPU_MAX_ISA=$1 TFS_CONFORMANCE_NO_REEXPORT=1 \
          $SHELL "${top_srcdir:-.}/tests/run_test.sh" "./$prog" 2>&1)
    rc=$?
    res=$(printf '%s\n' "$log" | grep -a 'TFS-RESULT:' | tail -n 1)
    p=$(printf '%s\n' "$res" | sed -n 's/.*passed=\([0-9]*\).*/\1/p')
    f=$(printf '%s\n' "$res" | sed -n 's/.*failed=\([0-9]*\).*/\1/p')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=0
    [ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
    lp=$((lp + p)); lf=$((lf + f)); n=$((n + 1))
    if [ "$f" -gt 0 ]; then
      echo "FAILED: TFS_CPU_MAX_ISA=$1 $prog"
      printf '%s\n' "$log" | grep -a -B2 -A8 -E 'FAILED|error' | head -n 60
    fi
  done
  echo "TFS-CPU-PATH: isa-cap $1 ran ($n programs)"
  echo "counts $lp $lf"
}

# The levels run side by side (each its programs one at a time): this
# script is the longest test of make check, and one level alone would
# leave a core idle once the other tests are done.
# TFS_CPU_PATHS_LEVELS="LEVEL..." reruns at those levels only (below this
# CPU's; ./scripts/check's sanitizer build: avx2 and baseline).
# TFS_CPU_PATHS_ONLY="PREFIX..." reruns only the programs whose paths
# start with one of the prefixes (./scripts/check's sanitizer build:
# the kernel suites and the conformance cases, the code the levels
# choose between; the default build reruns every program).
# TFS_CPU_PATHS_RERUN=0 (./scripts/check's make distcheck, whose tree
# the default stage already reran): the overrides above only.
if [ "${TFS_CPU_PATHS_RERUN:-1}" = 0 ]; then
  echo "the reruns at lower levels are left out (TFS_CPU_PATHS_RERUN=0)"
  echo "TFS-RESULT: passed=$passed failed=$failed skipped=$skipped"
  [ "$failed" = 0 ]
  exit
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cpu_paths.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
levels=
for lvl in avx512 avx2 sse4.2 baseline; do
  if [ "$(rank "$lvl")" -gt "$(rank "$detected")" ]; then
    echo "TFS-CPU-PATH: isa-cap $lvl skipped (this CPU has no $lvl)"
    skipped=$((skipped + 1))
    continue
  fi
  # the detected level is what every other test of make check runs
  [ "$lvl" = "$detected" ] && continue
  if [ -n "${TFS_CPU_PATHS_LEVELS:-}" ]; then
    case " $TFS_CPU_PATHS_LEVELS " in
      *" $lvl "*) ;;
      *) echo "TFS-CPU-PATH: isa-cap $lvl skipped (not in TFS_CPU_PATHS_LEVELS)"
         skipped=$((skipped + 1))
         continue ;;
    esac
  fi
  run_level "$lvl" >"$tmp/$lvl.out" 2>&1 &
  levels="$levels $lvl"
done
wait
for lvl in $levels; do
  grep -av '^counts ' "$tmp/$lvl.out"
  set -- $(grep -a '^counts ' "$tmp/$lvl.out" | tail -n 1)
  if [ $# = 3 ]; then
    passed=$((passed + $2)); failed=$((failed + $3))
  else
    bad "TFS_CPU_MAX_ISA=$lvl: the run ended early"
  fi
done
echo "TFS-RESULT: passed=$passed failed=$failed skipped=$skipped"
[ "$failed" = 0 ]
