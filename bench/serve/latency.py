"""Query latency of a fresh `strata query` process against `strata serve`, on one store.

    python3 latency.py STRATA_BIN DATA_DIR QUESTIONS [N] [MODES]

For each mode (default "hi naive") and the first N questions (default 20): the wall time of
`strata query --json` as a new process per question (process start, store open and vector load
included), then the wall time of POST /query to one `strata serve` over the same store, measured
at the client, after one warm-up request per mode (the first request's time is shown apart) and
a wait until the server is idle (a resident store builds its in-memory text indexes in the
background after its first searches; the wait is shown too).
Prints p50 / p95 in ms, and the server's peak RSS. Standard library only.
QUESTIONS is JSON Lines ({"question": ...}) or, for any other name than *.jsonl, one question
per line. Environment: FRESH=0 skips the fresh processes; ROUNDS=R asks the server every
question R times (default 1), for a steadier p95 from few questions; NEO4J=1 keeps NEO4J_URI (and
the other NEO4J_* variables) from the environment, so that the store served is that Neo4j database
rather than DATA_DIR; WARMUP=0 sends no warm-up request and does not wait (the server as a user
meets it right after it starts: its first requests count); WAIT_WARM=1 first waits until GET /healthz
says "warm" (a Neo4j store loads its copies in the background) and prints how long; JSON_OUT=path also writes the p50 per mode and way as JSON
({"hi": {"fresh process": ms, "strata serve": ms}, ...}).
"""

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]


def cpu_ticks(pid):
    """User + system CPU of process pid so far, in clock ticks (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_idle(pid, limit=30.0):
    """Waits until process pid uses under 2 clock ticks of CPU in 0.3 s (a resident store loads
    some structures in the background after the first request), at most limit seconds; returns
    the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        before = cpu_ticks(pid)
        time.sleep(0.3)
        if cpu_ticks(pid) - before < 2:
            break
    return time.perf_counter() - start


def start_serve(binary, data_dir, env):
    """Starts `strata serve` over data_dir on a free loopback port and returns the process and its
    URL (None when it exited without serving)."""
    proc = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--log-format", "json",
                             "--data-dir", data_dir], stderr=subprocess.PIPE, text=True, env=env)
    for line in proc.stderr:
        rec = json.loads(line)
        if rec.get("message") == "serving":
            # The request log goes on; a reader keeps the pipe from filling.
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, rec["url"]
    return proc, None


def post(url, body):
    req = urllib.request.Request(url + "/query", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary, data_dir, qfile = argv[1:4]
    n = int(argv[4]) if len(argv) > 4 else 20
    modes = (argv[5] if len(argv) > 5 else "hi naive").split()
    with open(qfile) as f:
        if qfile.endswith(".jsonl"):
            questions = [json.loads(line)["question"] for line in f if line.strip()][:n]
        else:
            questions = [line.strip() for line in f if line.strip()][:n]
    fresh = os.environ.get("FRESH", "1") != "0"
    rounds = int(os.environ.get("ROUNDS", "1"))
    warmup = os.environ.get("WARMUP", "1") != "0"
    env = dict(os.environ, STRATA_OFFLINE="1")
    if os.environ.get("NEO4J", "0") != "1":
        env["NEO4J_URI"] = ""
    rows = []
    for mode in modes if fresh else []:
        cli = []
        for q in questions:
            t = time.perf_counter()
            subprocess.run([binary, "query", "--json", "--log-level", "warn", "--data-dir", data_dir, "--mode", mode, "--", q],
                           check=True, capture_output=True, env=env)
            cli.append((time.perf_counter() - t) * 1000)
        rows.append((mode, "fresh process", cli, None))

    proc, url = start_serve(binary, data_dir, env)
    if url is None:
        print("strata serve exited without serving", file=sys.stderr)
        return 1
    try:
        if os.environ.get("WAIT_WARM") == "1":
            t = time.perf_counter()
            while True:
                with urllib.request.urlopen(url + "/healthz") as resp:
                    if json.load(resp).get("warm", True):
                        break
                time.sleep(0.1)
            print(f"warm after {time.perf_counter() - t:.1f} s")
        serve_rows = []
        for mode in modes:
            first, idle = None, 0.0
            if warmup:
                t = time.perf_counter()
                post(url, {"question": questions[0], "mode": mode})
                first = (time.perf_counter() - t) * 1000
                idle = wait_idle(proc.pid)
            lat, server = [], []
            for q in questions * rounds:
                t = time.perf_counter()
                res = post(url, {"question": q, "mode": mode})
                lat.append((time.perf_counter() - t) * 1000)
                server.append(res["timings_ms"]["total"])
            serve_rows.append((mode, "strata serve", lat, (first, idle, server)))
        with open(f"/proc/{proc.pid}/status") as f:
            hwm = next(line.split()[1] for line in f if line.startswith("VmHWM"))
    finally:
        proc.terminate()
        proc.wait()
    print(f"{len(questions)} questions (served {rounds}x); store {data_dir}")
    print(f"{'mode':6} {'how':14} {'p50 ms':>8} {'p95 ms':>8}   notes")
    for mode, how, lat, extra in rows + serve_rows:
        note = ""
        if extra:
            first, idle, server = extra
            note = f"server-side total p50 {statistics.median(server):.1f} ms"
            if first is not None:
                note = f"first request {first:.1f} ms, then idle after {idle:.1f} s; " + note
        print(f"{mode:6} {how:14} {pct(lat, 50):8.1f} {pct(lat, 95):8.1f}   {note}")
    if os.environ.get("JSON_OUT"):
        out = {}
        for mode, how, lat, _ in rows + serve_rows:
            out.setdefault(mode, {})[how] = pct(lat, 50)
        with open(os.environ["JSON_OUT"], "w") as f:
            json.dump(out, f)
    print(f"strata serve peak RSS: {int(hwm) / 1024:.0f} MiB (exit {proc.returncode} after SIGTERM)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
