#!/usr/bin/env bash
# Load test of strata serve with two workspaces and API keys (bench/serve/load.py): the mix corpus
# ($SHARED_DATA/mix/corpus.jsonl, read in place) split into two halves by document (even and odd
# ids), each ingested offline into its own store under DIR (kept; a store already there is
# reused), served by one `strata serve --workspace north=... --workspace south=...` with a key per
# workspace; then CLIENTS (16) clients x PER_CLIENT (200) mixed-mode queries, every answer
# checked against its workspace, and the same with a third of the requests carrying a wrong key.
# Usage: bench/serve/load.sh [DIR]   (STRATA=path to time another build; MODES; CLIENTS;
# PER_CLIENT; QUESTIONS, default the mix answers' 130 questions)
# Prints p50/p99 and throughput per phase, and the server's peak RSS.
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
tmpdir=
trap 'rm -rf "$tmpdir"' EXIT
if [ $# -ge 1 ]; then dir=$1; case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
else dir=$(mktemp -d); tmpdir=$dir; fi
cd "$(dirname "$0")/../.."
if [ -z "${STRATA:-}" ]; then go build -o bin/strata ./cmd/strata; STRATA=./bin/strata; fi
export STRATA_OFFLINE=1 NEO4J_URI=
shared=${SHARED_DATA:-../shared/data}
corpus=$shared/mix/corpus.jsonl
questions=${QUESTIONS:-$shared/mix/answers/naive.jsonl}
mkdir -p "$dir"
python3 - "$corpus" "$dir" <<'PY'
import json, sys
corpus, out = sys.argv[1:3]
halves = {"north": [], "south": []}
for n, line in enumerate(l for l in open(corpus) if l.strip()):
    halves["north" if n % 2 == 0 else "south"].append(line)
for name, lines in halves.items():
    with open(f"{out}/{name}.jsonl", "w") as f:
        f.writelines(lines)
    with open(f"{out}/{name}.ids", "w") as f:
        f.write("\n".join(json.loads(l)["id"] for l in lines) + "\n")
PY
for ws in north south; do
  if [ ! -f "$dir/$ws/strata.db" ]; then
    echo "== ingest $ws ($(wc -l <"$dir/$ws.jsonl") documents of the mix corpus)"
    "$STRATA" ingest --log-level warn --data-dir "$dir/$ws" "$dir/$ws.jsonl" >/dev/null
  fi
done
( umask 077; printf '%s north\n%s south\n' "$(openssl rand -hex 16)" "$(openssl rand -hex 16)" >"$dir/keys" )
log=$(mktemp); trap 'rm -f "$log"; rm -rf "$tmpdir"' EXIT
"$STRATA" serve --addr 127.0.0.1:0 --log-format json --api-keys "$dir/keys" \
  --workspace north="$dir/north" --workspace south="$dir/south" 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"; rm -rf "$tmpdir"' EXIT
for _ in $(seq 300); do
  url=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("message") == "serving": print(r["url"]); break' "$log" 2>/dev/null || true)
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "strata serve did not start" >&2; exit 1; }
echo "== $url, load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
SERVE_PID=$pid python3 bench/serve/load.py "$url" "$dir" "$questions" "${CLIENTS:-16}" "${PER_CLIENT:-200}" || status=$?
echo "strata serve peak RSS: $(( $(awk '/VmHWM/ {print $2}' /proc/$pid/status) / 1024 )) MiB; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "request log: $(grep -c '"message":"request"' "$log") lines, $(grep -c '"status":401' "$log") with 401, $(grep -c '"status":403' "$log") with 403; keys in it: $(grep -c -F -f <(cut -d' ' -f1 "$dir/keys") "$log" || true)"
exit $status
