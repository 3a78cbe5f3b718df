#!/usr/bin/env bash
# Compile examples/kernels with clang-22 into textual LLVM IR, one file per
# kernel, target and optimisation level:
#   OUT/<kernel>.<target>.O<n>.ll
# Targets: OpenCL C -> amdgcn and spirv64; HIP -> amdgcn; CUDA -> nvptx64.
# Usage: scripts/build-kernels.sh [OUT] [LEVELS...]   (default OUT=target/kernels,
#        levels 0 2). CLANG overrides the compiler (default clang-22).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/kernels}
shift || true
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(0 2)
clang=${CLANG:-clang-22}
if ! command -v "$clang" >/dev/null; then
  echo "build-kernels: $clang not found (scripts/setup.sh clang-22 installs it)" >&2
  exit 3
fi
mkdir -p "$out"
n=0
compile() { # src target level args...
  local src=$1 tgt=$2 lvl=$3
  shift 3
  local base
  base=$(basename "${src%.*}")
  local dst="$out/$base.$tgt.O$lvl.ll"
  if ! "$clang" "$@" "-O$lvl" -S -emit-llvm "$src" -o "$dst" 2>"$dst.err"; then
    echo "build-kernels: $clang failed on $src ($tgt, -O$lvl):" >&2
    cat "$dst.err" >&2
    exit 3
  fi
  rm -f "$dst.err"
  n=$((n + 1))
}
ocl=(-x cl -cl-std=CL2.0 -Xclang -finclude-default-header -nogpulib)
for lvl in "${levels[@]}"; do
  for src in examples/kernels/*.cl; do
    compile "$src" amdgcn "$lvl" "${ocl[@]}" -target amdgcn-amd-amdhsa -mcpu=gfx90a
    compile "$src" spirv64 "$lvl" "${ocl[@]}" -target spirv64
  done
  for src in examples/kernels/*.hip; do
    compile "$src" amdgcn "$lvl" -x hip --offload-arch=gfx90a --cuda-device-only \
      -nogpuinc -nogpulib
  done
  for src in examples/kernels/*.cu; do
    compile "$src" nvptx64 "$lvl" -x cuda --cuda-gpu-arch=sm_80 --cuda-device-only \
      -nocudainc -nocudalib -Xclang -target-feature -Xclang +ptx70
  done
done
echo "build-kernels: $n modules in $out"
