#!/usr/bin/env bash
# Query latency of fresh `strata query --json` processes on a real-size store. Ingests the mix
# corpus ($SHARED_DATA/mix/corpus.jsonl, ~20 k entities) offline into STORE_DIR (unless it already
# holds a store), then runs every question of bench/query/questions.txt once per mode as a fresh
# process (--context-only) and prints, per mode, p50/p95 of the wall-clock time of the whole
# process and of retrieval alone (timings_ms.retrieve), and the peak RSS (GNU time); then the
# same questions against one `strata serve` (bench/serve/latency.py, SERVE_ROUNDS=3 times each;
# SERVE=0 skips it): p50/p95 per request at the client and the server's peak RSS.
# Usage: bench/query/run.sh [STORE_DIR]   (MODES="naive hi" for fewer modes, ROUNDS=3 to repeat,
# STRATA=path/to/strata to time another build)
# STORE_DIR is kept (the script deletes nothing it did not create); without it a temporary
# directory is used and removed at the end. With SCALE=10 the corpus is first multiplied by
# gen_corpus.py (copies with systematically renamed proper nouns, ~10x the entities).
set -euo pipefail
tmpdir=
trap 'rm -rf "$tmpdir"' EXIT
case ${1:-} in -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
if [ $# -ge 1 ]; then dir=$1; case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
else dir=$(mktemp -d); tmpdir=$dir; fi
cd "$(dirname "$0")/../.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
if [ -z "${STRATA:-}" ]; then go build -o bin/strata ./cmd/strata; STRATA=./bin/strata; fi
export STRATA_OFFLINE=1
corpus=${CORPUS:-${SHARED_DATA:-../shared/data}/mix/corpus.jsonl}
if [ "${SCALE:-1}" != 1 ]; then
  scaled=$(mktemp); trap 'rm -f "$scaled"; rm -rf "$tmpdir"' EXIT
  python3 bench/query/gen_corpus.py "$corpus" "$SCALE" >"$scaled"
  corpus=$scaled
fi
if [ ! -f "$dir/strata.db" ]; then
  echo "== ingest $corpus (x${SCALE:-1}) into $dir"
  /usr/bin/time -f "ingest: %e s wall, %M KiB peak RSS" "$STRATA" ingest --log-level warn --data-dir "$dir" "$corpus" >/dev/null
fi
"$STRATA" status --data-dir "$dir" --log-level warn | grep -E '^  (chunks|entities|communities) ' || true
out=$(mktemp); trap 'rm -f "$out" ${scaled:-}; rm -rf "$tmpdir"' EXIT
printf '%-12s %8s %8s %10s %10s %12s\n' mode p50_ms p95_ms ret_p50 ret_p95 peak_rss_MiB
for mode in ${MODES:-naive local global hi}; do
  : >"$out.times"
  for _ in $(seq "${ROUNDS:-1}"); do
    while IFS= read -r q; do
      [ -n "$q" ] || continue
      start=$(date +%s%N)
      /usr/bin/time -o "$out.rss" -f '%M' "$STRATA" query --log-level warn --json --context-only \
        --data-dir "$dir" --mode "$mode" "$q" >"$out"
      end=$(date +%s%N)
      ret=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["timings_ms"]["retrieve"])' "$out")
      echo "$(( (end - start) / 1000000 )) $ret $(cat "$out.rss")" >>"$out.times"
    done <bench/query/questions.txt
  done
  python3 - "$mode" "$out.times" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[2]) if l.strip()]
def pct(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]
wall = [float(r[0]) for r in rows]; ret = [float(r[1]) for r in rows]; rss = [int(r[2]) for r in rows]
print("%-12s %8.0f %8.0f %10.0f %10.0f %12.0f" % (sys.argv[1], pct(wall, 50), pct(wall, 95), pct(ret, 50), pct(ret, 95), max(rss) / 1024))
PY
  rm -f "$out.times" "$out.rss"
done
if [ "${SERVE:-1}" != 0 ]; then
  echo "== strata serve"
  FRESH=0 ROUNDS=${SERVE_ROUNDS:-3} python3 bench/serve/latency.py "$STRATA" "$dir" bench/query/questions.txt 100 "${MODES:-naive local global hi}"
fi
