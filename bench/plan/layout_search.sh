#!/usr/bin/env bash
# Layout search speed (bench/RESULTS.md, "Layout search"): runs a plan with search.layout and prints its candidates,
# how many were simulated, the wall and CPU time (of dtsim plan and of its dtsim run children) and candidates per
# second. Usage: bash bench/plan/layout_search.sh BUILD_DIR PLAN.toml [JOBS]
set -euo pipefail
build=${1:?build folder}; plan=${2:?plan file}; jobs=${3:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
/usr/bin/time -f '%U %S %M' -o "$out/time" "$build/dtsim" plan "$plan" --out "$out/plan" -j "$jobs" > "$out/stdout" 2> "$out/stderr" || true
end=$(date +%s.%N)
python3 - "$out" "$start" "$end" <<'PY'
import json, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
user, system, rss = open(out + "/time").read().split()
plan = json.load(open(out + "/plan/plan.json"))
c = plan["candidates"]
simulated = sum(1 for x in c if x["pruned"] == "")
by = {}
for x in c:
    by[x["pruned"] or "simulated"] = by.get(x["pruned"] or "simulated", 0) + 1
wall = end - start
print(f"candidates {len(c)} ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))})")
print(f"wall {wall:.1f} s, CPU {float(user) + float(system):.1f} s (user + sys, dtsim plan and its runs), peak RSS {int(rss) / 1024:.0f} MiB")
print(f"{len(c) / wall:.1f} candidates/s; {simulated / wall:.2f} simulated/s")
PY
