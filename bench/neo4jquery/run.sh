#!/usr/bin/env bash
# Query latency on Neo4j next to the embedded store, on the mix corpus ($SHARED_DATA/mix, ~20 k
# entities), with the questions of bench/query/questions.txt. Needs NEO4J_URI (and NEO4J_USERNAME,
# NEO4J_PASSWORD) naming a database that holds the corpus (ingested offline when it holds no
# entity) and ingests it offline into EMBEDDED_DIR when that holds no store.
# Prints, per mode, the p50 of `strata serve` requests (bench/serve/latency.py, ROUNDS times each
# question, after a warm-up request; on Neo4j once GET /healthz says the server has loaded its
# copies, which it does in the background after it starts) on each store and the ratio Neo4j /
# embedded; then the wall time of fresh `strata query --json --context-only` processes in hi
# mode on each store: the first and the p50 of the rest (on Neo4j, the first writes the vector
# snapshots into an empty data directory, the rest read them).
# With CONTEXTS=DIR it writes every mode's context of every question on Neo4j (query --json
# --context-only: context and context_text), from fresh processes and from strata serve, into DIR
# (contexts.py); with BASELINE=DIR it compares them with those of an earlier run and fails on
# any difference. With RTT=20ms the fresh Neo4j processes run once more through
# bench/neo4jquery/rttproxy, which adds that round trip to every exchange with the server, as a
# server elsewhere on the network would (their data directory warm from the first pass).
# Usage: bench/neo4jquery/run.sh EMBEDDED_DIR  (MODES="hi naive" for fewer, ROUNDS=2,
# FRESH_ROUNDS=1 passes over the questions, STRATA=path/to/strata to time another build)
set -euo pipefail
case ${1:-} in ''|-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
[ -n "${NEO4J_URI:-}" ] || { echo "set NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD)" >&2; exit 2; }
dir=$1; case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
cd "$(dirname "$0")/../.."
if [ -z "${STRATA:-}" ]; then go build -o bin/strata ./cmd/strata; STRATA=./bin/strata; fi
export STRATA_OFFLINE=1
corpus=${CORPUS:-${SHARED_DATA:-../shared/data}/mix/corpus.jsonl}
questions=bench/query/questions.txt
modes=${MODES:-hi global lca local naive}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

emb() { NEO4J_URI= "$STRATA" "$@" --data-dir "$dir"; }
entities() { "$@" status --json --log-level warn | python3 -c 'import json,sys; print(json.load(sys.stdin)["store"]["nodes"]["entities"])'; }
if [ ! -f "$dir/strata.db" ]; then
  echo "== ingest $corpus into $dir"; emb ingest --log-level warn "$corpus" >/dev/null
fi
if [ "$(entities "$STRATA")" = 0 ]; then
  echo "== ingest $corpus into $NEO4J_URI"; "$STRATA" ingest --log-level warn "$corpus" >/dev/null
fi

echo "== strata serve, p50 ms over ${ROUNDS:-2}x $(grep -c . $questions) questions per mode (load $(cut -d' ' -f1 /proc/loadavg))"
NEO4J_URI= FRESH=0 ROUNDS=${ROUNDS:-2} JSON_OUT=$tmp/emb.json \
  python3 bench/serve/latency.py "$STRATA" "$dir" $questions 100 "$modes" >/dev/null
NEO4J=1 FRESH=0 WAIT_WARM=1 ROUNDS=${ROUNDS:-2} JSON_OUT=$tmp/neo.json \
  python3 bench/serve/latency.py "$STRATA" "$dir" $questions 100 "$modes" >/dev/null

fresh() { # fresh hi processes over the questions, FRESH_ROUNDS times: wall ms per line
  for _ in $(seq "${FRESH_ROUNDS:-1}"); do
    while IFS= read -r q; do
      [ -n "$q" ] || continue
      start=$(date +%s%N)
      "$@" query --log-level warn --json --context-only --mode hi "$q" >/dev/null
      echo $(( ($(date +%s%N) - start) / 1000000 ))
    done <$questions
  done
}
# A data directory of their own: the first process loads the vector snapshots, the rest read them.
neo() { "$STRATA" "$@" --data-dir "$tmp/neo4j-data"; }
fresh emb >"$tmp/emb.fresh"
fresh neo >"$tmp/neo.fresh"
if [ -n "${RTT:-}" ]; then
  go build -o "$tmp/rttproxy" ./bench/neo4jquery/rttproxy
  hostport=${NEO4J_URI#*://}; hostport=${hostport%%/*}
  "$tmp/rttproxy" -listen 127.0.0.1:7787 -to "$hostport" -rtt "$RTT" & proxy=$!
  trap 'kill $proxy 2>/dev/null; rm -rf "$tmp"' EXIT
  sleep 0.2
  NEO4J_URI=bolt://127.0.0.1:7787 fresh neo >"$tmp/rtt.fresh"
fi

python3 - "$tmp" "$modes" <<'PY'
import json, statistics, sys
tmp, modes = sys.argv[1], sys.argv[2].split()
emb, neo = (json.load(open(f"{tmp}/{b}.json")) for b in ("emb", "neo"))
print(f"{'mode':8} {'embedded':>9} {'neo4j':>9} {'ratio':>6}")
for m in modes:
    e, n = emb[m]["strata serve"], neo[m]["strata serve"]
    print(f"{m:8} {e:9.1f} {n:9.1f} {n / e:6.2f}")
print("fresh hi processes, ms: first, p50 of the rest")
names = {"emb": "embedded", "neo": "neo4j", "rtt": "neo4j+rtt"}
for b in names:
    try:
        xs = [float(l) for l in open(f"{tmp}/{b}.fresh") if l.strip()]
    except FileNotFoundError:
        continue
    print(f"{names[b]:9} {xs[0]:8.0f} {statistics.median(xs[1:]):9.0f}")
PY

if [ -n "${CONTEXTS:-}" ]; then
  python3 bench/neo4jquery/contexts.py "$STRATA" "$dir" $questions "$CONTEXTS" "$modes"
  echo "contexts written to $CONTEXTS"
  if [ -n "${BASELINE:-}" ]; then
    if diff -rq "$BASELINE" "$CONTEXTS"; then echo "contexts identical to $BASELINE"
    else echo "contexts differ from $BASELINE" >&2; exit 1; fi
  fi
fi
