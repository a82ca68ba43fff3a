#!/usr/bin/env bash
# Ingests a corpus (the shared multihop set by default) into a fresh embedded store (offline), then evaluates recall
# of gold documents and the mean context tokens for each retrieval mode. Prints ingest wall time and peak memory (GNU time)
# and the recall table, with BM25 over whole documents (bm25.py) as the reference row.
# Usage: bench/multihop/run.sh [STORE_DIR]   (MODES="naive hi" to evaluate fewer modes;
# INGEST_FLAGS="--arch 3" MODES="naive hi arch" to build and evaluate the attributed communities)
# STORE_DIR is where the store is built and kept: a new or empty directory (the script deletes
# nothing it did not create). Without it, a temporary directory is used and removed at the end.
# The corpus is $CORPUS (a .jsonl file or a folder) with questions $QUESTIONS, by default
# $SHARED_DATA/multihop/{corpus,questions}.jsonl (SHARED_DATA defaults to ../shared/data);
# CORPUS=testdata/corpus QUESTIONS=testdata/questions.jsonl runs it on the README demo corpus.
set -euo pipefail
tmpdir= # a store directory this script created, removed at exit
trap 'rm -rf "$tmpdir"' EXIT
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
case $# in
  0) dir=$(mktemp -d); tmpdir=$dir ;;
  1) case $1 in -h|--help) usage ;; -*) echo "run.sh: unknown option $1" >&2; usage ;; esac
     dir=$1
     if [ -e "$dir" ] && { [ ! -d "$dir" ] || [ -n "$(ls -A "$dir")" ]; }; then
       if [ -f "$dir/strata.db" ]; then
         echo "run.sh: $dir already holds a strata store; give a new or empty directory (or remove it yourself)" >&2
       else
         echo "run.sh: $dir is not an empty directory (the corpus is \$CORPUS; the argument is where the store goes)" >&2
       fi
       exit 2
     fi
     case $dir in /*) ;; *) dir=$PWD/$dir ;; esac ;; # the script changes directory below
  *) usage ;;
esac
cd "$(dirname "$0")/../.."
data=${SHARED_DATA:-../shared/data}/multihop
corpus=${CORPUS:-$data/corpus.jsonl}
questions=${QUESTIONS:-$data/questions.jsonl}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
go build -o bin/strata ./cmd/strata
export STRATA_OFFLINE=1
echo "== ingest $corpus into $dir"
/usr/bin/time -f "ingest: %e s wall, %M KiB peak RSS" ./bin/strata ingest --log-level warn ${INGEST_FLAGS:-} --data-dir "$dir" "$corpus"
./bin/strata status --data-dir "$dir" --log-level warn
echo "== re-ingest (nothing changed)"
/usr/bin/time -f "re-ingest: %e s wall, %M KiB peak RSS" ./bin/strata ingest --log-level warn ${INGEST_FLAGS:-} --data-dir "$dir" "$corpus" >/dev/null
table="$(mktemp)"
trap 'rm -f "$table"; rm -rf "$tmpdir"' EXIT
for mode in ${MODES:-naive local global hi hi_local hi_global hi_bridge hi_nobridge lca}; do
  echo "== eval $mode"
  /usr/bin/time -f "eval $mode: %e s wall, %M KiB peak RSS" ./bin/strata eval --log-level warn --json \
    --data-dir "$dir" --questions "$questions" --mode "$mode" |
    python3 -c 'import json, sys; o = json.load(sys.stdin); r = o["recall"]; print("%-12s %.3f  %.3f  %.3f  %6.0f" % (sys.argv[1], r["recall@2"], r["recall@5"], r["recall@10"], o["mean_context_tokens"]))' "$mode" >>"$table"
done
echo "== recall of gold documents, side by side with BM25 over whole documents (bench/multihop/bm25.py)"
printf '%-12s %-6s %-6s %-6s %s\n' mode R@2 R@5 R@10 'context tokens (mean)'
python3 bench/multihop/bm25.py "$corpus" "$questions" |
  sed -E 's/^bm25 \(documents\): recall@2 ([0-9.]+)  recall@5 ([0-9.]+)  recall@10 ([0-9.]+).*/bm25         \1  \2  \3/'
cat "$table"
