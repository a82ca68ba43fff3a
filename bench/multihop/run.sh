#!/usr/bin/env bash
# Ingests the shared multihop corpus into a fresh embedded store (offline), then evaluates recall
# of gold documents for each retrieval mode. Prints ingest wall time and peak memory (GNU time)
# and the recall table, with BM25 over whole documents (bm25.py) as the reference row.
# Usage: bench/multihop/run.sh [DATA_DIR]   (MODES="naive hi" to evaluate fewer modes)
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${SHARED_DATA:-../shared/data}/multihop
dir=${1:-$(mktemp -d)}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
go build -o bin/strata ./cmd/strata
export STRATA_OFFLINE=1
rm -rf "$dir"
echo "== ingest $data/corpus.jsonl into $dir"
/usr/bin/time -f "ingest: %e s wall, %M KiB peak RSS" ./bin/strata ingest --log-level warn --data-dir "$dir" "$data/corpus.jsonl"
./bin/strata status --data-dir "$dir" --log-level warn
echo "== re-ingest (nothing changed)"
/usr/bin/time -f "re-ingest: %e s wall, %M KiB peak RSS" ./bin/strata ingest --log-level warn --data-dir "$dir" "$data/corpus.jsonl" >/dev/null
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
for mode in ${MODES:-naive local global hi hi_local hi_global hi_bridge hi_nobridge}; do
  echo "== eval $mode"
  /usr/bin/time -f "eval $mode: %e s wall, %M KiB peak RSS" ./bin/strata eval --log-level warn --json \
    --data-dir "$dir" --questions "$data/questions.jsonl" --mode "$mode" |
    python3 -c 'import json, sys; r = json.load(sys.stdin)["recall"]; print("%-12s %.3f  %.3f  %.3f" % (sys.argv[1], r["recall@2"], r["recall@5"], r["recall@10"]))' "$mode" >>"$table"
done
echo "== recall of gold documents, side by side with BM25 over whole documents (bench/multihop/bm25.py)"
printf '%-12s %-6s %-6s %s\n' mode R@2 R@5 R@10
python3 bench/multihop/bm25.py "$data/corpus.jsonl" "$data/questions.jsonl" |
  sed -E 's/^bm25 \(documents\): recall@2 ([0-9.]+)  recall@5 ([0-9.]+)  recall@10 ([0-9.]+).*/bm25         \1  \2  \3/'
cat "$table"
