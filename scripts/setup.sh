#!/usr/bin/env bash
# Installs every Debian package spyre-mlir needs to build, test and demo.
# Idempotent: prints nothing and installs nothing when all are present.
set -euo pipefail

packages=(
  # Build toolchain.
  cmake ninja-build ccache g++ git
  # MLIR/LLVM 22 (linked through libMLIR.so) and lit/FileCheck.
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  # Libraries: FlatBuffers for .spy, JSON and zip for the .pt2 importer.
  flatbuffers-compiler libflatbuffers-dev nlohmann-json3-dev libzip-dev
  zlib1g-dev libzstd-dev libcli11-dev
  # XXH3-64 digests of .spy segments (header-only use).
  libxxhash-dev
  # Tests and benchmarks; PyTorch (CPU) for the op fuzzer's references.
  libgtest-dev libbenchmark-dev python3-numpy python3-torch
  # The Python package (python/): bindings for Debian's /usr/bin/python3,
  # tested with pytest.
  pybind11-dev python3-pybind11 python3-dev python3-pytest
  # bench/big-weights measures peak memory with /usr/bin/time.
  time
  # The format check of scripts/test.sh; scripts/complexity.sh.
  clang-format-22 pmccabe
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "setup: installing ${missing[*]}" >&2
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
