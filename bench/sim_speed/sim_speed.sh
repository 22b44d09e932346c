#!/usr/bin/env bash
# Simulation speed and memory of dtsim (issue targets in brackets). Usage: bench/sim_speed/sim_speed.sh
# [BUILD_DIR]; prints one line per case: wall seconds and peak RSS from /usr/bin/time. Run it alone on the
# machine: the figures are wall-clock.
set -euo pipefail
build=${1:-build}
dtsim=$(realpath "$build/dtsim")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/dtsim-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

measure() {  # measure LABEL COMMAND...: prints "LABEL: W s wall, R MiB peak RSS"
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o time.txt "$@" >out.txt 2>err.txt || { cat err.txt; exit 1; }
  read -r wall rss <time.txt
  printf '%-72s %8.2f s wall %8.0f MiB RSS\n' "$label" "$wall" "$((rss / 1024))"
}

sed "s/HOSTS/256/" "$here/star.toml" >star256.toml
sed "s/HOSTS/64/" "$here/star.toml" >star64.toml

# Message level at p = 256: ring all-reduce, 4 collectives of 100 MB, 4 x 256 x 2 x 255 messages [>= 400 k/s].
measure "message level, ring, p=256, 4 x 100 MB (522,240 messages)" \
  "$dtsim" collective --platform star256.toml --algorithm ring --workers 256 --sizes 100MB,100MB,100MB,100MB \
  --fidelity message
awk -v w="$wall" 'BEGIN { printf "  -> %.0f k messages/s\n", 522240 / w / 1000 }'

# The same messages from a plain S4U program (s4u_ring.cpp: no plans, no accounting), same platform and network
# settings (platform::network_settings of alpha_beta) [dtsim's message rate >= the plain program's].
"$dtsim" platform show star256.toml --xml >star256.xml
measure "plain S4U program, ring, p=256, 4 x 100 MB (522,240 messages)" \
  "$(realpath "$build/bench/sim_speed/s4u_ring")" star256.xml 256 100000000 4 --log=root.thresh:warning \
  --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:1e30 --cfg=network/optim:Full
awk -v w="$wall" 'BEGIN { printf "  -> %.0f k messages/s\n", 522240 / w / 1000 }'
grep -o 'simulated [0-9.e-]* s' out.txt | sed 's/^/  -> /'

# ResNet-50 (161 tensors), WFBP, ring, on a fat tree [flow: 1,024 workers < 5 s and < 1 GiB; 4,096 < 60 s].
resnet=("$dtsim" run --set model.name=resnet50 --set strategy.scheduler=wfbp --set strategy.collective=ring
        --set output.timeline=false --out out --set platform=fat_tree_1024_a100_hdr)
measure "ResNet-50 WFBP ring, 1,024 workers, fat tree, flow, 1 iteration" \
  "${resnet[@]}" --set workers=1024 --set strategy.fidelity=flow --set iterations=1
measure "ResNet-50 WFBP ring, 1,024 workers, fat tree, analytic, 100 iterations" \
  "${resnet[@]}" --set workers=1024 --set strategy.fidelity=analytic --set iterations=100
awk -v w="$wall" 'BEGIN { printf "  -> %.1f ms per iteration (whole run / 100)\n", w * 1000 / 100 }'
measure "ResNet-50 WFBP ring, 4,096 workers, fat tree (512 nodes of 8), flow, 1 iteration" \
  "${resnet[@]}" --set workers=4096 --set strategy.fidelity=flow --set iterations=1 \
  --set platform.down=[8,64] --set platform.up=[1,4]

# dtsim's message level against SMPI on the same ring all-reduce [dtsim >= 3x faster].
if command -v smpirun >/dev/null; then
  smpicc -O2 "$here/../../tests/smpi/allreduce.c" -o allreduce 2>/dev/null
  "$dtsim" platform show star64.toml --xml >star64.xml
  for i in $(seq 0 63); do echo "gpu$i"; done >hosts64
  measure "dtsim message level, ring, p=64, 64 MiB" \
    "$dtsim" collective --platform star64.toml --algorithm ring --workers 64 --sizes 64MiB --fidelity message
  ours=$wall
  measure "SMPI (smpirun, allreduce:lr), p=64, 64 MiB" \
    smpirun -np 64 -platform star64.xml -hostfile hosts64 --cfg=network/model:CM02 --cfg=network/crosstraffic:0 \
    --cfg=network/TCP-gamma:1e30 --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=smpi/allreduce:lr \
    --log=root.thres:critical ./allreduce 67108864
  awk -v a="$ours" -v b="$wall" 'BEGIN { printf "  -> dtsim is %.1fx faster\n", b / a }'
fi
