#!/usr/bin/env bash
# Checks every example in this directory against the header format of
# README.md and against LLVM 22:
#   - the header has every required key, in the grammar README.md gives;
#   - CLAIM matches the file name, ROLE matches the suffix, PAIR names an
#     existing file that names this one back, and both files of a pair agree
#     on CLAIM, SOURCE, KERNEL, EXPECT, MODES and EXPECT-IN;
#   - KERNEL names a function defined in the file;
#   - OPT-VERIFY: `ok` files pass `opt-22 -passes=verify`, `error "MSG"` files
#     fail it with MSG in the diagnostics;
#   - the project's parser accepts the file (`convcheck parse --quiet`), when
#     the binary is available ($CONVCHECK, or target/release/convcheck);
#   - DISTINGUISH: `convcheck run FILE FLAGS --exists COND` answers Never on
#     the source and Sometimes or Always on the target, when the binary has
#     the `run` subcommand ($CONVCHECK_RUN, default $CONVCHECK).
# Usage: examples/refine/check.sh   (exit 0 when everything holds)
set -u
cd "$(dirname "$0")"
OPT=${OPT:-opt-22}
ROOT=$(cd ../.. && pwd)
CONVCHECK=${CONVCHECK:-$ROOT/target/release/convcheck}
fail=0
bad() { echo "FAIL $1: $2"; fail=1; }

# header FILE KEY -> values of KEY (one per line) from the header block
header() {
  awk -v key="$2" '
    /^;$/ { exit }
    /^; [A-Z][A-Z-]*: / {
      k = $2; sub(/:$/, "", k)
      if (k == key) { v = $0; sub(/^; [A-Z][A-Z-]*: /, "", v); print v }
      next
    }
    { exit }' "$1"
}

if ! command -v "$OPT" >/dev/null 2>&1; then
  echo "SKIP: $OPT not found; LLVM verification not run" >&2
  OPT=""
fi
if [ ! -x "$CONVCHECK" ]; then
  echo "SKIP: $CONVCHECK not built; parser check not run" >&2
  CONVCHECK=""
fi

RUN=${CONVCHECK_RUN:-$CONVCHECK}
if [ -n "$RUN" ] && ! "$RUN" run --help >/dev/null 2>&1; then
  echo "SKIP: $RUN has no 'run' subcommand; DISTINGUISH not checked" >&2
  RUN=""
fi

