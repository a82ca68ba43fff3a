#!/usr/bin/env python3
"""BM25 over whole documents: the lexical reference strata's retrieval modes are compared with.

Each document is its title and text, lower-cased and split into runs of letters and digits;
Okapi BM25 with k1 = 1.2, b = 0.75 and the idf log(1 + (N - n + 0.5) / (n + 0.5)). A document
id seen twice keeps its last line, as `strata ingest` does. CORPUS may also be a folder: its .txt
and .md files are documents whose id is the path relative to the folder, and its .jsonl files are
read as above. Recall@k is the share of a question's
gold documents among the top k, averaged over questions, as `strata eval` computes it.

Usage: bm25.py CORPUS.jsonl|FOLDER QUESTIONS.jsonl   (standard library only)
"""
import json
import math
import os
import re
import sys
from collections import Counter

K1, B = 1.2, 0.75
WORD = re.compile(r"\w+", re.UNICODE)


def tokens(text):
    return [w for w in WORD.findall(text.lower()) if w != "_"]


def main(corpus_path, questions_path):
    docs = {}

    def read_jsonl(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    docs[d["id"]] = tokens(d.get("title", "") + " " + d.get("text", ""))

    if os.path.isdir(corpus_path):
        for root, _, files in sorted(os.walk(corpus_path)):
            for name in sorted(files):
                path = os.path.join(root, name)
                if name.endswith(".jsonl"):
                    read_jsonl(path)
                elif name.endswith((".txt", ".md")):
                    with open(path, encoding="utf-8") as f:
                        docs[os.path.relpath(path, corpus_path)] = tokens(f.read())
    else:
        read_jsonl(corpus_path)
    ids = list(docs)
    tf = [Counter(docs[i]) for i in ids]
    lengths = [len(docs[i]) for i in ids]
    avg = sum(lengths) / len(lengths)
    df = Counter(w for c in tf for w in c)
    n = len(ids)

    def score(query):
        q = set(tokens(query))
        out = []
        for j, c in enumerate(tf):
            s = 0.0
            for w in q:
                f = c.get(w)
                if f:
                    idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                    s += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * lengths[j] / avg))
            out.append((-s, ids[j]))
        return [i for _, i in sorted(out)]

    ks = (2, 5, 10)
    recall = dict.fromkeys(ks, 0.0)
    questions = [json.loads(l) for l in open(questions_path, encoding="utf-8") if l.strip()]
    for q in questions:
        ranked = score(q["question"])
        gold = set(q["gold"])
        for k in ks:
            recall[k] += len(gold & set(ranked[:k])) / len(gold) / len(questions)
    print("bm25 (documents): recall@2 %.3f  recall@5 %.3f  recall@10 %.3f  (%d documents, %d questions)"
          % (recall[2], recall[5], recall[10], n, len(questions)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
