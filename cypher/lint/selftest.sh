#!/usr/bin/env bash
# Proves that the linter fails where it must: every fixture in testdata/bad has to be rejected on
# its own, and the queries in cypher/queries have to pass.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0
for f in "$here"/testdata/bad/*.cypher; do
  if out="$("$here/run.sh" "$f" 2>&1)"; then
    echo "FAIL: $(basename "$f") was accepted but must be rejected"
    status=1
  elif ! grep -q "$(basename "$f"):[0-9]*:[0-9]*: " <<<"$out"; then
    echo "FAIL: $(basename "$f") was rejected without a file:line:col message:"
    echo "$out"
    status=1
  else
    echo "ok:   $(basename "$f") rejected: $(grep -m1 ': error: \|: warning: ' <<<"$out" | sed 's/^.*\.cypher://')"
  fi
done
if ! "$here/run.sh"; then
  echo "FAIL: cypher/queries do not lint clean"
  status=1
fi
exit $status
