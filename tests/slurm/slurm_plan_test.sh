#!/usr/bin/env bash
# Runs `dtsim plan --slurm --shards 3 --wait` against a real single-node Slurm (start_slurm.sh): three array tasks
# search their shards, the merge writes the answer, and it is the local run's plan.json byte for byte.
# Usage: slurm_plan_test.sh DTSIM_BINARY SOURCE_DIR. Exit 77 = skipped.
set -euo pipefail
dtsim=$1
source_dir=$2
source "$(dirname "$0")/start_slurm.sh"

for file in scale_out_plan.toml closed_form_base.toml one_gpu_nodes.toml; do
  cp "$source_dir/tests/sim/plan/$file" "$work/"
done
mkdir -p "$work/cluster" "$work/local"
(cd "$work/cluster" && "$dtsim" plan ../scale_out_plan.toml --out out --slurm --shards 3 --wait -j 1 >stdout.txt 2>stderr.txt) ||
  { echo "the job array or its merge failed"; cat "$work"/cluster/*.txt "$work"/cluster/out/slurm-*.log; exit 1; }
(cd "$work/local" && "$dtsim" plan ../scale_out_plan.toml --out out -j 2 >stdout.txt 2>/dev/null)
ls "$work"/cluster/out/slurm-*_{0,1,2}.log >/dev/null
ls "$work"/cluster/out/shards/shard-{0,1,2}-of-3.json >/dev/null
grep -q "all 3 shards of the job array have finished" "$work/cluster/stderr.txt" || { cat "$work/cluster/stderr.txt"; exit 1; }
cmp "$work/cluster/out/plan.json" "$work/local/out/plan.json" || { echo "the merged answer differs from the local one"; exit 1; }
diff <(sed -n '/^Recommended: /,$p' "$work/cluster/stdout.txt") "$work/local/stdout.txt"
echo "slurm plan: 3 array tasks, merged into the local answer byte for byte"
