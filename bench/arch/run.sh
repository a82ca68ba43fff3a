#!/usr/bin/env bash
# Measures ArchRAG's attributed-community hierarchy (ingest --arch) offline, on the multihop and
# mix corpora ($SHARED_DATA/{multihop,mix}, SHARED_DATA defaults to ../shared/data):
#   - index cost: a store is ingested without --arch, then re-ingested with --arch $ARCH (3),
#     which recomputes only the structure; the arch stage's time and the nodes and
#     relationships it adds are printed;
#   - multihop: recall@2/5/10 and mean context tokens of arch next to naive and hi
#     (bench/arch/modes) and BM25 over whole documents (bench/multihop/bm25.py);
#   - both corpora: arch mode's per-layer search (the default, layer 0 fused with full-text
#     search), the per-layer vector search alone and the layered descent (BenchmarkArchSearch:
#     search time per query, recall; mix has no gold documents, so its questions,
#     bench/query/questions.txt, only time the search).
# Usage: bench/arch/run.sh [OUT_DIR]   (a new or empty directory; a temporary one by default)
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
out=${1:-$(mktemp -d)}
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then echo "run.sh: $out is not empty" >&2; exit 2; fi
mkdir -p "$out"
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")/../.."
data=$(cd "${SHARED_DATA:-../shared/data}" && pwd)
arch=${ARCH:-3}
go build -o bin/strata ./cmd/strata
export STRATA_OFFLINE=1
# Questions of the mix corpus as eval lines; the gold id names no document, so recall is 0.
python3 -c 'import json,sys
for i, l in enumerate(open(sys.argv[1])):
    if l.strip(): print(json.dumps({"id": "m%d" % i, "question": l.strip(), "gold": ["-"]}))' \
  bench/query/questions.txt >"$out/mix-questions.jsonl"
for corpus in multihop mix; do
  store=$out/$corpus
  echo "== $corpus: ingest without --arch, then with --arch $arch"
  /usr/bin/time -f "ingest: %e s wall, %M KiB peak RSS" ./bin/strata ingest --log-level warn --json --data-dir "$store" "$data/$corpus/corpus.jsonl" >"$out/$corpus-ingest.json"
  /usr/bin/time -f "ingest --arch $arch: %e s wall, %M KiB peak RSS" ./bin/strata ingest --log-level warn --json --arch "$arch" --data-dir "$store" "$data/$corpus/corpus.jsonl" >"$out/$corpus-arch.json"
  python3 -c 'import json,sys
base, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n = base["store"]["nodes"]
print("graph: %d entities, %d summaries, %d communities; ingest %.1f s" % (n["entities"], n["summaries"], n["communities"], base["timings_ms"]["total"] / 1000))
print("arch stage: %.2f s of a %.2f s structure-only re-run" % (r["timings_ms"]["arch"] / 1000, r["timings_ms"]["total"] / 1000))
comms = sum(l["communities"] for l in r["arch"])
print("extra: %d ArchCommunity nodes (%s), %d ARCH_MEMBER_OF, %d ARCH_RELATED" % (comms,
  ", ".join("layer %d: %d over %d, largest %d" % (l["layer"], l["communities"], l["nodes"], l["largest"]) for l in r["arch"]),
  sum(l["nodes"] for l in r["arch"]), sum(l["links"] for l in r["arch"])))' "$out/$corpus-ingest.json" "$out/$corpus-arch.json"
done
echo "== multihop: recall and mean context tokens"
go run ./bench/arch/modes -data-dir "$out/multihop" -questions "$data/multihop/questions.jsonl" -modes "${MODES:-naive hi arch}"
python3 bench/multihop/bm25.py "$data/multihop/corpus.jsonl" "$data/multihop/questions.jsonl"
for corpus in multihop mix; do
  q=$data/multihop/questions.jsonl
  [ "$corpus" = mix ] && q=$out/mix-questions.jsonl
  echo "== $corpus: per-layer search (flat) vs layered descent"
  STRATA_ARCH_STORE=$out/$corpus STRATA_ARCH_QUESTIONS=$q go test ./retrieval -run '^$' -bench BenchmarkArchSearch -benchtime "${BENCHTIME:-5x}" | grep '^Benchmark'
done