n=0
for f in cl*.ll; do
  n=$((n + 1))
  # every header key is known
  unknown=$(awk '/^;$/{exit} /^; [A-Z][A-Z-]*: /{k=$2; sub(/:$/,"",k); print k; next} {exit}' "$f" |
    grep -v -x -E 'CLAIM|SOURCE|ROLE|PAIR|KERNEL|EXPECT|MODES|EXPECT-IN|WITNESS|DISTINGUISH|PROPERTY|OPT-VERIFY')
  [ -n "$unknown" ] && bad "$f" "unknown header key(s): $unknown"
  for k in CLAIM SOURCE ROLE PAIR KERNEL EXPECT OPT-VERIFY; do
    c=$(header "$f" "$k" | wc -l)
    [ "$c" = 1 ] || bad "$f" "header key $k occurs $c times (want 1)"
  done
  for k in MODES WITNESS DISTINGUISH PROPERTY; do
    c=$(header "$f" "$k" | wc -l)
    [ "$c" -le 1 ] || bad "$f" "header key $k occurs $c times (want at most 1)"
  done
  claim=$(header "$f" CLAIM)
  num=$(echo "$f" | sed -E 's/^cl([0-9][0-9]).*/\1/')
  [ "$claim" = "CL-$num" ] || bad "$f" "CLAIM '$claim' does not match file name"
  header "$f" SOURCE | grep -q -E '^(CO|CU|RFC15|RFC20|RFC21) ".+"' ||
    bad "$f" "SOURCE must be <doc> \"<section>\""
  role=$(header "$f" ROLE)
  pair=$(header "$f" PAIR)
  case "$f" in
    *.src.ll) want=source ;;
    *.tgt.ll) want=target ;;
    *) want=module ;;
  esac
  [ "$role" = "$want" ] || bad "$f" "ROLE '$role', file name says '$want'"
  expect=$(header "$f" EXPECT)
  if [ "$role" = module ]; then
    [ "$pair" = "-" ] || bad "$f" "a module has PAIR: -"
    echo "$expect" | grep -q -x -E 'valid|invalid\([A-Z]+(-[A-Z0-9]+)+\)' ||
      bad "$f" "EXPECT '$expect' is not valid|invalid(RULE)"
  else
    echo "$expect" | grep -q -x -E 'refines|counterexample|invalid\([A-Z]+(-[A-Z0-9]+)+\)' ||
      bad "$f" "EXPECT '$expect' is not refines|counterexample|invalid(RULE)"
    if [ ! -f "$pair" ]; then
      bad "$f" "PAIR $pair does not exist"
    else
      [ "$(header "$pair" PAIR)" = "$f" ] || bad "$f" "PAIR $pair does not point back"
      for k in CLAIM SOURCE KERNEL EXPECT MODES EXPECT-IN WITNESS DISTINGUISH; do
        [ "$(header "$f" "$k")" = "$(header "$pair" "$k")" ] ||
          bad "$f" "$k differs from $pair"
      done
    fi
  fi
  modes=$(header "$f" MODES)
  if [ -n "$modes" ]; then
    echo "$modes" | grep -q -x -E '(--(observe|uncontrolled|shuffle-oob) [a-z]+ ?)+' ||
      bad "$f" "MODES '$modes' is not a list of --observe/--uncontrolled flags"
  fi
  header "$f" EXPECT-IN | while read -r line; do
    echo "$line" | grep -q -x -E '(--(observe|uncontrolled|shuffle-oob) [a-z]+ ?)+ => (refines|counterexample|valid|invalid\([A-Z0-9-]+\))' ||
      { echo "FAIL $f: EXPECT-IN '$line' is not '<flags> => <verdict>'"; exit 1; }
  done || fail=1
  # the explanation paragraph follows the header's terminating ';'
  awk '/^;$/{found=1; next} found && /^; ./{print; exit}' "$f" | grep -q . ||
    bad "$f" "no explanation paragraph after the header"
  dist=$(header "$f" DISTINGUISH)
  if [ -n "$dist" ]; then
    case "$dist" in
      *" :: "*) ;;
      *) bad "$f" "DISTINGUISH is not '<run flags> :: <condition>'" ;;
    esac
    [ "$expect" = counterexample ] || bad "$f" "DISTINGUISH on a pair that does not expect a counterexample"
    if [ -n "$RUN" ] && [ "$role" = source ]; then
      flags=${dist%% :: *}
      cond=${dist#* :: }
      kname=$(header "$f" KERNEL)
      # shellcheck disable=SC2086
      a=$("$RUN" run "$f" --entry "${kname#@}" $flags --exists "$cond" 2>&1 | head -1)
      # shellcheck disable=SC2086
      b=$("$RUN" run "$pair" --entry "${kname#@}" $flags --exists "$cond" 2>&1 | head -1)
      [ "$a" = Never ] || bad "$f" "DISTINGUISH: source answers '$a', want Never"
      case "$b" in
        Sometimes | Always) ;;
        *) bad "$f" "DISTINGUISH: target $pair answers '$b', want Sometimes or Always" ;;
      esac
    fi
  fi
  kernel=$(header "$f" KERNEL)
  grep -q -E "^define .*${kernel}\(" "$f" || bad "$f" "KERNEL $kernel is not defined here"

  optv=$(header "$f" OPT-VERIFY)
  if [ -n "$OPT" ]; then
    out=$("$OPT" -passes=verify -disable-output "$f" 2>&1)
    rc=$?
    if [ "$optv" = ok ]; then
      [ $rc = 0 ] || bad "$f" "opt-22 rejects it: $out"
    else
      msg=$(echo "$optv" | sed -E 's/^error "(.*)"$/\1/')
      [ $rc != 0 ] || bad "$f" "opt-22 accepts it, header says $optv"
      echo "$out" | grep -q -F -- "$msg" || bad "$f" "opt-22 message differs: $out"
    fi
  fi
  if [ -n "$CONVCHECK" ]; then
    out=$("$CONVCHECK" parse --quiet "$f" 2>&1) || bad "$f" "convcheck parse rejects it: $out"
  fi
done
echo "checked $n files"
exit $fail
