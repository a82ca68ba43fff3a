#!/usr/bin/env bash
# LLM tokens of a model-built index through the fake model, and what the dry run predicted.
# For each corpus: a fresh store and cache, `strata ingest --dry-run --json`, then `strata ingest
# --json` of the same corpus; prints per stage the calls and LLM tokens (prompt + completion) per
# corpus token the run spent, the dry run's prediction and its error, then hi's recall@5 on the
# corpus's questions when it has some.
# Usage: bench/cost/run.sh [NAME...]   names: testdata multihop mix (default: all three), or
# NAME=CORPUS:QUESTIONS for another corpus (QUESTIONS may be empty).
# INGEST_FLAGS adds ingest flags (e.g. --llm-structure all); WORK keeps the stores (default: a
# temporary directory removed at the end); FAKE_LATENCY is the fake model's latency (default 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${SHARED_DATA:-../shared/data}
work=${WORK:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'kill $fake 2>/dev/null || true; rm -rf "$work"' EXIT
else mkdir -p "$work"; trap 'kill $fake 2>/dev/null || true' EXIT; fi
go build -o bin/strata ./cmd/strata
go build -o bin/fakeopenai ./cmd/fakeopenai
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bin/fakeopenai -addr "127.0.0.1:$port" -latency "${FAKE_LATENCY:-0}" -log "$work/calls.jsonl" 2>"$work/fake.log" &
fake=$!
export OPENAI_BASE_URL=http://127.0.0.1:$port/v1 OPENAI_API_KEY=fake
unset STRATA_OFFLINE NEO4J_URI
for _ in $(seq 50); do curl -sf "$OPENAI_BASE_URL/models" >/dev/null && break; sleep 0.1; done

for name in ${@:-testdata multihop mix}; do
  case $name in
    testdata) corpus=testdata/corpus questions=testdata/questions.jsonl ;;
    multihop) corpus=$data/multihop/corpus.jsonl questions=$data/multihop/questions.jsonl ;;
    mix) corpus=$data/mix/corpus.jsonl questions= ;;
    *=*) spec=${name#*=}; name=${name%%=*}; corpus=${spec%%:*}; questions=${spec#*:} ;;
    *) echo "run.sh: unknown corpus $name (testdata, multihop, mix or NAME=CORPUS:QUESTIONS)" >&2; exit 2 ;;
  esac
  store=$work/$name
  rm -rf "$store"
  echo "== $name: $corpus"
  # shellcheck disable=SC2086
  ./bin/strata ingest --log-level error --dry-run --json ${INGEST_FLAGS:-} --data-dir "$store" "$corpus" >"$work/$name.dry.json" 2>"$work/$name.dry.log"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  ./bin/strata ingest --log-level error --json ${INGEST_FLAGS:-} --data-dir "$store" "$corpus" >"$work/$name.run.json" 2>"$work/$name.log"
  wall=$(python3 -c "import sys; print('%.1f' % ($(date +%s.%N) - $start))")
  recall=
  if [ -n "$questions" ]; then
    recall=$(./bin/strata eval --log-level error --json --data-dir "$store" --questions "$questions" --mode hi |
      python3 -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["recall"]["recall@5"])')
  fi
  python3 - "$work/$name.dry.json" "$work/$name.run.json" "$wall" "$recall" <<'EOF'
import json, sys
dry, run = (json.load(open(p)) for p in sys.argv[1:3])
wall, recall = sys.argv[3], sys.argv[4]
corpus = dry["corpus_tokens"]
pred = dry["estimate"]["stages"]
spent = run["llm"]["stages"]
tok = lambda s: s.get("prompt_tokens", 0) + s.get("completion_tokens", 0)
print("%-10s %7s %9s %10s %10s %7s" % ("stage", "calls", "tok/ct", "spent", "predicted", "error"))
tp = ts = calls = 0
for stage in sorted(set(pred) | set(spent)):
    p, s = pred.get(stage, {}), spent.get(stage, {})
    if stage == "embed" or (tok(p) == 0 and tok(s) == 0):
        continue
    tp += tok(p); ts += tok(s); calls += s.get("llm_calls", 0)
    err = "%+.0f%%" % (100 * (tok(p) - tok(s)) / tok(s)) if tok(s) else "-"
    print("%-10s %7d %9.2f %10d %10d %7s" % (stage, s.get("llm_calls", 0), tok(s) / corpus, tok(s), tok(p), err))
print("%-10s %7d %9.2f %10d %10d %+6.0f%%" % ("total", calls, ts / corpus, ts, tp, 100 * (tp - ts) / ts))
print("corpus tokens %d, entities %d, relations %d, communities %d, wall %s s%s" % (
    corpus, run["entities"], run["relations"], run["communities"], wall,
    ", hi R@5 " + recall if recall else ""))
EOF
done
