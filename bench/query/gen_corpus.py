#!/usr/bin/env python3
"""Writes SCALE copies of a .jsonl corpus to stdout, for latency benchmarks at SCALE times the
entities. Copy 0 is the corpus as it is; in copy i every capitalized word (what the offline
proper-noun extractor takes for a name) gets a suffix made from i, systematically, so that each
copy names its own set of entities while its text keeps the same shape.
Usage: gen_corpus.py CORPUS.jsonl SCALE"""
import json
import re
import sys

SYLLABLES = ["ar", "ben", "cor", "dal", "ess", "fin", "gor", "hal", "ist", "jor", "kel", "lom"]


def suffix(i):
    out = ""
    while True:
        out += SYLLABLES[i % len(SYLLABLES)]
        i //= len(SYLLABLES)
        if i == 0:
            return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, scale = sys.argv[1], int(sys.argv[2])
    docs = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    word = re.compile(r"\b([A-Z][a-z]+)\b")
    for i in range(scale):
        for d in docs:
            if i == 0:
                out = d
            else:
                s = suffix(i - 1)
                out = dict(d)
                out["id"] = "%s-copy%d" % (d["id"], i)
                out["title"] = word.sub(lambda m: m.group(1) + s, d["title"]) + " (copy %d)" % i
                out["text"] = word.sub(lambda m: m.group(1) + s, d["text"])
            sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
