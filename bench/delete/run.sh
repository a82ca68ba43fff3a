#!/usr/bin/env bash
# What deleting one document costs with a model, next to what building the store costs: ingests a
# corpus through the fake OpenAI server (cmd/fakeopenai, no network), deletes one document with
# `strata delete`, and prints the model calls per stage of both runs, the communities and
# summaries before and after, and the wall times. A deletion makes no extraction call; summaries
# and reports cost a call only where their members changed (the rest come from the cache).
# Usage: bench/delete/run.sh [DOC_ID]   (default: the corpus's first document)
# The corpus is $CORPUS, by default $SHARED_DATA/multihop/corpus.jsonl (SHARED_DATA defaults to
# ../shared/data); CORPUS=testdata/corpus DOC=grey-heron.md runs it on the README demo corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${CORPUS:-${SHARED_DATA:-../shared/data}/multihop/corpus.jsonl}
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
go build -o bin/strata ./cmd/strata
go build -o bin/fakeopenai ./cmd/fakeopenai
dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
./bin/fakeopenai --addr 127.0.0.1:$port 2>/dev/null &
fake=$!
trap 'kill $fake 2>/dev/null; rm -rf "$dir"' EXIT
export OPENAI_BASE_URL=http://127.0.0.1:$port/v1 OPENAI_API_KEY=sk-bench-not-a-secret STRATA_OFFLINE=
for _ in $(seq 50); do curl -s -o /dev/null "$OPENAI_BASE_URL/models" && break; sleep 0.1; done
doc=${1:-${DOC:-}}
if [ -z "$doc" ]; then
  case $corpus in
    *.jsonl) doc=$(head -1 "$corpus" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') ;;
    *) doc=$(cd "$corpus" && find . -type f \( -name '*.md' -o -name '*.txt' \) | sort | head -1 | sed 's|^\./||') ;;
  esac
fi
report() { # $1: label, $2: JSON report of ingest or delete, $3: status JSON
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
label, rep, st = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
stages = (rep.get("llm") or {}).get("stages") or {}
calls = " ".join(f"{s}={u['llm_calls']}" for s, u in sorted(stages.items()) if u.get("llm_calls"))
n = st["store"]["nodes"]
print(f"{label:8} calls: {calls or 'none'}")
print(f"{'':8} store: {n['documents']} documents, {n['entities']} entities, {n['summaries']} summaries, "
      f"{n['communities']} communities; {rep['timings_ms']['total']/1000:.1f} s")
PY
}
echo "== corpus $corpus, deleting $doc"
ing=$(./bin/strata ingest --log-level warn --json --data-dir "$dir" "$corpus" 2>/dev/null)
report ingest "$ing" "$(./bin/strata status --json --data-dir "$dir")"
del=$(./bin/strata delete --log-level warn --json --data-dir "$dir" "$doc" 2>/dev/null)
report delete "$del" "$(./bin/strata status --json --data-dir "$dir")"
