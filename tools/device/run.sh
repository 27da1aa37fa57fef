#!/bin/bash
# On a lent GPU machine (the device tool runs this in a copy of the working tree, .devcarry/ carried;
# see tools/device/pack.sh): the CUDA tests, then optionally `checkmate bench --quick` per placement.
#   bash tools/device/run.sh                      # environment + tests/hooks/test_cuda.py
#   BENCH="split two" bash tools/device/run.sh    # + bench with --placement split, and on 2 CPUs (taskset)
#   NOCUDA=1 BENCH=split BENCH_ARGS=--switch-arg=--send-order=frame bash tools/device/run.sh
# Everything it prints lands in $OUT too (env.txt, cuda.txt, bench_<mode>.txt/.json).
R=$PWD
C=$R/.devcarry
OUT=${OUT:-$R/.devout}
mkdir -p "$OUT"
export PATH=$C/bin:$PATH LD_LIBRARY_PATH=$C/lib PYTHONPATH=$R:$C/py PYTHONUNBUFFERED=1
chmod +x "$C"/bin/* 2>/dev/null
{ nproc; python3 -V; python3 -c "import torch, grpc, google.protobuf as pb; print('torch', torch.__version__, 'grpc', grpc.__version__, 'protobuf', pb.__version__, 'cuda', torch.cuda.is_available())"
  python3 -c "import mininet.net, p4.v1.p4runtime_pb2, scapy.all; print('testbed imports ok')"; nvidia-smi -L; } 2>&1 | tee "$OUT/env.txt"
if [ -z "${NOCUDA:-}" ]; then
  timeout "${CUDA_TIMEOUT:-240}" python3 -m pytest -q -rA -p no:cacheprovider tests/hooks/test_cuda.py 2>&1 | tee "$OUT/cuda.txt" | tail -40
fi
for mode in ${BENCH:-}; do
  if [ "$mode" = split ]; then pre=""; args="--placement split"; else pre="taskset -c 0,1"; args="--placement shared"; fi
  timeout "${BENCH_TIMEOUT:-200}" $pre python3 -m checkmate.cli bench --quick --no-summary --no-progress $args ${BENCH_ARGS:-} \
      --out "$R/results/device_$mode" > "$OUT/bench_$mode.txt" 2>&1
  echo "bench $mode rc=$?" | tee -a "$OUT/bench_$mode.txt"
  tail -45 "$OUT/bench_$mode.txt"
  cp "$R/results/device_$mode/bench.json" "$OUT/bench_$mode.json" 2>/dev/null || true
done
