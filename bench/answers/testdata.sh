#!/usr/bin/env bash
# Answers on testdata with the local small model (make models-up), from two indexes: offline
# extraction with the e5 embedder, and the chat model's extraction, summaries and reports with
# it. Per store: accuracy, exact match and F1 of the answers of every mode in MODES against
# testdata's gold answers, with LLM calls and latency per query; then hi against naive judged by
# the same model. What each index and mode buys, as far as a 135M model shows it: its verdicts
# and answers test the harness, not the methods.
#
#   bench/answers/testdata.sh [DIR]   DIR (default: a new temporary directory) keeps the stores
#                                     and the LLM cache: a re-run pays only for what is new
#
# LLM_URL / EMBED_URL and LLM_MODEL / EMBED_MODEL point elsewhere than make models-up's servers;
# CONTEXT (2048) is the window answers are fitted to; MODES (naive hi local lca).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
LLM_URL="${LLM_URL:-http://127.0.0.1:18080/v1}"
EMBED_URL="${EMBED_URL:-http://127.0.0.1:18081/v1}"
MODES="${MODES:-naive hi local lca}"
out="${1:-$(mktemp -d "${TMPDIR:-/tmp}/strata-answers-testdata.XXXXXX")}"
mkdir -p "$out"
go build -o "$out/strata" ./cmd/strata
export OPENAI_BASE_URL="$LLM_URL" OPENAI_API_KEY= STRATA_LLM_MODEL="${LLM_MODEL:-smollm2}" \
	STRATA_LLM_CONTEXT="${CONTEXT:-2048}" STRATA_LLM_CONCURRENCY=1 \
	STRATA_EMBEDDING_BASE_URL="$EMBED_URL" STRATA_EMBEDDING_MODEL="${EMBED_MODEL:-multilingual-e5-small-q4}" \
	STRATA_LOG_LEVEL=error NEO4J_URI=
S="$out/strata"
# A store DIR holds already is kept as it is: its figures are the ones to compare, and a
# build whose extraction prompts changed since would refuse to add to it.
if [ ! -f "$out/offline/strata.db" ]; then
	STRATA_OFFLINE=1 "$S" ingest --data-dir "$out/offline" --json testdata/corpus >"$out/offline.ingest.json"
fi
if [ ! -f "$out/model/strata.db" ]; then
	t0=$(date +%s)
	"$S" ingest --data-dir "$out/model" --json testdata/corpus >"$out/model.ingest.json" || [ $? -eq 3 ]
	echo "$(($(date +%s) - t0))" >"$out/model.ingest.seconds"
fi
for store in offline model; do
	for mode in $MODES; do
		"$S" eval --data-dir "$out/$store" --questions testdata/questions.jsonl --answers --mode "$mode" --json >"$out/$store.$mode.json"
	done
	"$S" eval --data-dir "$out/$store" --questions testdata/questions.jsonl --against naive --json >"$out/$store.judge.json" || [ $? -eq 3 ]
done

python3 - "$out" $MODES <<'PY'
import json, sys
out, modes = sys.argv[1], sys.argv[2:]
print(f"{'store':<8} {'mode':<6} {'accuracy':>8} {'EM':>5} {'F1':>5} {'ROUGE-L':>7} {'unread':>6} {'calls/q':>7} {'p50 ms':>7} {'p95 ms':>7}")
for store in ["offline", "model"]:
    for m in modes:
        a = json.load(open(f"{out}/{store}.{m}.json"))["answers"]
        print(f"{store:<8} {m:<6} {a['accuracy']:>8.3f} {a['exact_match']:>5.2f} {a['f1']:>5.3f} {a['rouge_l']:>7.3f} {a['unreadable']:>6} "
              f"{a['mean_llm_calls']:>7.2f} {a['latency_ms']['p50']:>7.0f} {a['latency_ms']['p95']:>7.0f}")
    r = json.load(open(f"{out}/{store}.judge.json"))
    j = r["judge"]
    rates = ", ".join(f"{d} {j['win_rates'][d]:.2f}" for d in ["comprehensiveness", "empowerment", "diversity", "overall"] if d in j["win_rates"])
    iv = j["intervals"].get("overall", [0, 1])
    print(f"{store:<8} hi vs naive judged: {rates}; overall 95 % [{iv[0]:.2f}, {iv[1]:.2f}]; {j['judgments']} read, {j['unreadable']} unreadable"
          + (f"; unusable: {r['unusable_stages']}" if r.get("unusable_stages") else ""))
PY
