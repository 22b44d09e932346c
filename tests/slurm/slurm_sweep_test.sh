#!/usr/bin/env bash
# Runs `dtsim sweep --slurm` against a real single-node Slurm (start_slurm.sh) that this script starts and stops
# itself. Usage: slurm_sweep_test.sh DTSIM_BINARY SOURCE_DIR. Exit 77 = skipped.
set -euo pipefail
dtsim=$1
source_dir=$2
source "$(dirname "$0")/start_slurm.sh"

cat >"$work/sweep.toml" <<TOML
base = "$source_dir/tests/sim/scenario/good/minimal.toml"
[set]
"strategy.fidelity" = "analytic"
[[axis]]
key = "workers"
values = [2, 4, 8]
[[axis]]
key = "strategy.scheduler"
values = ["wfbp", "mg_wfbp"]
TOML
cd "$work"
"$dtsim" sweep sweep.toml --slurm --shards 3 --wait
rows=$(($(wc -l < sweep-out/results.csv) - 1))
[ "$rows" -eq 6 ] || { echo "expected 6 result rows, found $rows"; cat sweep-out/results.csv; exit 1; }
grep -c ',ok,' sweep-out/results.csv | grep -qx 6 || { echo "not every point succeeded"; cat sweep-out/results.csv; exit 1; }
ls sweep-out/slurm-*_{0,1,2}.log >/dev/null
echo "slurm sweep: 6 points in 3 array tasks, merged"
