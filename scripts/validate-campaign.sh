#!/usr/bin/env bash
# make validate-campaign: `convcheck validate` over real kernels
# (examples/kernels compiled by scripts/build-kernels.sh at -O0, optnone
# removed so that passes run) and over generated convergent programs
# (testgen's refine_family: divergent branch, reductions, barriers, tokens
# or not, loops with a heart; fixed seed), with -O2/-O3, each control-flow
# pass alone, and AMDGPU's IR passes on amdgcn inputs. Prints the README's
# table (Markdown) and
# keeps every JSON result in OUT (default target/validate-campaign).
# Not a test: it takes minutes. Bounds: THREADS (1..3), STEPS (6),
# LIMIT seconds per function (30), JOBS (2), GEN programs (12).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/validate-campaign}
threads=${THREADS:-1..3}
steps=${STEPS:-6}
limit=${LIMIT:-30}
gen=${GEN:-12}
jobs=${JOBS:-2}
cargo build --release -q --bin convcheck
cargo build --release -q -p testgen --example dump_family_programs
# The binary is copied so that rebuilding the tree during the campaign
# (minutes) cannot change the tool halfway.
bin=$out.bin/convcheck
mkdir -p "$out.bin"
cp target/release/convcheck "$bin"
rm -rf "$out"
mkdir -p "$out/inputs" "$out/json"
scripts/build-kernels.sh "$out/kernels" 0 >/dev/null
for f in "$out"/kernels/*.O0.ll; do
  # clang -O0 marks every function optnone, which every pass skips.
  sed -e 's/\boptnone\b//g' "$f" >"$out/inputs/$(basename "${f%.ll}").ll"
done
target/release/examples/dump_family_programs "$out/inputs" "$gen" 1
single=(simplifycfg jump-threading licm "loop-unroll -unroll-runtime" loop-rotate
  simple-loop-unswitch gvn-hoist sink chr loop-fusion indvars "instcombine<no-verify-fixpoint>"
  tailcallelim structurizecfg)
# (instcombine without opt-22's fixpoint verification, which aborts on
# 12 of the -O0 kernels: "did not reach a fixpoint after 1 iterations".)
# AMDGPU's IR passes that opt-22 runs and that move or create convergent
# operations or change control flow around them (amdgcn inputs only);
# si-annotate-control-flow after structurizecfg, as llc runs them (alone it
# aborts on unstructured loops: "failed to annotate CFG").
amdgpu=(amdgpu-unify-divergent-exit-nodes "amdgpu-atomic-optimizer<strategy=iterative>"
  "amdgpu-atomic-optimizer<strategy=dpp>" amdgpu-uniform-intrinsic-combine
  amdgpu-rewrite-undef-for-phi amdgpu-codegenprepare amdgpu-late-codegenprepare
  amdgpu-promote-alloca "structurizecfg,si-annotate-control-flow")
run() { # name input opt-args...
  local name=$1 input=$2
  shift 2
  local base
  base=$(basename "${input%.ll}")
  local dst="$out/json/$name--$base.json"
  local status=0
  "$bin" validate "$input" --threads "$threads" --max-steps "$steps" --time-limit "$limit" \
    --jobs "$jobs" --json --keep "$out/opt/$name" -- "$@" >"$dst" 2>"$dst.err" || status=$?
  echo "$status" >"$dst.status"
}
for input in "$out"/inputs/*.ll; do
  case $(basename "$input") in
    family-*) triples=(amdgcn-amd-amdhsa nvptx64-nvidia-cuda) ;;
    *) triples=("") ;;
  esac
  for t in "${triples[@]}"; do
    targ=()
    tname=module-triple
    if [ -n "$t" ]; then targ=("-mtriple=$t"); tname=$t; fi
    for o in O2 O3; do run "$o@$tname" "$input" "-$o" "${targ[@]}"; done
  done
  for p in "${single[@]}"; do
    read -r -a words <<<"$p"
    extra=("${words[@]:1}")
    t=amdgcn-amd-amdhsa
    case $(basename "$input") in *nvptx64*) t=nvptx64-nvidia-cuda ;; esac
    case $(basename "$input") in *spirv64*) t=spirv64 ;; esac
    run "${words[0]}" "$input" "-passes=${words[0]}" "${extra[@]}" "-mtriple=$t"
  done
  case $(basename "$input") in *nvptx64* | *spirv64*) continue ;; esac
  for p in "${amdgpu[@]}"; do
    run "$p" "$input" "-passes=$p" -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a
  done
done
python3 - "$out" <<'PY'
import json, os, sys, collections
out = sys.argv[1]
rows = collections.OrderedDict()
found = []
for fn in sorted(os.listdir(f"{out}/json")):
    if not fn.endswith(".json"):
        continue
    name = fn.split("--")[0]
    r = rows.setdefault(name, collections.Counter())
    r["files"] += 1
    status = int(open(f"{out}/json/{fn}.status").read())
    try:
        v = json.load(open(f"{out}/json/{fn}"))
    except ValueError:
        v = {}
    if "functions" not in v:
        # No table: opt failed or the file could not be read (exit 3; the
        # JSON, if any, is the error).
        r["files stopped (exit 3)" if status == 3 else f"exit {status}"] += 1
        continue
    for f in v["functions"]:
        r["checked"] += 1
        r[f["verdict"]] += 1
        r["seconds"] += f["seconds"]
        reason = f["reason"]
        if f["verdict"] == "unsupported":
            if "found no difference" in reason:
                r["tested"] += 1
        if f["verdict"] == "counterexample":
            found.append(f"{fn[:-5]} @{f['name']}: {reason[:160]}")
    r["removed"] += len(v["removed"])
cols = ["refines", "counterexample", "unknown", "vacuous", "unsupported", "tested",
        "invalid", "removed"]
heads = [c if c != "tested" else "of which tested: no difference" for c in cols]
print("| pipeline | files | files stopped (exit 3) | functions checked | "
      + " | ".join(heads) + " | s/function |")
print("|" + "---|" * (len(cols) + 5))
for name, r in rows.items():
    per = r["seconds"] / r["checked"] if r["checked"] else 0.0
    print(f"| `{name}` | {r['files']} | {r['files stopped (exit 3)']} | {r['checked']} | "
          + " | ".join(str(r[c]) for c in cols) + f" | {per:.2f} |")
print()
print(f"Counterexamples: {len(found)}")
for x in found:
    print(f"- {x}")
PY
