#!/bin/bash
# Assembles the folder's gemm_{atb,ab}_{old,new,patchA,patchB}.ptx (ptxas -arch=sm_90a -v), disassembles them
# (NVDISASM, default the nvdisasm 13 this session found at /tmp/ptxdiff/site2), and prints, for each kernel's
# shifted-copy K loop, the interior path's opcode counts (path.py), its split at the load / wait / barrier /
# wgmma / store events with the control bits' stall sums (segments.py), and the one-warp latency model
# (model.py) at L = 300/500/700 cycles. The loop head and the labels an interior tile's path takes are
# those ptxas 12.9 gave (nvdisasm numbering); another ptxas needs them looked up again (cfg.py).
# usage: bash tools/loops.sh [WORKDIR]   (run from the experiment folder)
set -e
HERE=$(cd "$(dirname "$0")/.." && pwd); T=$HERE/tools; W=${1:-$(mktemp -d)}
mkdir -p "$W"
CUDA_HOME=${CUDA_HOME:-$(python3 -c "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])")}
NVDISASM=${NVDISASM:-/tmp/ptxdiff/site2/nvidia/cu13/bin/nvdisasm}
# kernel  loop-head  taken-labels(interior tile)
while read k head taken; do
  $CUDA_HOME/bin/ptxas -arch=sm_90a -v $HERE/$k.ptx -o $W/$k.cubin 2>&1 | grep -o "Used [0-9]* registers\|[0-9]* bytes spill stores" | tr '\n' ' ' | sed "s/^/$k: /"; echo
  $NVDISASM -c $W/$k.cubin 2>/dev/null > $W/$k.nvd
  NVDISASM=$NVDISASM python3 $T/ctrl.py $W/$k.cubin $head > $W/$k.ctl
  python3 $T/path.py $W/$k.nvd $head $taken | sed 's/^/  /'
  python3 $T/segments.py $W/$k.ctl $taken | sed 's/^/  /'
  python3 $T/model.py $W/$k.ctl $taken 300 500 700 | sed 's/^/  model /'
done <<'TABLE'
gemm_atb_old .L_x_90 .L_x_68,.L_x_71,.L_x_74,.L_x_77,.L_x_80,.L_x_83,.L_x_86,.L_x_89
gemm_atb_new .L_x_82 .L_x_67,.L_x_75
gemm_atb_patchA .L_x_82 .L_x_67,.L_x_75
gemm_atb_patchB .L_x_84 .L_x_none
gemm_ab_old .L_x_90 .L_x_68,.L_x_71,.L_x_74,.L_x_77,.L_x_80,.L_x_83,.L_x_86,.L_x_89
gemm_ab_new .L_x_86 .L_x_66,.L_x_67,.L_x_68,.L_x_69,.L_x_71,.L_x_79
gemm_ab_patchA .L_x_86 .L_x_67,.L_x_74,.L_x_75,.L_x_76,.L_x_77,.L_x_79
gemm_ab_patchB .L_x_88 .L_x_none
TABLE
echo "listings in $W"
