#!/usr/bin/env bash
# Runs interp_diff.py over every pair of examples/refine in the modes its
# header names (see INDEX.md, "Cross-checks"). Needs a convcheck binary with
# the `run` subcommand: CONVCHECK=/path/to/convcheck tools/interp_diff_all.sh
cd "$(dirname "$0")/.." || exit 2
D="python3 tools/interp_diff.py"
r() { p=$1; shift; echo "--- $p [OBSERVE=${OBSERVE:-sets} SKIP=${SKIP:-}] $*"; timeout 600 $D "$p.src.ll" "$p.tgt.ll" "$@" 2>&1 | tail -2; }
for OBSERVE in auto sets; do
  export OBSERVE
  r cl01-texture-sink-divergent --enum condition=false,true --uenum texture=0 --enum coordinates=0,1
  r cl01-texture-sink-uniform --uenum condition=false,true --uenum texture=0 --enum coordinates=0,1
  r cl02-reduction-merge-divergent --enum delta=-1,1
  r cl02-reduction-merge-uniform --uenum delta=-1,1
  for u in maximal inferred; do
    r cl03-jump-threading-uncontrolled --uncontrolled $u --enum cond1=false,true --enum x=0,1
    r cl26-ballot-merge --uncontrolled $u --enum cc=false,true
    r cl27-jump-threading-uncontrolled --uncontrolled $u --enum cc1=false,true --enum cc2=false,true
    r cl28-texture2d-sink-else --uncontrolled $u --enum c=false,true --uenum tex=0 --enum r0=0,1 --uenum k=0
    r cl29-unroll-uncontrolled-even --uncontrolled $u --enum n=0,1,2
    r cl29-unroll-uncontrolled-remainder --uncontrolled $u --enum counter=0,1,3,4
    r cl29-move-control-equivalent --uncontrolled $u --enum c=false,true --uenum x=0
    r cl30-sink-uniform-branch --uncontrolled $u --threads 3 --uenum u=false,true
    r cl30-sink-divergent-branch --uncontrolled $u --threads 3 --uenum u=false,true
  done
  r cl03-jump-threading --enum cond1=false,true --enum x=0,1
  SKIP=reserveSpaceInBuffer,getSubgroupLocalInvocationId r cl04-caller-split --entry append --enum cond=false,true --uenum a=0 --uenum b=0
  SKIP=reserveSpaceInBuffer,getSubgroupLocalInvocationId r cl04-caller-merge --entry append --enum cond=false,true --uenum a=0 --uenum b=0
  SKIP=callee r cl06-inline-entry --entry main --enum n=0,1,2
  r cl11-unroll-anchor-remainder --enum counter=0,1,2,3
  r cl12-unroll-heart-remainder --enum counter=0,1,3,4
  r cl12-unroll-heart-remainder-outer --enum counter=0,1,3,4
  r cl12-unroll-heart-remainder-inner --enum counter=0,1,3,4
  r cl13-unroll-heart-even --enum n=0,1,2
  for v in poison ub; do
    r cl14-shuffle-hoist-$v --shuffle-oob $v --enum condition=false,true --enum data=5,7 --enum id=0,1,2
    r cl15-shuffle-speculate-$v --shuffle-oob $v --enum condition=false,true --enum data=5,7 --enum id=0,1,2
  done
  r cl16-anchor-sink --enum condition=false,true
  r cl17-anchor-hoist --enum condition=false,true
  r cl17-anchor-hoist-ops --enum condition=false,true
  r cl18-anchor-sink-loop --enum counter=0,1,2
  r cl19-anchor-sink-all --enum condition=false,true --enum x=0,1 --uenum y=0
  r cl19-anchor-sink-only-b --enum condition=false,true --enum x=0,1 --uenum y=0
  r cl20-entry-sink --enum condition=false,true --enum x=0,1 --uenum y=0
  r cl27-jump-threading-entry --enum cc1=false,true --enum cc2=false,true
done
