"""What the Neo4j side of served queries waits on: for each mode, the statements (and in-memory
copy loads) of the first request to a new `strata serve` and, over the questions asked ROUNDS
times after it, the statements per query and each statement's p50 time, from the server's
debug log (one line per statement sent and per copy loaded).

    python3 statements.py STRATA_BIN DATA_DIR QUESTIONS MODES

The store is the one the environment names (NEO4J_URI, else DATA_DIR). WAIT_WARM=1 waits until
/healthz says "warm" before the first request. ROUNDS (default 2). Standard library only.
"""

import collections
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, data_dir, qfile, modes = argv[1], argv[2], argv[3], argv[4].split()
    rounds = int(os.environ.get("ROUNDS", "2"))
    with open(qfile) as f:
        questions = [line.strip() for line in f if line.strip()]
    env = dict(os.environ, STRATA_OFFLINE="1")
    proc = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--log-format", "json", "--log-level", "debug",
                             "--data-dir", data_dir], stderr=subprocess.PIPE, text=True, env=env)
    url, lines, lock = None, [], threading.Lock()
    for line in proc.stderr:
        rec = json.loads(line)
        if rec.get("message") == "serving":
            url = rec["url"]
            break
    if url is None:
        print("strata serve exited without serving", file=sys.stderr)
        return 1

    def read():
        for line in proc.stderr:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("message") in ("cypher", "copy loaded"):
                with lock:
                    lines.append(rec)
    threading.Thread(target=read, daemon=True).start()

    def take():
        time.sleep(0.05)  # the last lines of a request reach the log after its answer
        with lock:
            out = lines[:]
            lines.clear()
        return out

    def get(path):
        with urllib.request.urlopen(url + path) as resp:
            return json.load(resp)

    def post(body):
        req = urllib.request.Request(url + "/query", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        t = time.perf_counter()
        with urllib.request.urlopen(req) as resp:
            json.load(resp)
        return (time.perf_counter() - t) * 1000

    def name(rec):
        return rec.get("statement") or "copy " + rec["copy"]

    try:
        if os.environ.get("WAIT_WARM") == "1":
            t = time.perf_counter()
            while not get("/healthz").get("warm", True):
                time.sleep(0.1)
            print(f"warm after {time.perf_counter() - t:.1f} s")
        take()
        for mode in modes:
            cold = post({"question": questions[0], "mode": mode, "context_only": True})
            recs = take()
            print(f"== {mode}: first request {cold:.0f} ms; statements, ms (rows when over 1000):")
            print("   " + ", ".join(f"{name(r)} {r['took']:.0f}" + (f" ({r['rows']})" if r["rows"] > 1000 else "") for r in recs))
            per, walls, counts = collections.defaultdict(list), [], []
            for q in questions * rounds:
                walls.append(post({"question": q, "mode": mode, "context_only": True}))
                recs = take()
                counts.append(len(recs))
                for r in recs:
                    per[name(r)].append(r["took"])
            n = len(walls)
            print(f"   then {n} requests: p50 {statistics.median(walls):.1f} ms, statements per request p50 {statistics.median(counts):g}")
            for k, v in sorted(per.items(), key=lambda kv: -sum(kv[1])):
                print(f"     {k:30} {len(v) / n:5.2f} per request, p50 {statistics.median(v):6.2f} ms")
    finally:
        proc.terminate()
        proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
