#!/usr/bin/env python3
"""Splits a HotpotQA-style question file into held-out eval corpora for `strata eval`.

Input: JSON lines as IRCoT's processed HotpotQA files hold them, one question a line:
{"question_id", "question_text", "answers_objects": [{"spans": [...]}],
 "contexts": [{"title", "paragraph_text", "is_supporting"}, ...]}.
Every SIZE consecutive questions make one corpus: their paragraphs pooled (a title seen twice is
one document, id "hp:" + title) and their questions, whose gold documents are the supporting
paragraphs. Writes OUT/<name>-corpus.jsonl and OUT/<name>-questions.jsonl for names hp1, hp2, …
(a last, smaller group is dropped). Then, per corpus:
  CORPUS=OUT/hp1-corpus.jsonl QUESTIONS=OUT/hp1-questions.jsonl bench/multihop/run.sh

Usage: hotpot.py INPUT.jsonl OUT_DIR [SIZE]   (SIZE defaults to 60; standard library only)
"""
import json
import os
import sys


def main(path, out, size):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    os.makedirs(out, exist_ok=True)
    for n in range(len(rows) // size):
        docs, questions = {}, []
        for r in rows[n * size:(n + 1) * size]:
            gold = set()
            for c in r["contexts"]:
                docs[c["title"]] = c["paragraph_text"]
                if c["is_supporting"]:
                    gold.add("hp:" + c["title"])
            questions.append({"id": r["question_id"], "question": r["question_text"],
                              "answer": r["answers_objects"][0]["spans"][0], "gold": sorted(gold)})
        name = os.path.join(out, "hp%d" % (n + 1))
        with open(name + "-corpus.jsonl", "w", encoding="utf-8") as f:
            for title, text in docs.items():
                f.write(json.dumps({"id": "hp:" + title, "title": title, "text": text}) + "\n")
        with open(name + "-questions.jsonl", "w", encoding="utf-8") as f:
            for q in questions:
                f.write(json.dumps(q) + "\n")
        print("%s: %d documents, %d questions" % (name, len(docs), len(questions)))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 60)
