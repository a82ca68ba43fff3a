"""Writes the context of every question in every mode, as `strata query --json --context-only`
returns it (context and context_text), from fresh processes and from one `strata serve`, so that
two builds can be compared file by file.

    python3 contexts.py STRATA_BIN DATA_DIR QUESTIONS OUT_DIR MODES

OUT_DIR/query/MODE-N.json and OUT_DIR/serve/MODE-N.json, N the question's line (from 1).
The store is the one the environment names (NEO4J_URI, else DATA_DIR). Standard library only.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from latency import post, start_serve  # noqa: E402  (bench/serve/latency.py)


def context(res):
    return json.dumps({"context": res["context"], "context_text": res["context_text"]}, indent=1, sort_keys=True)


def main(argv):
    if len(argv) != 6:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, data_dir, qfile, out, modes = argv[1:6]
    with open(qfile) as f:
        questions = [line.strip() for line in f if line.strip()]
    env = dict(os.environ, STRATA_OFFLINE="1")
    for how in ("query", "serve"):
        os.makedirs(os.path.join(out, how), exist_ok=True)
    for mode in modes.split():
        for i, q in enumerate(questions, 1):
            res = subprocess.run([binary, "query", "--json", "--context-only", "--log-level", "warn",
                                  "--data-dir", data_dir, "--mode", mode, "--", q],
                                 check=True, capture_output=True, env=env, text=True)
            with open(os.path.join(out, "query", f"{mode}-{i}.json"), "w") as f:
                f.write(context(json.loads(res.stdout)))
    proc, url = start_serve(binary, data_dir, env)
    if url is None:
        print("strata serve exited without serving", file=sys.stderr)
        return 1
    try:
        for mode in modes.split():
            for i, q in enumerate(questions, 1):
                res = post(url, {"question": q, "mode": mode, "context_only": True})
                with open(os.path.join(out, "serve", f"{mode}-{i}.json"), "w") as f:
                    f.write(context(res))
    finally:
        proc.terminate()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
