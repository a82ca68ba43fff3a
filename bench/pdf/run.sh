#!/usr/bin/env bash
# Word-level F1 of strata's PDF text against Debian's pdftotext (poppler-utils), per file, bag of
# words (reading order aside), as a Markdown table with each file's producer and both readers'
# times. With no DIR, the PDFs bench/pdf/corpus.sh writes (LibreOffice, Cairo, Ghostscript,
# gropdf, ReportLab, pdfTeX, CJK, a scan) into a temporary folder and the LaTeX fixtures of
# pipeline/load/testdata/latex; public PDFs are read where they lie and never copied here.
# Usage: bench/pdf/run.sh [-v] [DIR|FILE...]   (-v: the words each side lacks, per file)
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
command -v pdftotext >/dev/null || { echo "needs pdftotext: apt-get install poppler-utils" >&2; exit 1; }
flags=()
if [ "${1:-}" = -v ]; then flags=(-v); shift; fi
paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  bench/pdf/corpus.sh "$work/corpus" >/dev/null
  paths=("$work/corpus" pipeline/load/testdata/latex)
fi
go run ./bench/pdf/compare "${flags[@]}" "${paths[@]}"
