#!/usr/bin/env python3
"""Splits a HotpotQA-style question file into held-out eval corpora for `strata eval`.

Input: a question file in one of three layouts, told apart by their keys:
- IRCoT's processed files, JSON lines: {"question_id", "question_text",
  "answers_objects": [{"spans": [...]}], "contexts": [{"title", "paragraph_text", "is_supporting"}]};
- HotpotQA's own, a JSON array: {"_id", "question", "answer", "context": [[title, [sentence, ...]]],
  "supporting_facts": [[title, sentence index]]};
- MuSiQue's, a JSON array or lines: {"id", "question", "answer",
  "paragraphs": [{"title", "paragraph_text", "is_supporting"}]}.
Every SIZE consecutive questions make one corpus: their paragraphs pooled (paragraphs of one title are
one document, id "hp:" + title) and their questions, whose gold documents are the supporting
paragraphs. Writes OUT/<name>-corpus.jsonl and OUT/<name>-questions.jsonl for names hp1, hp2, …
(a last, smaller group is dropped). Then, per corpus:
  CORPUS=OUT/hp1-corpus.jsonl QUESTIONS=OUT/hp1-questions.jsonl bench/multihop/run.sh

Usage: hotpot.py INPUT.jsonl OUT_DIR [SIZE]   (SIZE defaults to 60; standard library only)
"""
import json
import os
import sys


def load(path):
    """Returns the questions of path as (id, question, answer, [(title, text, supporting)])."""
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    try:
        rows = json.loads(raw)
        rows = rows if isinstance(rows, list) else [rows]
    except json.JSONDecodeError:
        rows = [json.loads(line) for line in raw.splitlines() if line.strip()]
    out = []
    for i, r in enumerate(rows):
        if "contexts" in r:
            paras = [(c["title"], c["paragraph_text"], c["is_supporting"]) for c in r["contexts"]]
            out.append((r["question_id"], r["question_text"], r["answers_objects"][0]["spans"][0], paras))
        elif "context" in r:
            supporting = {t for t, _ in r["supporting_facts"]}
            paras = [(t, "".join(sents).strip(), t in supporting) for t, sents in r["context"]]
            out.append((r.get("_id", "hotpot%d" % i), r["question"], r["answer"], paras))
        elif "paragraphs" in r:
            paras = [(c["title"], c["paragraph_text"], c["is_supporting"]) for c in r["paragraphs"]]
            out.append((r["id"], r["question"], r["answer"], paras))
        else:
            sys.exit("%s: line %d is in none of the known layouts" % (path, i + 1))
    return out


def main(path, out, size):
    rows = load(path)
    os.makedirs(out, exist_ok=True)
    for n in range(len(rows) // size):
        docs, questions = {}, []
        for qid, question, answer, paras in rows[n * size:(n + 1) * size]:
            gold = set()
            for title, text, supporting in paras:
                if text not in docs.get(title, ""):
                    # MuSiQue holds several paragraphs of one article: they make one document.
                    docs[title] = (docs[title] + "\n\n" + text) if title in docs else text
                if supporting:
                    gold.add("hp:" + title)
            questions.append({"id": qid, "question": question, "answer": answer, "gold": sorted(gold)})
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
