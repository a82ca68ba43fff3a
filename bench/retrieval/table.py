#!/usr/bin/env python3
"""Prints the recall x tokens table of every retrieval mode (docs/RETRIEVAL.md) as Markdown.

Usage: bench/retrieval/table.py [--strata BIN] [--work DIR] [--modes "hi lca ..."] [--flags "..."]
                                [--heldout DIR ...]

Without --strata, builds bin/strata from this tree first. Builds (offline, embedded store,
--arch 3) testdata/corpus and the shared multihop set ($SHARED_DATA/multihop, SHARED_DATA
defaulting to ../shared/data) into DIR (a temporary directory without --work, removed at the
end; a store already in DIR is reused), then runs `strata eval` in every mode and prints
recall@2/5/10 of gold documents and the mean context tokens per question on testdata, on
multihop, and on multihop's two halves (questions at even and odd lines: a rule chosen on one
half is checked on the other). --flags passes eval options (e.g. "--max-context-tokens 4000")
to every mode.
Each --heldout DIR adds a column: the corpora DIR/NAME-corpus.jsonl with their questions
DIR/NAME-questions.jsonl (as bench/multihop/hotpot.py writes them), every question of them
counted once. With STRATA_EMBEDDING_BASE_URL and STRATA_EMBEDDING_MODEL set, the stores are
embedded by that model instead of the hashing embedder (models/local/models.sh up serves
multilingual-e5-small); give such stores a --work of their own.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile

MODES = "hi hi_local hi_global hi_bridge hi_nobridge lca arch naive local global"


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, **kw).stdout


def ensure_store(strata, store, corpus):
    if os.path.exists(os.path.join(store, "strata.db")):
        return
    run([strata, "ingest", "--log-level", "warn", "--arch", "3", "--data-dir", store, corpus])


def evaluate(strata, store, questions, mode, flags):
    out = run([strata, "eval", "--log-level", "warn", "--json", "--data-dir", store,
               "--questions", questions, "--mode", mode] + flags)
    return json.loads(out)["results"]


def summary(results):
    n = len(results)
    if n == 0:
        return None
    r = [sum(q["recall"]["recall@%d" % k] for q in results) / n for k in (2, 5, 10)]
    return r + [sum(q["context_tokens"] for q in results) / n]


def cell(s):
    r = " / ".join(("%.3f" % x).lstrip("0") for x in s[:3])
    return "%s, %s" % (r, format(round(s[3]), ",").replace(",", " "))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--strata", help="the strata binary (default: go build -o bin/strata ./cmd/strata)")
    p.add_argument("--work")
    p.add_argument("--modes", default=MODES)
    p.add_argument("--flags", default="")
    p.add_argument("--heldout", action="append", default=[], metavar="DIR")
    a = p.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    shared = os.environ.get("SHARED_DATA", os.path.join(root, "..", "shared", "data"))
    os.environ["STRATA_OFFLINE"] = "1"
    if not a.strata:
        a.strata = os.path.join(root, "bin", "strata")
        subprocess.run(["go", "build", "-o", a.strata, "./cmd/strata"], cwd=root, check=True)
    work = a.work or tempfile.mkdtemp(prefix="strata-table-")
    try:
        table(a, root, shared, work)
    finally:
        if not a.work:
            shutil.rmtree(work)


def table(a, root, shared, work):
    sets = {
        "testdata": (os.path.join(root, "testdata", "corpus"), os.path.join(root, "testdata", "questions.jsonl")),
        "multihop": (os.path.join(shared, "multihop", "corpus.jsonl"), os.path.join(shared, "multihop", "questions.jsonl")),
    }
    heldout = []  # (column, [store name])
    for d in a.heldout:
        names = sorted(f[:-len("-corpus.jsonl")] for f in os.listdir(d) if f.endswith("-corpus.jsonl"))
        if not names:
            sys.exit("%s: no NAME-corpus.jsonl in it" % d)
        column = os.path.basename(os.path.normpath(d))
        for n in names:
            sets[column + "-" + n] = (os.path.join(d, n + "-corpus.jsonl"), os.path.join(d, n + "-questions.jsonl"))
        heldout.append((column, [column + "-" + n for n in names]))
    for name, (corpus, _) in sets.items():
        ensure_store(a.strata, os.path.join(work, name), corpus)
    head = ["testdata R@2 / R@5 / R@10, tokens", "multihop", "multihop even half", "multihop odd half"]
    head += [c for c, _ in heldout]
    print("| mode | %s |" % " | ".join(head))
    print("|---" * (len(head) + 1) + "|")

    def results(name, mode):
        return evaluate(a.strata, os.path.join(work, name), sets[name][1], mode, a.flags.split())

    for mode in a.modes.split():
        td, mh = results("testdata", mode), results("multihop", mode)
        cols = [summary(td), summary(mh), summary(mh[0::2]), summary(mh[1::2])]
        cols += [summary([r for n in names for r in results(n, mode)]) for _, names in heldout]
        print("| %s | %s |" % (mode, " | ".join(cell(c) for c in cols)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
