"""Load test of one `strata serve` holding two workspaces, with API keys.

    python3 load.py URL WORKDIR QUESTIONS [CLIENTS] [PER_CLIENT]

WORKDIR holds north.ids and south.ids (the document ids of each workspace's store, one a line)
and keys (north's key, south's key, one a line, as load.sh writes them). QUESTIONS is JSON Lines
with "query" or "question", or plain text, one question a line.

After a warm-up of one client (not counted), two phases, each CLIENTS threads (default 16) sending PER_CLIENT queries (default 200) one after
the other on a keep-alive connection, every query to a random workspace in a random mode
(MODES, default "naive local global hi lca ppr"), context only (the server runs offline):

1. every request with its workspace's key: each answer must be 200 and name documents of its
   workspace only (chunks, and the [doc:...] citations of the context text);
2. the same with a third of the requests carrying a wrong key, half of them an unknown key (must
   be 401), half the other workspace's key (must be 403).

Prints per phase and mode the p50/p99 latency at the client (ms) and the throughput, the errors
(a wrong status, or a document of the other workspace), and phase 2's p99 of the accepted
requests against phase 1's. With SERVE_PID (the server's pid), the phases start once the server
is idle after the warm-up (a resident store builds some in-memory indexes in the background after
its first searches). Standard library only. Exit 1 on any error.
"""

import http.client
import json
import os
import random
import re
import sys
import threading
import time
import urllib.parse


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))] if xs else float("nan")


def cpu_ticks(pid):
    """User + system CPU of process pid so far, in clock ticks (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_idle(pid, limit=60.0):
    """Waits until process pid uses under 2 clock ticks of CPU in 0.3 s, at most limit seconds;
    returns the seconds waited."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        before = cpu_ticks(pid)
        time.sleep(0.3)
        if cpu_ticks(pid) - before < 2:
            break
    return time.perf_counter() - start


def read_questions(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if path.endswith(".jsonl"):
                rec = json.loads(line)
                out.append(rec.get("query") or rec["question"])
            else:
                out.append(line)
    return out


CITATION = re.compile(r"\[doc:(\S+) chunk:")


def run_phase(url, names, keys, docs, questions, modes, clients, per_client, wrong_share, seed):
    u = urllib.parse.urlparse(url)
    results = []  # (kind, mode, ms, error or None); kind: good, unknown-key, other-key
    lock = threading.Lock()

    def client(n):
        rnd = random.Random(seed * 1000 + n)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
        mine = []
        for _ in range(per_client):
            w = rnd.randrange(2)
            mode = rnd.choice(modes)
            kind, key = "good", keys[w]
            if rnd.random() < wrong_share:
                if rnd.random() < 0.5:
                    kind, key = "unknown-key", "%032x" % rnd.getrandbits(128)
                else:
                    kind, key = "other-key", keys[1 - w]
            body = json.dumps({"question": rnd.choice(questions), "mode": mode, "context_only": True})
            t = time.perf_counter()
            try:
                conn.request("POST", f"/w/{names[w]}/query", body,
                             {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
                resp = conn.getresponse()
                raw = resp.read()
            except (OSError, http.client.HTTPException) as e:
                mine.append((kind, mode, (time.perf_counter() - t) * 1000, f"{type(e).__name__}: {e}"))
                conn.close()
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
                continue
            ms = (time.perf_counter() - t) * 1000
            err = None
            want = {"good": 200, "unknown-key": 401, "other-key": 403}[kind]
            if resp.status != want:
                err = f"{kind} {names[w]} {mode}: status {resp.status}, want {want}: {raw[:200]!r}"
            elif kind == "good":
                out = json.loads(raw)
                seen = {c["document_id"] for c in out["context"]["chunks"]}
                seen |= set(CITATION.findall(out.get("context_text") or ""))
                foreign = seen - docs[w]
                if foreign:
                    err = f"{names[w]} {mode}: documents of another workspace: {sorted(foreign)[:5]}"
            mine.append((kind, mode, ms, err))
        conn.close()
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    start = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return results, time.perf_counter() - start


def report(title, results, wall, modes):
    good = [r for r in results if r[0] == "good" and r[3] is None]
    errors = [r for r in results if r[3] is not None]
    print(f"\n{title}: {len(results)} requests in {wall:.1f} s, {len(results) / wall:.1f} requests/s "
          f"({len(good) / wall:.1f} answered/s); errors: {len(errors)}")
    for kind in ("unknown-key", "other-key"):
        rs = [r for r in results if r[0] == kind]
        if rs:
            refused = sum(1 for r in rs if r[3] is None)
            print(f"  {kind}: {len(rs)} sent, {refused} refused as they should be; p50 {pct([r[2] for r in rs], 50):.1f} ms")
    print(f"  {'mode':8} {'n':>5} {'p50 ms':>8} {'p99 ms':>8}")
    for mode in modes + ["all"]:
        lat = [r[2] for r in good if mode in ("all", r[1])]
        print(f"  {mode:8} {len(lat):5} {pct(lat, 50):8.1f} {pct(lat, 99):8.1f}")
    for r in errors[:10]:
        print("  error:", r[3])
    return good, errors


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    url, workdir, qpath = argv[1:4]
    clients = int(argv[4]) if len(argv) > 4 else 16
    per_client = int(argv[5]) if len(argv) > 5 else 200
    modes = os.environ.get("MODES", "naive local global hi lca ppr").split()
    names = ["north", "south"]
    docs = [set(open(os.path.join(workdir, n + ".ids")).read().split()) for n in names]
    keys = open(os.path.join(workdir, "keys")).read().split("\n")
    keys = [keys[0].split()[0], keys[1].split()[0]]
    questions = read_questions(qpath)
    print(f"{clients} clients x {per_client} queries, modes {' '.join(modes)}, {len(questions)} questions; "
          f"workspaces {names[0]} ({len(docs[0])} documents) and {names[1]} ({len(docs[1])})")
    # Warm-up, not counted: a resident store builds some in-memory indexes at its first queries.
    warm, _ = run_phase(url, names, keys, docs, questions, modes, 1, 4 * len(modes), 0, 0)
    if any(r[3] for r in warm):
        print("warm-up errors:", [r[3] for r in warm if r[3]][:5])
        return 1
    if os.environ.get("SERVE_PID"):
        print(f"warm-up: {len(warm)} queries, then the server was idle after {wait_idle(int(os.environ['SERVE_PID'])):.1f} s")
    r1, w1 = run_phase(url, names, keys, docs, questions, modes, clients, per_client, 0, 1)
    good1, err1 = report("phase 1, every key right", r1, w1, modes)
    r2, w2 = run_phase(url, names, keys, docs, questions, modes, clients, per_client, 1 / 3, 2)
    good2, err2 = report("phase 2, a third of the keys wrong", r2, w2, modes)
    p99a, p99b = pct([r[2] for r in good1], 99), pct([r[2] for r in good2], 99)
    print(f"\naccepted requests' p99: {p99a:.1f} ms with right keys, {p99b:.1f} ms with a third wrong "
          f"({p99b / p99a:.2f}x)")
    return 1 if err1 or err2 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
