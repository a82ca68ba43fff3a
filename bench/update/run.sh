#!/usr/bin/env bash
# What an update costs next to what building the store costs, from fresh stores:
#   1. offline, the mix corpus: the full ingest, then adding one small document (30 words, written
#      to a temporary JSON Lines file) and deleting it again; wall time and stage timings of each,
#      targets: full ingest <= 20 s, add <= 2 s, delete <= 2 s; then `ingest --restructure`.
#   2. through the fake OpenAI server (cmd/fakeopenai, no network), the multihop corpus: the
#      ingest's model calls per stage; `delete --dry-run` of one article (the prediction), its
#      `delete` (calls, % of the ingest's, target <= 5 %), `ingest --dry-run` of the corpus with
#      it back and the ingest itself (calls, %, target <= 5 %; no extraction for unchanged
#      chunks); then `ingest --restructure` (a full rebuild) for comparison.
# A flag this strata does not know (--restructure) is reported and skipped. Calls are the chat
# calls billed; "cached" ones came from the response cache and cost nothing. As the cache answers
# whatever an earlier run asked in the same words (putting the article back rebuilds summaries
# and reports the first ingest wrote), "asked" (calls + cached) is printed too: the work redone.
# Usage: bench/update/run.sh [offline|model]...   (both by default)
# Settings: MIX=…/mix/corpus.jsonl, MULTIHOP=…/multihop/corpus.jsonl (defaults under
# $SHARED_DATA, itself ../shared/data), DOC=the multihop article to delete (default: its first),
# STRATA_BIN=a strata binary to measure (default: built from this tree into bin/strata),
# KEEP=DIR keeps the stores and raw reports in DIR (a new or empty directory).
set -euo pipefail
export LC_ALL=C
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
parts=${*:-offline model}
for p in $parts; do case $p in offline|model) ;; -h|--help) usage ;; *) echo "run.sh: unknown part $p" >&2; usage ;; esac; done
cd "$(dirname "$0")/../.."
data=${SHARED_DATA:-../shared/data}
mix=${MIX:-$data/mix/corpus.jsonl}
multihop=${MULTIHOP:-$data/multihop/corpus.jsonl}
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
if [ -n "${STRATA_BIN:-}" ]; then strata=$STRATA_BIN; else go build -o bin/strata ./cmd/strata; strata=$PWD/bin/strata; fi
go build -o bin/fakeopenai ./cmd/fakeopenai
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; [ -z "$(ls -A "$KEEP")" ] || { echo "run.sh: KEEP=$KEEP is not empty" >&2; exit 2; }
  work=$(cd "$KEEP" && pwd); tmpdir=
else
  work=$(mktemp -d); tmpdir=$work
fi
fake=
trap '[ -z "$fake" ] || kill $fake 2>/dev/null; [ -z "$tmpdir" ] || rm -rf "$tmpdir"' EXIT
report() { python3 bench/update/report.py "$work" "$@"; }

# step NAME ARGS...: runs strata ARGS --json, keeping stdout, stderr, exit code and wall time
# under $work/NAME.*; a failure does not stop the script (report.py prints it).
step() {
  local name=$1 t0 t1 rc=0; shift
  t0=$EPOCHREALTIME
  "$strata" "$@" --json --log-level warn >"$work/$name.json" 2>"$work/$name.err" || rc=$?
  t1=$EPOCHREALTIME
  echo "$rc" >"$work/$name.rc"
  python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.3f}")' "$t0" "$t1" >"$work/$name.wall"
}

echo "strata: $("$strata" --version 2>/dev/null || echo unknown), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

for part in $parts; do
case $part in
offline)
  store=$work/mix-store
  note=$work/note.jsonl
  # 30 words naming entities the mix corpus has, so that the update touches existing ones.
  python3 - "$note" <<'PY'
import json, sys
text = ("Cat Stevens recorded a new album in New York with musicians from the United Kingdom "
        "and New Zealand, and Cartoon Network later licensed one of its songs for Adult Swim.")
assert len(text.split()) == 30
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"id": "update-bench:note", "title": "A note", "text": text}) + "\n")
PY
  echo
  echo "== offline, mix corpus $mix: $(wc -l <"$mix") records, $(wc -c <"$mix") bytes"
  export STRATA_OFFLINE=1
  step mix-ingest ingest --data-dir "$store" "$mix"
  report mix-ingest "full ingest" --wall-target 20
  step mix-add ingest --data-dir "$store" "$note"
  report mix-add "add 1 document (30 words)" --wall-target 2
  step mix-delete delete --data-dir "$store" update-bench:note
  report mix-delete "delete it" --wall-target 2
  step mix-restructure ingest --restructure --data-dir "$store" "$mix"
  report mix-restructure "ingest --restructure"
  unset STRATA_OFFLINE
  ;;
model)
  store=$work/multihop-store
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  ./bin/fakeopenai --addr 127.0.0.1:$port 2>/dev/null &
  fake=$!
  export OPENAI_BASE_URL=http://127.0.0.1:$port/v1 OPENAI_API_KEY=sk-bench-not-a-secret STRATA_OFFLINE=
  for _ in $(seq 50); do curl -s -o /dev/null "$OPENAI_BASE_URL/models" && break; sleep 0.1; done
  doc=${DOC:-$(head -1 "$multihop" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')}
  echo
  echo "== fake OpenAI server, multihop corpus $multihop; the article: $doc"
  step mh-ingest ingest --data-dir "$store" "$multihop"
  report mh-ingest "ingest" --model
  step mh-delete-dry delete --dry-run --data-dir "$store" "$doc"
  report mh-delete-dry "delete --dry-run" --dry-run
  step mh-delete delete --data-dir "$store" "$doc"
  report mh-delete "delete" --model --base mh-ingest --pct-target 5 --predicted mh-delete-dry
  step mh-add-dry ingest --dry-run --data-dir "$store" "$multihop"
  report mh-add-dry "ingest --dry-run (it back)" --dry-run
  step mh-add ingest --data-dir "$store" "$multihop"
  report mh-add "ingest (it back)" --model --base mh-ingest --pct-target 5 --chunks-of mh-delete --predicted mh-add-dry
  step mh-restructure ingest --restructure --data-dir "$store" "$multihop"
  report mh-restructure "ingest --restructure" --model --base mh-ingest
  kill $fake 2>/dev/null; wait $fake 2>/dev/null || true; fake=
  ;;
esac
done
