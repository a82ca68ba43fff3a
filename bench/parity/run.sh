#!/usr/bin/env bash
# Parity of the Neo4j backend with the embedded store: ingests each corpus offline into a fresh
# embedded store and into an emptied Neo4j database with the same options, compares the two graphs
# through the store contract (bench/parity/compare), evaluates recall on both, and prints a
# side-by-side summary table. Raw outputs go to bench/out/parity/<corpus>/.
#
# Usage: bench/parity/run.sh [[NAME=]CORPUS[:QUESTIONS]]...
#   CORPUS      a file or folder for `strata ingest`; QUESTIONS a questions file for `strata eval`
#               (without one, recall is skipped); NAME defaults to CORPUS's base name.
#   Default:    testdata=testdata/corpus:testdata/questions.jsonl
#               multihop=$SHARED_DATA/multihop/corpus.jsonl:$SHARED_DATA/multihop/questions.jsonl
#
# Neo4j:
#   NEO4J_URI unset  the script runs its own Neo4j + GDS (docker/local/neo4j.sh, no auth) on
#                    127.0.0.1:$PARITY_BOLT_PORT (7697) / $PARITY_HTTP_PORT (7484) with its home in
#                    $PARITY_NEO4J_HOME (/tmp/strata-parity-neo4j), resets it before each corpus
#                    and stops it on exit.
#   NEO4J_URI set    uses that server (NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE). It refuses
#                    a database that is not empty unless PARITY_WIPE=1, which deletes everything in
#                    it; between corpora it empties the database it started from empty. The last
#                    corpus stays in the database.
# Neo4j ingest runs twice per corpus, each time into an emptied database: the first run (on the
# server the script starts, a cold JVM; reported as "first neo4j run") and the second, the one
# compared and reported as "neo4j". PARITY_WARM=0 keeps only one run.
# Other settings: MODES (default "naive local hi global"), SHARED_DATA (default ../shared/data),
#   PARITY_OUT (default bench/out/parity), SEED (default 42), LAYERS (default 5).
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "parity: $*" >&2; exit 1; }
case "${1:-}" in -h | --help) usage; exit 0 ;; esac

cd "$(dirname "$0")/../.."
repo=$PWD
shared=${SHARED_DATA:-../shared/data}
out=${PARITY_OUT:-bench/out/parity}
modes=${MODES:-naive local hi global}
seed=${SEED:-42}
layers=${LAYERS:-5}
warm=${PARITY_WARM:-1}
if [ $# -eq 0 ]; then
	set -- "testdata=testdata/corpus:testdata/questions.jsonl" \
		"multihop=$shared/multihop/corpus.jsonl:$shared/multihop/questions.jsonl"
fi
command -v jq >/dev/null || die "needs jq"

# Parse every argument first, so that a typo fails before anything runs.
names=() corpora=() questions=()
for arg in "$@"; do
	name=${arg%%=*}
	[ "$name" = "$arg" ] && name=""
	rest=${arg#*=}
	corpus=${rest%%:*}
	q=""
	[ "$corpus" != "$rest" ] && q=${rest#*:}
	[ -n "$name" ] || { name=$(basename "$corpus"); name=${name%.*}; }
	[ -e "$corpus" ] || die "corpus $corpus not found (argument $arg)"
	[ -z "$q" ] || [ -f "$q" ] || die "questions file $q not found (argument $arg)"
	names+=("$name") corpora+=("$corpus") questions+=("$q")
done

mkdir -p "$out/bin"
echo "== build" >&2
go build -o "$out/bin/strata" ./cmd/strata
go build -o "$out/bin/compare" ./bench/parity/compare
go build -o "$out/bin/wipe" ./bench/parity/wipe
strata=$repo/$out/bin/strata
{
	echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "uncommitted changes in the code under test:"
	git status --short -- cmd cypher internal pipeline retrieval prompts 2>/dev/null || true
	echo "date $(date -u +%FT%TZ), $(nproc) cores, modes: $modes, seed $seed, layers $layers"
} >"$out/run-info.txt"

export STRATA_OFFLINE=1 STRATA_LOG_FORMAT=json
unset STRATA_DATA_DIR

# Neo4j: our own throw-away server, or the one given.
own_neo4j=0
if [ -z "${NEO4J_URI:-}" ]; then
	own_neo4j=1
	export STRATA_NEO4J_HOME=${PARITY_NEO4J_HOME:-/tmp/strata-parity-neo4j}
	export NEO4J_BOLT_PORT=${PARITY_BOLT_PORT:-7697} NEO4J_HTTP_PORT=${PARITY_HTTP_PORT:-7484} NEO4J_AUTH=none
	export NEO4J_URI=bolt://127.0.0.1:$NEO4J_BOLT_PORT NEO4J_USERNAME=neo4j
	unset NEO4J_PASSWORD NEO4J_DATABASE
	neo4j() { docker/local/neo4j.sh "$@" >>"$out/neo4j.log" 2>&1 || { cat "$out/neo4j.log" >&2; die "docker/local/neo4j.sh $* failed"; }; }
	trap 'echo "== stop neo4j" >&2; docker/local/neo4j.sh down >>"$out/neo4j.log" 2>&1 || true' EXIT
	trap 'exit 130' INT TERM
else
	set +e
	"$out/bin/wipe" >/dev/null
	rc=$?
	set -e
	case $rc in
	0) ;;
	3) [ "${PARITY_WIPE:-}" = 1 ] || die "the database at $NEO4J_URI is not empty; point NEO4J_URI/NEO4J_DATABASE at an empty one, or set PARITY_WIPE=1 to delete everything in it" ;;
	*) die "cannot reach $NEO4J_URI (see above)" ;;
	esac
