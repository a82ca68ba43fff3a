#!/usr/bin/env bash
# Lints every .cypher file under cypher/queries, cypher/testdata and internal/neo4jtest, and
# docker/saved-queries.cypher (or the paths given), with Neo4j's own Cypher parser and semantic
# analysis. Installs the pinned linter from package-lock.json on first use.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ ! -d "$here/node_modules/@neo4j-cypher/language-support" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [[ $# -eq 0 ]]; then
  set -- "$here/../queries" "$here/../testdata" "$here/../../internal/neo4jtest" "$here/../../docker/saved-queries.cypher"
fi
exec node "$here/lint.mjs" "$@"
