#!/usr/bin/env bash
# Installs everything tile needs on a fresh Debian machine: LLVM/MLIR 22, the
# C libraries that mlir-sys links statically, and llvm-22-tools for lit and
# FileCheck, and NVIDIA's ptxas and libdevice (a Python package).
# Idempotent: it runs `apt-get update` once, only if something is missing.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools libclang-22-dev libpolly-22-dev
  llvm-22-tools clang-22
  libzstd-dev libz3-dev libxml2-dev zlib1g-dev
  build-essential pkg-config python3 python3-pip
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: Debian packages already present"
fi

# NVIDIA's ptxas and libdevice from PyPI (nvidia-cuda-nvcc-cu12): the GPU
# path links libdevice for math functions, and the tests check every
# example's PTX with ptxas even on machines without a GPU. 12.9 pinned:
# tests/integration/uniform_datapath.rs counts instructions ptxas chose,
# which another release may choose differently.
if ! python3 -c "import nvidia.cuda_nvcc" >/dev/null 2>&1; then
  echo "install-deps: installing nvidia-cuda-nvcc-cu12 12.9 (ptxas, libdevice)"
  python3 -m pip install -q --disable-pip-version-check "nvidia-cuda-nvcc-cu12==12.9.*" \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages "nvidia-cuda-nvcc-cu12==12.9.*"
fi

# Rust toolchain: the machine image ships one; refuse clearly if it is absent.
if ! command -v cargo >/dev/null 2>&1; then
  echo "install-deps: cargo not found; install Rust (rustup) first" >&2
  exit 1
fi
# rustfmt and clippy: the test command checks formatting and lints.
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    echo "install-deps: adding the $component component"
    rustup component add "$component"
  fi
done
echo "install-deps: done"
