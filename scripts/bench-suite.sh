#!/usr/bin/env bash
# The benchmark suite (bench/README.md, issue #19) on the device machine:
# unpacks the carried tile-run and runs scripts/bench-suite.py, which runs
# every case beside torch's vendor paths in this one run and writes
# suite.csv and suite.png to $OUT.
# Here:   cargo build --release -p tile-run &&
#         strip target/release/tile-run -o .carry/tile-run && xz -6 -T2 -f .carry/tile-run
# There:  bash scripts/bench-suite.sh [--only TEXT] [--skip TEXT] [--rounds R] [--quick] [--memcheck]
#         (device tool, carry .carry). Three rounds a case (the default)
#         take about 5.8 s a GEMM case, more than a device call's 600 s for
#         the whole suite: run it in two calls, `--only gemm` and
#         `--skip gemm`, and check the bars on both tables
#         (`python3 scripts/suite-bars.py A.csv B.csv`).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
PYTHONUNBUFFERED=1 python3 scripts/bench-suite.py /tmp/tile-run "$@"
