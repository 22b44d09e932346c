#!/usr/bin/env bash
# Growth of dtsim's run time and memory with cluster size, per fidelity level (issue 18). Usage:
#   bench/sim_speed/growth.sh [BUILD_DIR] [LIMIT_S] [SIZES] [CSV] [LEVELS]
# One iteration of ResNet-50 (161 gradient tensors), WFBP, ring all-reduce, on two fabrics: the two-level fat tree
# of fat_tree_1024_a100_hdr (8-GPU DGX A100 nodes, 10 nodes per leaf: ring transfers inside and between nodes
# cost differently) and a star of 100 Gb/s links (every ring transfer costs the same). Prints one line per run:
# wall and user (CPU) seconds and peak RSS from /usr/bin/time, "limit" past LIMIT_S (default 600; larger sizes of that level
# and fabric are then not run), or dtsim's refusal; then
# per level and fabric the exponent k of time ~ GPUs^k fitted (least squares on logs) over the finished runs
# from 1,024 GPUs on, of wall and of user time. CSV (optional): finished runs are appended to it as
# fabric,level,gpus,wall_s,user_s,rss_mib (bench/sim_speed/growth.csv; plot_growth.py draws them). LEVELS: the
# fidelity levels to run (default "analytic flow message"). Wall-clock: run it with nothing else on the
# machine, or say what else ran; user time is the steadier figure on a shared machine.
set -uo pipefail
build=${1:-build}
limit=${2:-600}
sizes=${3:-"64 256 1024 4096 16384 65536 100000"}
csv=${4:+$(realpath "$4")}
levels=${5:-"analytic flow message"}
dtsim=$(realpath "$build/dtsim")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/dtsim-growth.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
common=(--set model.name=resnet50 --set strategy.scheduler=wfbp --set strategy.collective=ring
        --set output.timeline=false --set iterations=1 --out out)
fits=""
for fabric in fat_tree star; do
  for level in $levels; do
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
      rm -rf out  # dtsim reads an earlier run's report to remove its outputs: not part of this run
      timeout "$limit" /usr/bin/time -f "%e %U %M" -o time.txt "$dtsim" run "${common[@]}" "${platform[@]}" \
        --set workers="$gpus" --set strategy.fidelity="$level" >out.txt 2>err.txt
      code=$?
      if [ $code -eq 124 ]; then
        echo "$label: limit (over $limit s)"
        over=$gpus
      elif [ $code -ne 0 ]; then
        echo "$label: exit $code: $(grep -m1 'dtsim:' err.txt | cut -c1-240)"
      else
        read -r wall user rss <time.txt
        printf '%s: %8.2f s wall %8.2f s user %7.0f MiB RSS\n' "$label" "$wall" "$user" "$((rss / 1024))"
        [ "$gpus" -ge 1024 ] && points="$points $gpus $wall $user"
        [ -n "$csv" ] && echo "$fabric,$level,$gpus,$wall,$user,$((rss / 1024))" >>"$csv"
      fi
    done
    fits="$fits$(echo "$points" | awk -v f="$fabric" -v l="$level" '
      function slope(c,   i, sx, sy, sxx, sxy) {
        for (i = 0; i < n; i++) { sx += x[i]; sy += y[c, i]; sxx += x[i] * x[i]; sxy += x[i] * y[c, i] }
        return (n * sxy - sx * sy) / (n * sxx - sx * sx) }
      { n = 0; for (i = 1; i + 2 <= NF; i += 3) { x[n] = log($i); y[0, n] = log($(i + 1)); y[1, n] = log($(i + 2) > 0 ? $(i + 2) : 0.005); n++ }
        if (n < 2) { printf "%s %s: fewer than two finished runs from 1,024 GPUs on\n", f, l; exit }
        printf "%s %s: wall ~ GPUs^%.2f, user ~ GPUs^%.2f over %d runs from 1,024 GPUs on\n", f, l, slope(0), slope(1), n } ')
"
  done
done
printf '%s' "$fits"
