#!/usr/bin/env bash
# Side-by-side benchmark of strata's Leiden (internal/graphalgo) and leidenalg.
#
# Runs both on the shared test graphs and on a generated planted-partition graph of ~100k nodes
# and ~1M edges (written once by `go run ./bench/leiden gen`, then read by both sides), and
# prints modularity and time per run for each side and the time ratio ours/ref. Only the
# algorithm is timed on both sides, not parsing.
#
# Needs Go and Debian's python3-leidenalg, python3-igraph and python3-networkx:
#   apt-get install python3-leidenalg python3-igraph python3-networkx
#
# Environment:
#   SEEDS=5             runs per graph (seeds 0..SEEDS-1); Q is the best, time the mean
#   REF_ITERATIONS=-1   leidenalg n_iterations (-1 = until stable, the closest match to
#                       graphalgo's default; 2 is leidenalg's own default)
#   GRAPHS_DIR          shared graphs (default: ../shared/data/graphs next to the repository)
#   WORK_DIR            where the generated graph and raw results go (default: a temp dir)
#   ONLY_LARGE=1        skip the shared graphs
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
seeds=${SEEDS:-5}
ref_iterations=${REF_ITERATIONS:--1}
graphs_dir=${GRAPHS_DIR:-$root/../shared/data/graphs}
work=${WORK_DIR:-${TMPDIR:-/tmp}/strata-leiden-bench}
py=/usr/bin/python3
mkdir -p "$work"

if ! "$py" -c 'import leidenalg, igraph, networkx' 2>/dev/null; then
	echo "run.sh: $py lacks leidenalg/igraph/networkx;" \
		"install them with: apt-get install python3-leidenalg python3-igraph python3-networkx" >&2
	exit 1
fi

go build -o "$work/leiden" ./bench/leiden
large="$work/planted_n100000.edgelist"
if [[ ! -s $large ]]; then
	"$work/leiden" gen -o "$large"
fi

files=()
if [[ -z ${ONLY_LARGE:-} ]]; then
	if [[ -d $graphs_dir ]]; then
		for f in karate.edgelist football.gml lfr_n1000_mu0.1.gml lfr_n1000_mu0.3.gml lfr_n1000_mu0.5.gml; do
			[[ -f $graphs_dir/$f ]] && files+=("$graphs_dir/$f")
		done
	else
		echo "run.sh: shared graphs not found in $graphs_dir; running the generated graph only" >&2
	fi
fi
files+=("$large")

echo "seeds per graph: $seeds (Q = best, time = mean per run); leidenalg n_iterations=$ref_iterations" >&2
"$work/leiden" run -seeds "$seeds" "${files[@]}" >"$work/ours.jsonl"
"$py" bench/leiden/ref.py --seeds "$seeds" --iterations "$ref_iterations" "${files[@]}" >"$work/ref.jsonl"

"$py" - "$work/ours.jsonl" "$work/ref.jsonl" <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
ref = {r["graph"]: r for r in map(json.loads, open(sys.argv[2]))}
head = ("graph", "n", "m", "ours Q", "ref Q", "dQ", "ours k", "ref k", "ours s", "ref s", "ratio")
rows = []
for o in ours:
    r = ref[o["graph"]]
    rows.append((o["graph"], str(o["n"]), str(o["m"]), "%.4f" % o["q"], "%.4f" % r["q"],
                 "%+.4f" % (o["q"] - r["q"]), str(o["communities"]), str(r["communities"]),
                 "%.4f" % o["seconds"], "%.4f" % r["seconds"],
                 "%.3f" % (o["seconds"] / r["seconds"])))
w = [max(len(x[i]) for x in rows + [head]) for i in range(len(head))]
for row in [head] + rows:
    print("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(row)))
PY
