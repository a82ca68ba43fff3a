#!/usr/bin/env bash
# Runs a Neo4j 5.26 Community server with the open-source Graph Data Science library on this
# machine, without Docker: Maven assembles the server from the jars pinned in pom.xml (next to this
# script), and Java 17 or 21 runs it.
#
#   docker/local/neo4j.sh up       assemble (first time, or when pom.xml changed), start, wait for Bolt + GDS
#   docker/local/neo4j.sh down     stop the server (the graph stays in $STRATA_NEO4J_HOME/data)
#   docker/local/neo4j.sh status   running or not, versions
#   docker/local/neo4j.sh logs     the server log
#   docker/local/neo4j.sh reset    stop and delete the database files (the jars stay)
#
# Settings (environment):
#   NEO4J_PASSWORD     password of user neo4j, set at the first start (8+ characters)
#   NEO4J_AUTH=none    run without authentication instead (CI does; the server listens on loopback only)
#   STRATA_NEO4J_HOME  this server's configuration, data and logs (default: .neo4j/server in the repository)
#   STRATA_NEO4J_DIST  the assembled jars, shared by every server (default: .neo4j/dist)
#   NEO4J_BOLT_PORT    Bolt port on 127.0.0.1 (default 7687); NEO4J_HTTP_PORT Browser/HTTP port (default 7474)
#   NEO4J_HEAP, NEO4J_PAGECACHE   JVM heap and page cache (default 1g and 512m)
#   NEO4J_START_TIMEOUT           seconds to wait for the server (default 180)
#   MAVEN_OPTS, MVN               how Maven runs; its repository (~/.m2 by default) is the download cache
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
home="${STRATA_NEO4J_HOME:-$repo/.neo4j/server}"
dist="${STRATA_NEO4J_DIST:-$repo/.neo4j/dist}"
bolt_port="${NEO4J_BOLT_PORT:-7687}"
http_port="${NEO4J_HTTP_PORT:-7474}"
heap="${NEO4J_HEAP:-1g}"
pagecache="${NEO4J_PAGECACHE:-512m}"
timeout="${NEO4J_START_TIMEOUT:-180}"
mvn="${MVN:-mvn}"
pidfile="$home/run/neo4j.pid"

die() { echo "neo4j.sh: $*" >&2; exit 1; }

java_bin() {
	if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME/bin/java"; else command -v java || die "java not found: install Java 17 or 21 (or set JAVA_HOME)"; fi
}

check_java() {
	local v
	v="$("$(java_bin)" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)"
	case "$v" in
	17 | 21) ;;
	*) die "Neo4j 5.26 runs on Java 17 or 21; $(java_bin) is Java ${v:-unknown} (set JAVA_HOME)" ;;
	esac
}

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

# port_busy says whether something already listens on 127.0.0.1:$1: it would answer in place of
# the server started here.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# assemble copies the jars once per pom.xml version; Maven's own repository caches the downloads.
assemble() {
	local stamp="$dist/lib/.pom.sha256" sum
	sum="$(sha256sum "$here/pom.xml" | cut -d' ' -f1)"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then return; fi
	command -v "$mvn" >/dev/null || die "Maven ($mvn) not found: install Maven 3.8+"
	echo "neo4j.sh: assembling Neo4j + GDS from Maven Central into $dist (first run downloads ~175 MB)" >&2
	rm -rf "$dist/lib" "$dist/plugins"
	# Maven's quiet mode still prints colour resets; strip them so CI logs stay readable.
	"$mvn" -B -q -Dstyle.color=never -f "$here/pom.xml" package -Dstrata.neo4j.dist="$dist" 2>&1 |
		sed -e 's/\x1b\[[0-9;]*m//g' -e '/^$/d' >&2 ||
		die "Maven could not assemble the server (see its output above)"
	echo "$sum" >"$stamp"
}

