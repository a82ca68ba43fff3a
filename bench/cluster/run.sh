#!/usr/bin/env bash
# Side-by-side benchmark of HiIndex clustering: strata's cluster.Select against scikit-learn's
# GaussianMixture, both running HiRAG's search for the number of components (k = 1, 2, … up to
# MAX_K, early stop at a relative BIC change < 1e-3, lowest BIC wins) on the same generated
# 10,000×10 files, with the same covariance type. Prints the chosen k, the number of fits, the
# lowest BIC and the time of each side, and the time ratio ours/ref. Only the search is timed on
# both sides, not parsing.
#
# Data (written once by `go run ./bench/cluster gen`, then read by both sides):
#   blobs  8 well-separated, randomly rotated Gaussian blobs in 10 dimensions
#   embed  synthetic 384-d entity embeddings (topic mixtures plus noise) reduced to 10
#          dimensions by cluster.PCA, as HiIndex does; no clear cluster structure, so the
#          search usually runs to MAX_K
#
# Needs Go and Debian's python3-sklearn and python3-numpy:
#   apt-get install python3-sklearn python3-numpy
#
# Environment:
#   COVS="full diag"   covariance types to run
#   KINDS="blobs embed" data sets to run
#   MAX_K=50           largest number of components tried
#   N=10000            rows per data set
#   WORK_DIR           where the data and raw results go (default: a temp dir)
#   GOMAXPROCS         as usual; scikit-learn's BLAS threads follow OMP_NUM_THREADS
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
covs=${COVS:-full diag}
kinds=${KINDS:-blobs embed}
max_k=${MAX_K:-50}
n=${N:-10000}
work=${WORK_DIR:-${TMPDIR:-/tmp}/strata-cluster-bench}
py=/usr/bin/python3
mkdir -p "$work"

if ! "$py" -c 'import sklearn, numpy' 2>/dev/null; then
	echo "run.sh: $py lacks scikit-learn/numpy;" \
		"install them with: apt-get install python3-sklearn python3-numpy" >&2
	exit 1
fi

go build -o "$work/cluster" ./bench/cluster
files=()
for kind in $kinds; do
	f="$work/${kind}_n${n}_d10.txt"
	if [[ ! -s $f ]]; then
		"$work/cluster" gen -kind "$kind" -n "$n" -d 10 -o "$f"
	fi
	files+=("$f")
done

: >"$work/ours.jsonl"
: >"$work/ref.jsonl"
for cov in $covs; do
	echo "running $cov: strata ..." >&2
	"$work/cluster" run -cov "$cov" -max "$max_k" "${files[@]}" >>"$work/ours.jsonl"
	echo "running $cov: scikit-learn ..." >&2
	"$py" bench/cluster/ref.py --cov "$cov" --max "$max_k" "${files[@]}" >>"$work/ref.jsonl"
done

echo "GOMAXPROCS=${GOMAXPROCS:-$(nproc)}; max k $max_k; raw results in $work" >&2
"$py" - "$work/ours.jsonl" "$work/ref.jsonl" <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
ref = {(r["file"], r["cov"]): r for r in map(json.loads, open(sys.argv[2]))}
head = ("data", "cov", "ours k", "ref k", "ours fits", "ref fits", "ours BIC", "ref BIC",
        "ours s", "ref s", "ratio")
rows = []
for o in ours:
    r = ref[(o["file"], o["cov"])]
    rows.append((o["file"], o["cov"], str(o["k"]), str(r["k"]), str(o["fits"]), str(r["fits"]),
                 "%.6g" % o["bic"], "%.6g" % r["bic"], "%.3f" % o["seconds"],
                 "%.3f" % r["seconds"], "%.3f" % (o["seconds"] / r["seconds"])))
w = [max(len(x[i]) for x in rows + [head]) for i in range(len(head))]
for row in [head] + rows:
    print("  ".join(c.ljust(w[i]) if i < 2 else c.rjust(w[i]) for i, c in enumerate(row)))
PY
