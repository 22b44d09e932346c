#!/usr/bin/env bash
# Growth of dtsim's run time and memory with cluster size, per fidelity level (issue 18). Usage:
#   bench/sim_speed/growth.sh [BUILD_DIR] [LIMIT_S] [SIZES] [CSV]
# One iteration of ResNet-50 (161 gradient tensors), WFBP, ring all-reduce, on two fabrics: the two-level fat tree
# of fat_tree_1024_a100_hdr (8-GPU DGX A100 nodes, 10 nodes per leaf: ring transfers inside and between nodes
# cost differently) and a star of 100 Gb/s links (every ring transfer costs the same). Prints one line per run:
# wall seconds and peak RSS from /usr/bin/time, "limit" past LIMIT_S (default 600; larger sizes of that level
# and fabric are then not run), or dtsim's refusal; then
# per level and fabric the exponent k of time ~ GPUs^k fitted (least squares on logs) over the finished runs
# from 1,024 GPUs on. CSV (optional): finished runs are appended to it as fabric,level,gpus,wall_s,rss_mib
# (bench/sim_speed/growth.csv; plot_growth.py draws them). Wall-clock: run it with nothing else on the machine,
# or say what else ran.
set -uo pipefail
build=${1:-build}
limit=${2:-600}
sizes=${3:-"64 256 1024 4096 16384 65536 100000"}
csv=${4:+$(realpath "$4")}
dtsim=$(realpath "$build/dtsim")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/dtsim-growth.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
common=(--set model.name=resnet50 --set strategy.scheduler=wfbp --set strategy.collective=ring
        --set output.timeline=false --set iterations=1 --out out)
fits=""
for fabric in fat_tree star; do
  for level in analytic flow message; do
    points=""
    over=""
    for gpus in $sizes; do
      if [ "$fabric" = fat_tree ]; then
        platform=(--set platform=fat_tree_1024_a100_hdr --set "platform.down=[10,$(((gpus + 79) / 80))]"
                  --set "platform.up=[1,4]")
      else
        sed "s/HOSTS/$gpus/" "$here/star.toml" >star.toml
        platform=(--set platform=star.toml)
      fi
      label=$(printf '%-8s %-8s %7d GPUs' "$fabric" "$level" "$gpus")
      if [ -n "$over" ]; then echo "$label: not run ($over GPUs ran past the limit)"; continue; fi
      timeout "$limit" /usr/bin/time -f "%e %M" -o time.txt "$dtsim" run "${common[@]}" "${platform[@]}" \
        --set workers="$gpus" --set strategy.fidelity="$level" >out.txt 2>err.txt
      code=$?
      if [ $code -eq 124 ]; then
        echo "$label: limit (over $limit s)"
        over=$gpus
      elif [ $code -ne 0 ]; then
        echo "$label: exit $code: $(grep -m1 'dtsim:' err.txt | cut -c1-240)"
      else
        read -r wall rss <time.txt
        printf '%s: %8.2f s wall %7.0f MiB RSS\n' "$label" "$wall" "$((rss / 1024))"
        [ "$gpus" -ge 1024 ] && points="$points $gpus $wall"
        [ -n "$csv" ] && echo "$fabric,$level,$gpus,$wall,$((rss / 1024))" >>"$csv"
      fi
    done
    fits="$fits$(echo "$points" | awk -v f="$fabric" -v l="$level" '{
      n = 0; for (i = 1; i < NF; i += 2) { x[n] = log($i); y[n] = log($(i + 1)); n++ }
      if (n < 2) { printf "%s %s: fewer than two finished runs from 1,024 GPUs on\n", f, l; exit }
      for (i = 0; i < n; i++) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i] }
      printf "%s %s: time ~ GPUs^%.2f over %d runs from 1,024 GPUs on\n", f, l, (n * sxy - sx * sy) / (n * sxx - sx * sx), n }')
"
  done
done
printf '%s' "$fits"
