# Sourced by the device scripts that run tile-run, from the repository
# root: unpacks the carried .carry/tile-run.xz to /tmp/tile-run and points
# CUDA_HOME at the toolkit (compute-sanitizer, libdevice) unless it is set.
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/tile-run.xz'), open('/tmp/tile-run','wb'))"
chmod +x /tmp/tile-run
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
