#!/usr/bin/env bash
# The benchmark suite (bench/README.md, issue #19) on the device machine:
# unpacks the carried tile-run and runs scripts/bench-suite.py, which runs
# every case beside torch's vendor paths in this one run and writes
# suite.csv and suite.png to $OUT.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/bench-suite.sh [--only TEXT] [--quick] [--memcheck]   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run "$@"
