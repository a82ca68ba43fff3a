#!/usr/bin/env bash
# Peak memory and wall time of an offline ingest of ONE huge single-line document. Builds two
# documents of SIZE_MB MiB (default 50): "natural", the texts of the mix corpus
# ($SHARED_DATA/mix/corpus.jsonl) joined into one line and repeated until the size is reached, and
# "adversarial", sentences of random words half of them capitalised (nearly every capitalised
# run a new entity for the offline extractor, related to the others of its sentence). Each is
# ingested into a fresh temporary store (see KEEP) with STRATA_OFFLINE=1 and the script
# prints wall time and peak RSS (GNU time, %M).
# Usage: bench/bigdoc/run.sh [natural|adversarial ...]   (SIZE_MB=10 for a quicker run,
# STRATA=path/to/strata to time another build, LOG_LEVEL=info for per-batch progress and a
# "stage finished" line per stage with its time, Go heap in use and peak RSS so far;
# STRATA_HEAP_PROFILE=file writes a heap profile taken near the peak of the Go heap; KEEP=dir
# keeps the documents and stores in dir, and a second run with the same KEEP resumes an
# interrupted ingest there, with another STRATA if need be)
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
command -v /usr/bin/time >/dev/null || { echo "needs GNU time: apt-get install time" >&2; exit 1; }
if [ -z "${STRATA:-}" ]; then go build -o bin/strata ./cmd/strata; STRATA=./bin/strata; fi
export STRATA_OFFLINE=1
size=$(( ${SIZE_MB:-50} * 1024 * 1024 ))
corpus=${CORPUS:-${SHARED_DATA:-../shared/data}/mix/corpus.jsonl}
if [ -n "${KEEP:-}" ]; then
  work=$KEEP; mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
for kind in "${@:-natural adversarial}"; do
  for k in $kind; do
    doc=$work/$k.txt
    [ -f "$doc" ] && [ "$(stat -c %s "$doc")" = "$size" ] || python3 - "$k" "$size" "$corpus" "$doc" <<'PY'
import json, random, sys
kind, size, corpus, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if kind == "natural":
    with open(corpus) as f:
        text = " ".join(" ".join(json.loads(l)["text"].split()) for l in f if l.strip())
    data = ((text + " ") * (size // (len(text) + 1) + 1))[:size]
elif kind == "adversarial":
    # Sentences of 8 to 15 random words, half of them capitalised: nearly every capitalised
    # run is a new proper noun, and every sentence relates the names it holds.
    rng = random.Random(15)
    letters = "abcdefghijklmnopqrstuvwxyz"
    parts, n = [], 0
    while n < size:
        words = []
        for _ in range(rng.randint(8, 15)):
            w = "".join(rng.choice(letters) for _ in range(rng.randint(3, 9)))
            words.append(w.capitalize() if rng.random() < 0.5 else w)
        s = " ".join(words) + "."
        parts.append(s); n += len(s) + 1
    data = " ".join(parts)[:size]
else:
    sys.exit(f"unknown kind {kind!r}: natural or adversarial")
with open(out, "w") as f:
    f.write(data)
PY
    store=$work/store-$k
    mkdir -p "$store"
    echo "== $k: $(( $(stat -c %s "$doc") / 1024 / 1024 )) MiB, one line"
    /usr/bin/time -f "$k: %e s wall, %U s user, %S s sys, %M KiB peak RSS" "$STRATA" ingest --log-level "${LOG_LEVEL:-warn}" ${ARGS:-} --data-dir "$store" "$doc" >/dev/null
    "$STRATA" status --data-dir "$store" --log-level warn | grep -E '^  (chunks|entities|communities) ' || true
  done
done
