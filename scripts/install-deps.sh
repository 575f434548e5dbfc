#!/usr/bin/env bash
# Installs everything tile needs on a fresh Debian machine: LLVM/MLIR 22 and
# the C libraries that mlir-sys links statically, plus lit (llvm-22-tools
# ships FileCheck, lit.py is taken from PyPI when missing).
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

# lit: Debian ships it as python3-lit only in newer releases; PyPI's `lit`
# is the same program.
if ! command -v lit >/dev/null 2>&1 && ! python3 -c 'import lit' >/dev/null 2>&1; then
  echo "install-deps: installing lit from PyPI"
  python3 -m pip install --quiet lit
fi

# Rust toolchain: the machine image ships one; refuse clearly if it is absent.
if ! command -v cargo >/dev/null 2>&1; then
  echo "install-deps: cargo not found; install Rust (rustup) first" >&2
  exit 1
fi
echo "install-deps: done"
