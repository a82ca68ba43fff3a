#!/usr/bin/env bash
# Query latency of strata serve against a fresh `strata query` process, per mode (p50 / p95 ms,
# bench/serve/latency.py), on the README demo corpus (testdata) and the shared multihop set
# ($SHARED_DATA/multihop, SHARED_DATA defaults to ../shared/data), each ingested offline into a
# temporary store. N questions per corpus (default 20), MODES (default "hi naive").
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o bin/strata ./cmd/strata
export STRATA_OFFLINE=1 NEO4J_URI=
data=${SHARED_DATA:-../shared/data}
for set in "testdata testdata/corpus testdata/questions.jsonl" \
           "multihop $data/multihop/corpus.jsonl $data/multihop/questions.jsonl"; do
  read -r name corpus questions <<<"$set"
  echo "== $name"
  ./bin/strata ingest --log-level warn --data-dir "$tmp/$name" "$corpus" >/dev/null
  python3 bench/serve/latency.py bin/strata "$tmp/$name" "$questions" "${N:-20}" "${MODES:-hi naive}"
done
