#!/usr/bin/env bash
# GPU verification on the device machine (see BENCHMARKS.md): unpacks the
# carried tile-run, then runs every example on the GPU against numpy
# references, plainly and under compute-sanitizer memcheck.
# Here:   strip target/debug/tile-run -o .carry/tile-run && xz -6 -T4 -f .carry/tile-run
#         (optionally the embed example too, which then runs first:
#          cargo build -p tile-run --example embed &&
#          strip target/debug/examples/embed -o .carry/embed && xz -6 -T4 -f .carry/embed)
# There:  [PASSES=plain|memcheck] bash scripts/gpu-check.sh   (device tool, carry .carry)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/carried-tile-run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
if [ -f .carry/embed.xz ]; then
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/embed.xz'), open('/tmp/embed','wb'))"
  chmod +x /tmp/embed && /tmp/embed || status=1
fi
# PASSES: which of the two to run (each takes most of a device call's
# 600 s: run them in separate calls), both by default.
passes=${PASSES:-"plain memcheck"}
for p in $passes; do
  case $p in plain|memcheck) ;; *) echo "gpu-check.sh: PASSES takes plain and memcheck, not '$p'" >&2; exit 1;; esac
done
case " $passes " in *" plain "*) python3 scripts/gpu_check.py /tmp/tile-run --large || status=1;; esac
case " $passes " in *" memcheck "*) python3 scripts/gpu_check.py /tmp/tile-run --memcheck || status=1;; esac
exit $status
