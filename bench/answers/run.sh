#!/usr/bin/env bash
# Judged head-to-head win rates on the 130 UltraDomain Mix questions, as HiRAG reports them:
# strata ingests ../shared/data/mix (corpus.jsonl), answers every question in hi and in naive
# mode, and the judge compares each mode's answers with every system's published answers
# (../shared/data/mix/answers/*.jsonl, as the HiRAG authors published them; read in place,
# never copied), each pair in both orders. Then the judge's sanity check: the published HiRAG
# answers against the published LightRAG and naive ones, which the HiRAG paper's GPT-4o judge
# put at 65.9 % and 87.6 % Overall; a judge far from those figures is not one to trust with
# strata's rows.
#
#   bench/answers/run.sh [DIR]     DIR (default: a new temporary directory) keeps the store,
#                                  the LLM cache and every report; a re-run in the same DIR
#                                  pays only for what is not cached
#
# Needs a chat model (OPENAI_API_KEY or OPENAI_BASE_URL, STRATA_LLM_MODEL, …, as strata does);
# the judge is that model unless STRATA_JUDGE_MODEL (and STRATA_JUDGE_BASE_URL,
# STRATA_JUDGE_API_KEY) names another. Settings (environment):
#   DATA         the Mix data (default ../shared/data/mix beside the repository)
#   N            the first N questions only (default all 130)
#   MODES        strata's modes (default "hi naive")
#   SYSTEMS      the published files judged against (default: every file in answers/)
#   INGEST_FLAGS flags of the ingest, e.g. --offline for the free offline index (default none:
#                the configured model builds it)
#   DRY=1        print eval's --dry-run prediction of every run and stop
#   STRATA       the strata binary (default: built from this checkout into DIR)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
DATA="${DATA:-$repo/../shared/data/mix}"
answers="$DATA/answers"
MODES="${MODES:-hi naive}"
N="${N:-130}"
die() { echo "bench/answers: $*" >&2; exit 2; }

[ -f "$DATA/corpus.jsonl" ] && [ -d "$answers" ] || die "no Mix data at $DATA (corpus.jsonl and answers/)"
[ -n "${OPENAI_API_KEY:-}${OPENAI_BASE_URL:-}" ] || die "no chat model: set OPENAI_API_KEY or OPENAI_BASE_URL"
SYSTEMS="${SYSTEMS:-$(cd "$answers" && ls *.jsonl | sed 's/\.jsonl$//' | tr '\n' ' ')}"
out="${1:-$(mktemp -d "${TMPDIR:-/tmp}/strata-answers.XXXXXX")}"
mkdir -p "$out"
if [ -z "${STRATA:-}" ]; then
	(cd "$repo" && go build -o "$out/strata" ./cmd/strata)
	STRATA="$out/strata"
fi
export NEO4J_URI= STRATA_LOG_LEVEL="${STRATA_LOG_LEVEL:-warn}"

# The questions: the first N of a published file, which eval reads by "query".
head -n "$N" "$answers/hirag.jsonl" >"$out/questions.jsonl"

# eval NAME ARGS...: one evaluation, its report in NAME.json (or its prediction in
# NAME.dry.json); exit 3 (an unusable judge) keeps the report, which says so.
eval_run() {
	local name=$1; shift
	if [ "${DRY:-}" = 1 ]; then
		"$STRATA" eval --data-dir "$out/store" --cache-dir "$out/llm-cache" --questions "$out/questions.jsonl" --dry-run --json "$@" >"$out/$name.dry.json"
		return
	fi
	"$STRATA" eval --data-dir "$out/store" --cache-dir "$out/llm-cache" --questions "$out/questions.jsonl" --json "$@" >"$out/$name.json" || [ $? -eq 3 ]
}

for system in hirag lightrag naive; do
	[ -f "$answers/$system.jsonl" ] || die "missing $answers/$system.jsonl"
done
# The sanity check first: it needs no store, and says at once whether the judge can be trusted.
for other in lightrag naive; do
	eval_run "published-hirag-vs-$other" --subject "$answers/hirag.jsonl" --against "$answers/$other.jsonl"
done

if [ "${DRY:-}" != 1 ] || [ -f "$out/store/strata.db" ]; then
	if [ "${DRY:-}" != 1 ]; then
		t0=$(date +%s)
		# shellcheck disable=SC2086 # INGEST_FLAGS is a list of flags
		"$STRATA" ingest --data-dir "$out/store" --cache-dir "$out/llm-cache" --json ${INGEST_FLAGS:-} "$DATA/corpus.jsonl" >"$out/ingest.json" || [ $? -eq 3 ]
		echo "ingest: $(($(date +%s) - t0)) s" >"$out/ingest.time"
	fi
	for mode in $MODES; do
		for system in $SYSTEMS; do
			eval_run "$mode-vs-$system" --mode "$mode" --against "$answers/$system.jsonl"
		done
	done
else
	echo "bench/answers: no store in $out yet: the dry run covers the sanity check only (run once without DRY=1 to ingest)" >&2
fi

python3 - "$out" "${DRY:-}" <<'PY'
import glob, json, os, sys
out, dry = sys.argv[1], sys.argv[2] == "1"
dims = ["comprehensiveness", "empowerment", "diversity", "overall"]
paper = {"published-hirag-vs-lightrag": "65.9", "published-hirag-vs-naive": "87.6"}
suffix = ".dry.json" if dry else ".json"
names = sorted(os.path.basename(p)[:-len(suffix)] for p in glob.glob(f"{out}/*{suffix}") if not p.endswith("ingest.json"))
names = [n for n in names if dry or not n.endswith(".dry")]
if dry:
    print(f"{'run':<34} {'calls':>6} {'cached':>6} {'prompt tok':>11} {'completion tok':>15}")
    for n in names:
        tot = {"calls": 0, "cached_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
        for s in json.load(open(f"{out}/{n}{suffix}"))["estimate"]["stages"].values():
            for k in tot:
                tot[k] += s[k]
        print(f"{n:<34} {tot['calls']:>6} {tot['cached_calls']:>6} {tot['prompt_tokens']:>11} {tot['completion_tokens']:>15}")
    sys.exit(0)
print("win rate of the first side (strata's mode, or the published HiRAG file), ties as half; [95 % Wilson interval] of overall")
print(f"{'run':<34} " + " ".join(f"{d[:13]:>13}" for d in dims) + f" {'overall 95 %':>15} {'read':>5} {'unread':>6} {'paper':>6}")
for n in names:
    r = json.load(open(f"{out}/{n}.json"))
    j = r.get("judge")
    if not j:
        print(f"{n:<34} failed: {r.get('error', '?')}")
        continue
    rates = " ".join(f"{j['win_rates'][d]:>13.3f}" if d in j["win_rates"] else f"{'-':>13}" for d in dims)
    iv = j["intervals"].get("overall")
    ivs = f"[{iv[0]:.2f}, {iv[1]:.2f}]" if iv else "-"
    print(f"{n:<34} {rates} {ivs:>15} {j['judgments']:>5} {j['unreadable']:>6} {paper.get(n, ''):>6}")
    if r.get("unusable_stages"):
        print(f"{'':<34} unusable: {', '.join(r['unusable_stages'])}")
PY
echo "reports in $out"
