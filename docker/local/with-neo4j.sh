#!/usr/bin/env bash
# Runs a command (the test suite) with a Neo4j + GDS server and STRATA_REQUIRE_NEO4J=1, so that
# every test needing Neo4j runs instead of skipping:
#
#   docker/local/with-neo4j.sh go test ./...
#
# With NEO4J_URI set, that server is used (its database must be empty or hold only test data:
# the tests wipe it). Otherwise a throw-away server is started from docker/local/neo4j.sh in
# .neo4j/test on 127.0.0.1:17687 (HTTP 17474), emptied first and stopped afterwards, so a
# development server on the default ports is never touched. Prints the server's versions and,
# at the end, how many tests used it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }

export STRATA_REQUIRE_NEO4J=1
export STRATA_NEO4J_TEST_LOG
STRATA_NEO4J_TEST_LOG="$(mktemp "${TMPDIR:-/tmp}/strata-neo4j-tests.XXXXXX")"

if [ -z "${NEO4J_URI:-}" ]; then
	export STRATA_NEO4J_HOME="$repo/.neo4j/test" NEO4J_BOLT_PORT="${NEO4J_TEST_BOLT_PORT:-17687}" \
		NEO4J_HTTP_PORT="${NEO4J_TEST_HTTP_PORT:-17474}" NEO4J_AUTH=none
	"$here/neo4j.sh" reset >/dev/null 2>&1 || true
	trap '"$here/neo4j.sh" down' EXIT
	"$here/neo4j.sh" up
	export NEO4J_URI="bolt://127.0.0.1:$NEO4J_BOLT_PORT" NEO4J_USERNAME= NEO4J_PASSWORD= NEO4J_DATABASE=
fi

status=0
"$@" || status=$?
echo "with-neo4j: $(sort -u "$STRATA_NEO4J_TEST_LOG" | wc -l) tests ran against Neo4j at $NEO4J_URI (none skipped: STRATA_REQUIRE_NEO4J=1)"
rm -f "$STRATA_NEO4J_TEST_LOG"
exit "$status"
