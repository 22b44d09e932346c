#!/usr/bin/env bash
# Cross-checks dtsim's message level against SimGrid's own MPI (SMPI) running the same all-reduce algorithms
# on the same platform with pure alpha-beta settings. Usage: smpi_crosscheck.sh DTSIM_BINARY SOURCE_DIR
# [RANKS] [SIZES] [PAIRS] [PLATFORM]; SIZES = comma-separated byte counts, PAIRS = dtsim:smpi algorithm names,
# PLATFORM = a built-in platform (default: a star of RANKS hosts, 12.5 GB/s and 5 us links). Exit 77 = skipped (no smpicc). Differences
# above 0.1 % fail. SMPI adds a 16-byte envelope to every message, which accounts for what remains.
set -euo pipefail
dtsim=$1
source_dir=$2
ranks=${3:-16}
sizes=${4:-16777216}
pairs=${5:-ring:lr rabenseifner:rab recursive_doubling:rdb}
command -v smpicc >/dev/null && command -v smpirun >/dev/null || { echo "skipped: smpicc/smpirun not installed (libsimgrid-dev)"; exit 77; }
work=$(mktemp -d /tmp/dtsim-smpi.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
smpicc -O2 "$source_dir/tests/smpi/allreduce.c" -o allreduce 2>smpicc.log || { cat smpicc.log; exit 1; }
platform=${6:-star.toml}
cat >star.toml <<TOML
name = "smpi-star"
topology = "star"
hosts = $ranks
[link]
bandwidth = "12.5GBps"
latency = "5us"
TOML
"$dtsim" platform show "$platform" --xml >star.xml
for i in $(seq 0 $((ranks - 1))); do echo "gpu$i"; done >hosts
status=0
for bytes in ${sizes//,/ }; do
  for pair in $pairs; do
    algorithm=${pair%%:*}
    smpi=${pair##*:}
    ours=$("$dtsim" collective --platform "$platform" --algorithm "$algorithm" --workers "$ranks" --sizes "${bytes}B" \
             --fidelity message --format csv | tail -n 1 | awk -F, '{print $NF}')
    theirs=$(smpirun -np "$ranks" -platform star.xml -hostfile hosts \
               --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:1e30 \
               --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=smpi/allreduce:"$smpi" \
               --log=root.thres:critical ./allreduce "$bytes" 2>smpirun.log | tail -n 1)
    difference=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; printf "%.6f", 100 * d }')
    echo "p=$ranks $bytes B $algorithm ($smpi): dtsim $ours s, SMPI $theirs s, difference $difference %"
    awk -v d="$difference" 'BEGIN { exit !(d <= 0.1) }' || status=1
  done
done
exit $status
