#!/usr/bin/env bash
# Ingest speed of the Neo4j backend against the embedded store: each corpus is ingested offline
# RUNS times (default 3) into a fresh embedded store and into the emptied Neo4j database, the two
# alternating so that both see the same machine load, and the median time of each stage is
# printed side by side with the ratio and the Neo4j statements the stage sent
# (`ingest --json`'s timings_ms and neo4j_stages). Raw reports go to $SPEED_OUT
# (default bench/out/speed/<corpus>/).
#
# Usage: NEO4J_URI=bolt://127.0.0.1:7687 bench/parity/speed.sh [[NAME=]CORPUS]...
#   Default corpora: testdata/corpus and $SHARED_DATA/multihop/corpus.jsonl (SHARED_DATA defaults
#   to ../shared/data); e.g. mix=$SHARED_DATA/mix for the 2.6 M-character corpus.
#   NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE name the server (`make neo4j-up`
#   starts one). The database must be empty, or PARITY_WIPE=1 lets the script delete everything
#   in it; it is emptied before every Neo4j run and the last corpus stays in it.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "speed: $*" >&2; exit 1; }
case "${1:-}" in -h | --help) usage; exit 0 ;; esac

cd "$(dirname "$0")/../.."
shared=${SHARED_DATA:-../shared/data}
out=${SPEED_OUT:-bench/out/speed}
runs=${RUNS:-3}
[ -n "${NEO4J_URI:-}" ] || die "set NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD) to a Neo4j 5 server with GDS; make neo4j-up starts one"
command -v jq >/dev/null || die "needs jq"
[ $# -gt 0 ] || set -- "testdata=testdata/corpus" "multihop=$shared/multihop/corpus.jsonl"

mkdir -p "$out/bin"
go build -o "$out/bin/strata" ./cmd/strata
go build -o "$out/bin/wipe" ./bench/parity/wipe
strata=$out/bin/strata wipe=$out/bin/wipe
set +e
"$wipe" >/dev/null
rc=$?
set -e
case $rc in
0) ;;
3) [ "${PARITY_WIPE:-}" = 1 ] || die "the database at $NEO4J_URI is not empty; set PARITY_WIPE=1 to delete everything in it" ;;
*) die "cannot reach $NEO4J_URI" ;;
esac
export STRATA_OFFLINE=1
unset STRATA_DATA_DIR

echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs, median"
for arg in "$@"; do
	name=${arg%%=*} corpus=${arg#*=}
	[ "$name" != "$arg" ] || { name=$(basename "$corpus"); name=${name%.*}; }
	[ -e "$corpus" ] || die "corpus $corpus not found"
	dir=$out/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	for r in $(seq "$runs"); do
		echo "== $name run $r: embedded, then neo4j" >&2
		env -u NEO4J_URI "$strata" ingest --json --data-dir "$dir/store-$r" "$corpus" >"$dir/embedded-$r.json" 2>"$dir/embedded-$r.log" ||
			{ tail "$dir/embedded-$r.log" >&2; die "embedded ingest of $corpus failed"; }
		rm -rf "$dir/store-$r"
		"$wipe" -force >/dev/null
		"$strata" ingest --json "$corpus" >"$dir/neo4j-$r.json" 2>"$dir/neo4j-$r.log" ||
			{ tail "$dir/neo4j-$r.log" >&2; die "neo4j ingest of $corpus failed"; }
	done
	echo
	echo "$name ($corpus)"
	jq -rn --slurpfile e <(cat "$dir"/embedded-*.json) --slurpfile n <(cat "$dir"/neo4j-*.json) '
		def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def ms: if . == null then "-" else (. | round | tostring) end;
		($e[0].timings_ms | keys_unsorted) as $stages
		| ["stage", "embedded ms", "neo4j ms", "ratio", "neo4j statements"],
		  ($stages - ["total"] + ["total"] | .[] as $s
		   | ([$e[].timings_ms[$s] // 0] | median) as $a
		   | ([$n[].timings_ms[$s] // 0] | median) as $b
		   | ([$n[].neo4j_stages[$s].statements // 0] | median) as $c
		   | [$s, ($a | ms), ($b | ms), (if $a > 0 then ($b / $a * 100 | round / 100 | tostring) + "x" else "-" end),
		      (if $s == "total" then ([$n[] | [.neo4j_stages[]?.statements] | add] | median | tostring) else ($c | tostring) end)])
		| @tsv' | column -t -s $'\t'
done
