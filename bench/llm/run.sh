#!/bin/sh
# Measures LLM client throughput against the fake server at 50 ms latency and concurrency 16.
# "%ideal" is the ideal wall time (calls × latency ÷ concurrency) over the measured one.
set -eu
cd "$(dirname "$0")/../.."
go test -run '^$' -bench . -benchtime "${BENCHTIME:-5x}" -count "${COUNT:-1}" ./bench/llm
