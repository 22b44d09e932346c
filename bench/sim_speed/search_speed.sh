#!/usr/bin/env bash
# Cost of one plan candidate at frontier scale (issue 32 item 4): wall time, CPU time and peak RSS of one
# `dtsim run` or `dtsim collective` process at the analytic level. Usage: bench/sim_speed/search_speed.sh
# [BUILD_DIR] (or a dtsim binary); one process at a time; prints one line per case. Results in bench/RESULTS.md.
set -euo pipefail
dtsim=$(realpath "${1:-build}")
[ -d "$dtsim" ] && dtsim="$dtsim/dtsim"
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/dtsim-search-speed.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

measure() {  # measure LABEL COMMAND...: "LABEL: W s wall, U s user, R MiB peak RSS"
  local label=$1
  shift
  rm -rf out
  /usr/bin/time -f "%e %U %M" -o time.txt "$@" >out.txt 2>err.txt || { cat err.txt; exit 1; }
  read -r wall user rss <time.txt
  printf '%-64s %7.2f s wall %7.2f s user %6d MiB RSS\n' "$label" "$wall" "$user" "$((rss / 1024))"
}

# Data parallelism (the built-in ResNet-50 scenario) on Meta's Llama 3 cluster widened to 100,000 H100s.
measure "data parallel, ResNet-50, 100,000 GPUs (llama3_h100_24k x 12,500 nodes)" \
  "$dtsim" run --set platform=llama3_h100_24k --set platform.nodes=12500 --set workers=100000 \
  --set strategy.fidelity=analytic --set output.timeline=false --set iterations=1 --out out
# Llama 3 405B, tensor 8 x pipeline 16 x data 128 (Meta's 16,384-GPU layout), and data 1,024 on 131,072 GPUs.
for gpus in 16384 131072; do
  measure "Llama 3 405B TP8 PP16 DP$((gpus / 128)), $gpus GPUs (llama3_h100_24k)" \
    "$dtsim" run "$repo/scenarios/llama3_405b_unequal_stages.toml" --set platform=llama3_h100_24k \
    --set platform.nodes=$((gpus / 8)) --set workers=$gpus --set output.timeline=false --out out
done
# A 64 MiB ring all-reduce on a star of 100 Gb/s links.
sed "s/HOSTS/131072/" "$repo/bench/sim_speed/star.toml" >star.toml
for ranks in 16384 131072; do
  measure "dtsim collective, ring, 64 MiB, $ranks ranks, star, analytic" \
    "$dtsim" collective --platform star.toml --workers $ranks --sizes 64MiB --fidelity analytic
done