configure() {
	mkdir -p "$home/conf" "$home/data" "$home/logs" "$home/run" "$home/import"
	local auth=true
	[ "${NEO4J_AUTH:-}" = none ] && auth=false
	# Written at every start so that port and memory settings follow the environment.
	cat >"$home/conf/neo4j.conf" <<EOF
# Written by docker/local/neo4j.sh at every start; edit the script's settings, not this file.
server.directories.lib=$dist/lib
server.directories.plugins=$dist/plugins
server.directories.data=$home/data
server.directories.logs=$home/logs
server.directories.run=$home/run
server.directories.import=$home/import
server.default_listen_address=127.0.0.1
server.bolt.listen_address=127.0.0.1:$bolt_port
server.bolt.advertised_address=127.0.0.1:$bolt_port
server.http.enabled=true
server.http.listen_address=127.0.0.1:$http_port
server.http.advertised_address=127.0.0.1:$http_port
server.https.enabled=false
dbms.security.auth_enabled=$auth
dbms.security.procedures.unrestricted=gds.*
server.memory.heap.initial_size=$heap
server.memory.heap.max_size=$heap
server.memory.pagecache.size=$pagecache
db.tx_log.rotation.retention_policy=2 files
EOF
	if [ "$auth" = true ] && [ ! -f "$home/data/dbms/auth.ini" ] && [ ! -d "$home/data/databases/system" ]; then
		[ -n "${NEO4J_PASSWORD:-}" ] || die "set NEO4J_PASSWORD (8+ characters) for user neo4j, or NEO4J_AUTH=none to run without authentication"
		[ "${#NEO4J_PASSWORD}" -ge 8 ] || die "NEO4J_PASSWORD must have at least 8 characters"
		NEO4J_HOME="$home" NEO4J_CONF="$home/conf" "$(java_bin)" -cp "$dist/lib/*" org.neo4j.cli.AdminTool \
			dbms set-initial-password "$NEO4J_PASSWORD" >/dev/null ||
			die "could not set the initial password"
	fi
}

# query runs one Cypher statement over the HTTP API and prints the JSON answer.
query() {
	local auth=()
	if [ "${NEO4J_AUTH:-}" != none ]; then auth=(-u "neo4j:${NEO4J_PASSWORD:-}"); fi
	curl -fsS --max-time 10 "${auth[@]}" -H 'Content-Type: application/json' \
		-d "{\"statements\":[{\"statement\":\"$1\"}]}" "http://127.0.0.1:$http_port/db/neo4j/tx/commit"
}

show_failure() {
	echo "---- $home/logs/console.log (last 40 lines)" >&2
	tail -n 40 "$home/logs/console.log" >&2 2>/dev/null || true
	echo "---- $home/logs/neo4j.log (last 40 lines)" >&2
	tail -n 40 "$home/logs/neo4j.log" >&2 2>/dev/null || true
	echo "---- errors in $home/logs/debug.log" >&2
	grep -E ' ERROR ' "$home/logs/debug.log" 2>/dev/null | tail -n 20 >&2 || true
}

up() {
	if running; then
		echo "neo4j.sh: already running (pid $(cat "$pidfile"))" >&2
		versions
		return
	fi
	check_java
	command -v curl >/dev/null || die "curl not found"
	local port
	for port in "$bolt_port" "$http_port"; do
		port_busy "$port" && die "127.0.0.1:$port is in use by another process (another Neo4j? set NEO4J_BOLT_PORT / NEO4J_HTTP_PORT)"
	done
	assemble
	configure
	# The JVM options the official launcher adds that matter here: Lucene's vector index and Netty
	# need the nio internals opened.
	nohup "$(java_bin)" -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow \
		-XX:+DisableExplicitGC -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true \
		-Dlog4j2.disable.jmx=true \
		--add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
		--add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
		-cp "$dist/lib/*" org.neo4j.server.CommunityEntryPoint \
		--home-dir="$home" --config-dir="$home/conf" >"$home/logs/console.log" 2>&1 &
	echo $! >"$pidfile"
	local waited=0
	until query 'RETURN gds.version()' >/dev/null 2>&1; do
		if ! running; then
			show_failure
			die "the server exited during start-up"
		fi
		if [ "$waited" -ge "$timeout" ]; then
			show_failure
			down >/dev/null 2>&1 || true
			die "no answer on 127.0.0.1:$http_port within ${timeout}s"
		fi
		sleep 1
		waited=$((waited + 1))
	done
	versions
}

versions() {
	local out
	out="$(query 'CALL dbms.components() YIELD versions, edition RETURN versions[0] + \" \" + edition + \", GDS \" + gds.version()')" ||
		die "the server does not answer on 127.0.0.1:$http_port"
	echo "neo4j.sh: Neo4j $(echo "$out" | sed -n 's/.*"row":\["\([^"]*\)".*/\1/p') on bolt://127.0.0.1:$bolt_port (pid $(cat "$pidfile"), home $home)"
}

down() {
	if ! running; then
		echo "neo4j.sh: not running" >&2
		rm -f "$pidfile"
		return
	fi
	local pid waited=0
	pid="$(cat "$pidfile")"
	kill "$pid"
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$waited" -ge 60 ]; then
			echo "neo4j.sh: no clean shutdown after 60s; killing pid $pid" >&2
			kill -9 "$pid" 2>/dev/null || true
			break
		fi
		sleep 1
		waited=$((waited + 1))
	done
	rm -f "$pidfile"
	echo "neo4j.sh: stopped" >&2
}

case "${1:-}" in
up) up ;;
down) down ;;
status) if running; then versions; else echo "neo4j.sh: not running"; exit 3; fi ;;
logs) cat "$home/logs/neo4j.log" ;;
reset) down; rm -rf "$home/data" "$home/logs" "$home/run" ;;
*) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
