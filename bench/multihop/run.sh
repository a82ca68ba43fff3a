#!/usr/bin/env bash
# Ingests the shared multihop corpus into a fresh embedded store (offline), then evaluates recall
# of gold documents for each retrieval mode. Prints ingest wall time and peak memory (GNU time)
# and the recall table. Usage: bench/multihop/run.sh [DATA_DIR]
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
for mode in ${MODES:-naive local hi}; do
  echo "== eval $mode"
  /usr/bin/time -f "eval $mode: %e s wall, %M KiB peak RSS" ./bin/strata eval --log-level warn --data-dir "$dir" --questions "$data/questions.jsonl" --mode "$mode"
done
