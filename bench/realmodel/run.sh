#!/usr/bin/env bash
# Model extraction with the local CI model against offline extraction, on testdata (or
# CORPUS=… QUESTIONS=…): model calls, LLM tokens per corpus token, answers per stage read whole,
# salvaged in part (cut at the token cap, say) or unreadable, wall time, and recall@2/5/10 of
# `strata eval` per mode, for three stores:
#
#   offline     offline extraction, hashing embedder (the README demo)
#   offline+e5  offline extraction, the real embedder
#   model+e5    the chat model's extraction, summaries and reports, the real embedder
#
# Needs the servers of models/local (make models-up), or LLM_URL / EMBED_URL and LLM_MODEL /
# EMBED_MODEL for others. CONTEXT (2048) is the window strata fits its answers to; MODES the
# retrieval modes evaluated; INGEST_FLAGS more ingest flags for every store (e.g. "--arch 3",
# with arch in MODES); STRATA a strata binary to measure instead of this tree's. Before the model
# store is ingested, its `ingest --dry-run` prediction is taken and printed next to the spend.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
LLM_URL="${LLM_URL:-http://127.0.0.1:18080/v1}"
EMBED_URL="${EMBED_URL:-http://127.0.0.1:18081/v1}"
LLM_MODEL="${LLM_MODEL:-smollm2}"
EMBED_MODEL="${EMBED_MODEL:-multilingual-e5-small-q4}"
CORPUS="${CORPUS:-testdata/corpus}"
QUESTIONS="${QUESTIONS:-testdata/questions.jsonl}"
CONTEXT="${CONTEXT:-2048}"
MODES="${MODES:-naive hi local lca}"
INGEST_FLAGS="${INGEST_FLAGS:-}"
out="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/strata-realmodel.XXXXXX")}"

mkdir -p "$out"
if [ -n "${STRATA:-}" ]; then cp "$STRATA" "$out/strata"; else go build -o "$out/strata" ./cmd/strata; fi
export NEO4J_URI= OPENAI_API_KEY= STRATA_LOG_LEVEL=error

# ingest NAME ENV... -- FLAGS...: a fresh store, its report and wall time.
ingest() {
	local name=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local t0 t1
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # INGEST_FLAGS is a list of flags
	env "${envs[@]}" "$out/strata" ingest --dry-run --data-dir "$out/$name" --json $INGEST_FLAGS "$@" "$CORPUS" >"$out/$name.dry.json" || true
	# shellcheck disable=SC2086
	env "${envs[@]}" "$out/strata" ingest --data-dir "$out/$name" --json $INGEST_FLAGS "$@" "$CORPUS" >"$out/$name.ingest.json" || [ $? -eq 3 ]
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc >"$out/$name.wall"
	for mode in $MODES; do
		env "${envs[@]}" "$out/strata" eval --data-dir "$out/$name" --json --mode "$mode" --questions "$QUESTIONS" "$@" >"$out/$name.eval.$mode.json"
	done
}

ingest offline STRATA_OFFLINE=1 OPENAI_BASE_URL= STRATA_EMBEDDING_BASE_URL= -- 
ingest offline+e5 STRATA_OFFLINE=1 OPENAI_BASE_URL= STRATA_EMBEDDING_BASE_URL="$EMBED_URL" -- --embedding-model "$EMBED_MODEL"
ingest model+e5 STRATA_OFFLINE= OPENAI_BASE_URL="$LLM_URL" STRATA_EMBEDDING_BASE_URL="$EMBED_URL" -- \
	--llm-model "$LLM_MODEL" --embedding-model "$EMBED_MODEL" --llm-context "$CONTEXT" --llm-concurrency 1
corpus_tokens=$(STRATA_OFFLINE=1 OPENAI_BASE_URL= "$out/strata" ingest --dry-run --json --data-dir "$out/dry" "$CORPUS" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["corpus_tokens"])')

python3 - "$out" "$corpus_tokens" $MODES <<'PY'
import json, sys
out, corpus, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
stores = ["offline", "offline+e5", "model+e5"]
print(f"corpus: {corpus} tokens")
print(f"{'store':<11} {'wall s':>7} {'calls':>6} {'tok/corpus tok':>15} {'entities':>9} {'relations':>10}  answers per stage: whole+salvaged+unreadable")
for s in stores:
    r = json.load(open(f"{out}/{s}.ingest.json"))
    llm = r.get("llm") or {}
    tot = llm.get("total", {})
    tokens = tot.get("prompt_tokens", 0) + tot.get("completion_tokens", 0)
    shares = []
    for name, st in sorted((llm.get("stages") or {}).items()):
        n = st.get("llm_calls", 0) + st.get("cache_hits", 0)
        if st.get("llm_calls", 0):
            bad, part = st.get("unreadable", 0), st.get("salvaged", 0)
            shares.append(f"{name} {n - bad - part}+{part}+{bad}")
    wall = float(open(f"{out}/{s}.wall").read())
    print(f"{s:<11} {wall:7.1f} {tot.get('llm_calls', 0):6d} {tokens / corpus:15.2f} {r['entities']:9d} {r['relations']:10d}  {', '.join(shares) or '-'}")
print()
for s in stores:
    try:
        d = json.load(open(f"{out}/{s}.dry.json"))
    except (OSError, ValueError):
        continue
    if d.get("offline") or "estimate" not in d:
        continue
    r = json.load(open(f"{out}/{s}.ingest.json"))
    spent = {k: v.get("prompt_tokens", 0) + v.get("completion_tokens", 0) for k, v in ((r.get("llm") or {}).get("stages") or {}).items() if k != "embed"}
    pred = {k: v.get("prompt_tokens", 0) + v.get("completion_tokens", 0) for k, v in d["estimate"]["stages"].items() if k != "embed"}
    tp, ts = sum(pred.values()), sum(spent.values())
    print(f"{s}: dry run predicted {tp} LLM tokens ({tp / corpus:.2f} per corpus token), the run spent {ts} ({ts / corpus:.2f}): {100 * (tp - ts) / max(ts, 1):+.0f} %")
    for k in sorted(set(pred) | set(spent)):
        print(f"  {k:<10} predicted {pred.get(k, 0):>8}  spent {spent.get(k, 0):>8}")
print()
print(f"{'recall@2/5/10':<14}" + "".join(f"{m:>18}" for m in modes))
for s in stores:
    row = f"{s:<14}"
    for m in modes:
        e = json.load(open(f"{out}/{s}.eval.{m}.json"))
        rc = e.get("recall") or e
        row += f"{'%.2f/%.2f/%.2f' % (rc['recall@2'], rc['recall@5'], rc['recall@10']):>18}"
    print(row)
PY
echo "stores and reports in $out"
