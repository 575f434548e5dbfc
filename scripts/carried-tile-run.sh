# Sourced by the device scripts that run tile-run, from the repository
# root: unpacks the carried .carry/tile-run.xz to /tmp/tile-run and points
# CUDA_HOME at the toolkit (compute-sanitizer, libdevice) unless it is set.
# On the device tool ($OUT set), everything printed from here on also goes
# to $OUT/log.txt as it is printed, Python unbuffered: a command that runs
# past its time limit still brings back what it printed (session 25 lost a
# whole run's output to a pipe that only printed at the end).
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  export PYTHONUNBUFFERED=1
  exec > >(tee -a "$OUT/log.txt") 2>&1
fi
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/tile-run.xz'), open('/tmp/tile-run','wb'))"
chmod +x /tmp/tile-run
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
