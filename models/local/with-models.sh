#!/usr/bin/env bash
# Runs a command (the test suite) with the local chat and embedding servers and
# STRATA_REQUIRE_MODEL=1, so that every test needing a real model runs instead of skipping:
#
#   models/local/with-models.sh go test ./...
#
# With STRATA_TEST_LLM_BASE_URL set (and STRATA_TEST_EMBEDDING_BASE_URL), those servers are used.
# Otherwise throw-away servers are started from models/local/models.sh with their logs in
# .models/test, on 127.0.0.1:18090 (chat) and 18091 (embeddings), and stopped afterwards, so
# servers on the development ports are never touched. The command sees:
#
#   STRATA_REQUIRE_MODEL=1
#   STRATA_TEST_LLM_BASE_URL, STRATA_TEST_LLM_MODEL, STRATA_TEST_LLM_CONTEXT
#   STRATA_TEST_EMBEDDING_BASE_URL, STRATA_TEST_EMBEDDING_MODEL
#   STRATA_MODEL_TEST_LOG   a file each test that used a model appends its name to
#
# At the end it prints how many tests used the models.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }

if [ -n "${STRATA_TEST_LLM_BASE_URL:-}" ]; then
	[ -n "${STRATA_TEST_EMBEDDING_BASE_URL:-}" ] ||
		{ echo "with-models: STRATA_TEST_LLM_BASE_URL is set but STRATA_TEST_EMBEDDING_BASE_URL is not" >&2; exit 2; }
	export STRATA_REQUIRE_MODEL=1
	export STRATA_TEST_LLM_MODEL="${STRATA_TEST_LLM_MODEL:-smollm2}"
	export STRATA_TEST_LLM_CONTEXT="${STRATA_TEST_LLM_CONTEXT:-${STRATA_MODEL_CTX:-4096}}"
	export STRATA_TEST_EMBEDDING_MODEL="${STRATA_TEST_EMBEDDING_MODEL:-multilingual-e5-small-q4}"
	for url in "$STRATA_TEST_LLM_BASE_URL" "$STRATA_TEST_EMBEDDING_BASE_URL"; do
		curl -fsS --max-time 10 "$url/models" >/dev/null ||
			{ echo "with-models: no answer from $url/models" >&2; exit 1; }
	done
else
	export STRATA_MODELS_HOME="$repo/.models/test" STRATA_MODEL_CHAT_PORT="${STRATA_MODEL_TEST_CHAT_PORT:-18090}" \
		STRATA_MODEL_EMBED_PORT="${STRATA_MODEL_TEST_EMBED_PORT:-18091}"
	trap '"$here/models.sh" down' EXIT
	"$here/models.sh" up
	eval "$("$here/models.sh" env)"
fi

export STRATA_MODEL_TEST_LOG
STRATA_MODEL_TEST_LOG="$(mktemp "${TMPDIR:-/tmp}/strata-model-tests.XXXXXX")"

status=0
"$@" || status=$?
echo "with-models: $(sort -u "$STRATA_MODEL_TEST_LOG" | wc -l) tests used the models at $STRATA_TEST_LLM_BASE_URL and $STRATA_TEST_EMBEDDING_BASE_URL (none skipped: STRATA_REQUIRE_MODEL=1)"
rm -f "$STRATA_MODEL_TEST_LOG"
exit "$status"
