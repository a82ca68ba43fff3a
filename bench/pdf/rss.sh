#!/usr/bin/env bash
# Peak memory of an offline ingest of one large PDF: genpdf writes PAGES pages (500) of text with
# a noise image each, about MB MiB (20) in all, and strata ingests it into a fresh temporary
# store; prints the file, wall and CPU time and peak RSS (GNU time, %M).
# Usage: bench/pdf/rss.sh   (PAGES=, MB=; STRATA=path/to/strata to measure another build)
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${STRATA:-}" ]; then go build -o "$work/strata" ./cmd/strata; STRATA=$work/strata; fi
go run ./bench/pdf/genpdf -pages "${PAGES:-500}" -mb "${MB:-20}" -out "$work/big.pdf"
echo "== $(stat -c %s "$work/big.pdf") bytes, $(PAGES=${PAGES:-500}; echo "$PAGES") pages"
mkdir "$work/store"
STRATA_OFFLINE=1 /usr/bin/time -f "ingest --offline: %e s wall, %U s user, %M KiB peak RSS" \
  "$STRATA" ingest --offline --log-level warn --data-dir "$work/store" "$work/big.pdf" >/dev/null
