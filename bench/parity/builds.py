#!/usr/bin/env python3
"""Do two strata builds give the same outputs? For a refactor that must change nothing.

Usage: bench/parity/builds.py OLD_BIN NEW_BIN [CORPUS [QUESTIONS]]

Each build ingests CORPUS (default testdata/corpus) offline with --arch 3 into a store of its
own, then answers every question of QUESTIONS (default testdata/questions.jsonl) with
`query --json --context-only` in every mode. The ingest reports and the query objects are
compared with their timings left out (and the store's location, which differs by design); the
script prints how many outputs differ and which, and exits 1 when any does.

Neo4j: with NEO4J_URI set (NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE) both builds use that
database, which the script empties before each ingest (go run ./bench/parity/wipe -force):
use a scratch server. Then the ingest reports' per-statement timings are left out too.
"""
import json, os, subprocess, sys, tempfile

MODES = "naive local global hi hi_local hi_global hi_bridge hi_nobridge lca arch ppr".split()
VARYING = {"timings_ms", "neo4j_statements", "neo4j_stages", "location"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in VARYING}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def outputs(strata, corpus, questions, neo4j):
    env = dict(os.environ, STRATA_OFFLINE="1")
    store = [] if neo4j else ["--data-dir", tempfile.mkdtemp(prefix="strata-builds-")]
    if neo4j:
        subprocess.run(["go", "run", "./bench/parity/wipe", "-force"], check=True, stdout=subprocess.DEVNULL)
    else:
        env["NEO4J_URI"] = ""
    run = lambda args: subprocess.run([strata] + args + ["--json", "--log-level", "warn"] + store,
                                      env=env, capture_output=True, text=True)
    r = run(["ingest", "--arch", "3", corpus])
    if r.returncode != 0:
        sys.exit(f"{strata} ingest: {r.stderr.strip()}")
    out = {"ingest": strip(json.loads(r.stdout))}
    for mode in MODES:
        for q in questions:
            r = run(["query", "--context-only", "--mode", mode, q])
            out[f"{mode}: {q}"] = strip(json.loads(r.stdout)) if r.returncode == 0 else ("exit", r.returncode, r.stderr[-300:])
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) > 3 else "testdata/corpus"
    qfile = sys.argv[4] if len(sys.argv) > 4 else "testdata/questions.jsonl"
    questions = [json.loads(l)["question"] for l in open(qfile) if l.strip()]
    neo4j = bool(os.environ.get("NEO4J_URI"))
    a, b = outputs(old, corpus, questions, neo4j), outputs(new, corpus, questions, neo4j)
    differ = [k for k in a if a[k] != b.get(k)]
    print(f"{'Neo4j' if neo4j else 'embedded store'}: {len(a)} outputs compared "
          f"(ingest, {len(MODES)} modes x {len(questions)} questions); {len(differ)} differ")
    for k in differ:
        print("  differs:", k)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
