# Sourced by the device scripts (bench-gemm.sh, compare-configs.sh,
# profile-gemm.sh): unpacks the carried tile-bench to /tmp/tile-bench and
# puts cuBLAS on the library path (the toolkit's, else a pip wheel's; it is
# loaded at run time).
# (or takes it from .carry/pair.tar.xz, carried with a tile-run).
if [ -f .carry/tile-bench.xz ]; then
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('.carry/tile-bench.xz'), open('/tmp/tile-bench','wb'))"
else
  tar xJf .carry/pair.tar.xz -C /tmp tile-bench
fi
chmod +x /tmp/tile-bench
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:$(python3 -c 'import nvidia, os; print(":".join(os.path.join(p, d, "lib") for p in nvidia.__path__ for d in ("cublas", "cu13")))' 2>/dev/null):${LD_LIBRARY_PATH:-}"
