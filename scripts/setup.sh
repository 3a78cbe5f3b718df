#!/usr/bin/env bash
# Installs what convcheck needs on a fresh Debian machine, only where missing:
# libz3-dev (the checker links Debian's libz3), z3 (replays dumped SMT-LIB),
# llvm-22 (opt-22, the oracle of the differential tests), chromium
# (renders the HTML reports in the report tests) and clang-22 (compiles
# examples/kernels).
# Uses sudo when not root. Safe to run repeatedly.
set -euo pipefail

need=()
dpkg -s libz3-dev >/dev/null 2>&1 || need+=(libz3-dev)
command -v opt-22 >/dev/null 2>&1 || need+=(llvm-22)
# The z3 binary replays the SMT-LIB dumps of the checker tests (required when CI=true).
command -v z3 >/dev/null 2>&1 || need+=(z3)
# Headless Chromium renders the HTML reports in checker/tests/html_report.rs
# (required when CI=true).
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# clang-22 compiles examples/kernels (OpenCL C, HIP, CUDA) for the kernel
# tests (required when CI=true) and scripts/build-kernels.sh.
command -v clang-22 >/dev/null 2>&1 || need+=(clang-22)
for extra in "$@"; do
  dpkg -s "$extra" >/dev/null 2>&1 || need+=("$extra")
done

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install a Rust toolchain (rustup) first" >&2
  exit 1
fi