fi

# fresh_neo4j empties the Neo4j database before a corpus.
fresh_neo4j() {
	if [ "$own_neo4j" = 1 ]; then
		echo "== neo4j: reset and start ($NEO4J_URI, home $STRATA_NEO4J_HOME)" >&2
		neo4j reset
		neo4j up
	else
		echo "== neo4j: empty the database at $NEO4J_URI" >&2
		"$out/bin/wipe" -force >/dev/null || die "could not empty the database at $NEO4J_URI"
	fi
}

# run OUT LOG CMD... runs CMD with stdout to OUT and stderr to LOG; on failure it shows the log
# and stops. It prints the wall time in seconds.
run() {
	local out_file=$1 log=$2 start end
	shift 2
	start=$EPOCHREALTIME
	if ! "$@" >"$out_file" 2>"$log"; then
		{ echo "parity: failed: $*"; tail -n 20 "$log"; cat "$out_file"; } >&2
		return 1
	fi
	end=$EPOCHREALTIME
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

# on BACKEND COMMAND ARGS... runs a strata command against one backend. The flags go right after
# the command: the CLI takes everything after the first path as paths.
on() {
	local backend=$1 command=$2
	shift 2
	if [ "$backend" = embedded ]; then
		env -u NEO4J_URI "$strata" "$command" --data-dir "$dir/embedded-store" "$@"
	else
		"$strata" "$command" "$@"
	fi
}

for i in "${!names[@]}"; do
	name=${names[$i]} corpus=${corpora[$i]} q=${questions[$i]}
	dir=$out/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "== $name: ingest $corpus (embedded)" >&2
	t_emb=$(run "$dir/ingest-embedded.json" "$dir/ingest-embedded.log" on embedded ingest --json --seed "$seed" --layers "$layers" "$corpus")
	fresh_neo4j
	# The first ingest after a (re)start runs on a cold JVM; with PARITY_WARM=1 (the default) the
	# database is emptied and the corpus ingested again, and that second run is the one compared.
	t_cold=null
	if [ "$warm" = 1 ]; then
		echo "== $name: ingest $corpus (neo4j, first run)" >&2
		t_cold=$(run "$dir/ingest-neo4j-cold.json" "$dir/ingest-neo4j-cold.log" on neo4j ingest --json --seed "$seed" --layers "$layers" "$corpus")
		"$out/bin/wipe" -force >/dev/null || die "could not empty the database at $NEO4J_URI"
	fi
	echo "== $name: ingest $corpus (neo4j)" >&2
	t_neo=$(run "$dir/ingest-neo4j.json" "$dir/ingest-neo4j.log" on neo4j ingest --json --seed "$seed" --layers "$layers" "$corpus")
	for b in embedded neo4j; do
		jq -e --arg b "$b" '.backend.kind == $b' "$dir/ingest-$b.json" >/dev/null ||
			die "the $b ingest went to $(jq -c .backend "$dir/ingest-$b.json")"
		jq -e '.failed == 0 and (.skipped | length) == 0' "$dir/ingest-$b.json" >/dev/null ||
			echo "parity: warning: the $b ingest skipped or failed inputs: $(jq -c '{failed, skipped}' "$dir/ingest-$b.json")" >&2
	done
	echo "{\"embedded\": $t_emb, \"neo4j\": $t_neo, \"neo4j_cold\": $t_cold}" >"$dir/wall.json"
	echo "   wall: embedded ${t_emb}s, neo4j ${t_neo}s$([ "$warm" = 1 ] && echo " (first run: ${t_cold}s)")" >&2
	for b in embedded neo4j; do
		run "$dir/status-$b.json" "$dir/status-$b.log" on "$b" status --json >/dev/null
	done
	echo "== $name: compare the graphs" >&2
	"$out/bin/compare" stores -name "$name" -data-dir "$dir/embedded-store" -json "$dir/graph.json" | tee "$dir/graph.txt"
	if [ -n "$q" ]; then
		echo "== $name: compare the searches retrieval starts from" >&2
		"$out/bin/compare" search -data-dir "$dir/embedded-store" -questions "$q" -json "$dir/search.json" | tee "$dir/search.txt"
		for m in $modes; do
			for b in embedded neo4j; do
				echo "== $name: eval $m ($b)" >&2
				t=$(run "$dir/eval-$b-$m.json" "$dir/eval-$b-$m.log" on "$b" eval --json --questions "$q" --mode "$m")
				echo "   ${t}s" >&2
			done
		done
	fi
done

echo "== report" >&2
"$out/bin/compare" report -dir "$out" -modes "$modes" "${names[@]}" | tee "$out/report.txt"
echo "raw outputs in $out/ (report.txt, <corpus>/*.json)" >&2
[ "$own_neo4j" = 1 ] || echo "the last corpus stays in the database at $NEO4J_URI" >&2
