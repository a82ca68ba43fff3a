#!/usr/bin/env python3
"""Prints one step of bench/update/run.sh from what the script kept of it.

    report.py DIR NAME LABEL [--wall-target S] [--base NAME] [--pct-target P]
              [--chunks-of NAME] [--dry-run] [--model] [--predicted NAME]

DIR/NAME.json is the command's stdout (strata ... --json), DIR/NAME.rc its exit code,
DIR/NAME.wall its wall time in seconds, DIR/NAME.err its stderr. --base names the step whose
model calls are 100 % (the full ingest); --chunks-of the step whose report counts the chunks an
ingest had to extract (the delete of the same document): extraction requests beyond them were
made for unchanged chunks. Standard library only.
"""
import argparse
import json
import os
import sys


def load(d, name):
    def read(ext):
        p = os.path.join(d, f"{name}.{ext}")
        if not os.path.exists(p):
            return None
        with open(p, encoding="utf-8", errors="replace") as f:
            return f.read()

    rep = None
    out = read("json")
    if out and out.strip():
        try:
            rep = json.loads(out)
        except json.JSONDecodeError:
            rep = None
    rc = int((read("rc") or "0").strip() or 0)
    wall = float((read("wall") or "0").strip() or 0)
    err = (read("err") or "").strip().splitlines()
    return rep, rc, wall, err


def calls(rep):
    """Chat calls billed, and chat answers the response cache gave (embedding stage left out)."""
    stages = ((rep or {}).get("llm") or {}).get("stages") or {}
    c = sum(u.get("llm_calls", 0) for u in stages.values())
    h = sum(u.get("cache_hits", 0) for s, u in stages.items() if s != "embed")
    return c, h


def stage_line(rep):
    stages = ((rep or {}).get("llm") or {}).get("stages") or {}
    parts = []
    for s, u in sorted(stages.items(), key=lambda kv: ORDER.get(kv[0], 99)):
        c, h, e = u.get("llm_calls", 0), u.get("cache_hits", 0), u.get("embedding_calls", 0)
        if not (c or h or e):
            continue
        p = f"{s} {c}"
        if h:
            p += f" (+{h} cached)"
        if e:
            p += f" [{e} embedding req]"
        parts.append(p)
    return ", ".join(parts) or "none"


ORDER = {s: i for i, s in enumerate(
    "extract relations glean summarize embed layers aggregate report arch".split())}
TIMING_ORDER = {s: i for i, s in enumerate(
    "load delete documents embed layers components communities reports arch total".split())}


def timings(rep):
    t = (rep or {}).get("timings_ms") or {}
    ks = sorted(t, key=lambda k: (TIMING_ORDER.get(k, 50), k))
    return " ".join(f"{k} {t[k] / 1000:.2f}" for k in ks)


def structure(rep):
    s = (rep or {}).get("structure")
    if s is None:
        return "(no structure object in the report)"
    if not isinstance(s, dict):
        return json.dumps(s)
    head = [f"mode={s.get('mode')}"]
    if s.get("reason"):
        head.append(f"reason={s['reason']!r}")
    rest = [f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in s.items() if k not in ("mode", "reason")]
    return " ".join(head + rest)


def estimate(rep):
    """Predicted calls of a dry run: (calls, cached, per-stage text), or None when it has none."""
    est = (rep or {}).get("estimate")
    if not isinstance(est, dict) or not est.get("stages"):
        return None
    c = sum(v.get("calls", 0) for v in est["stages"].values())
    h = sum(v.get("cached_calls", 0) for v in est["stages"].values())
    parts = [f"{s} {v.get('calls', 0)}" + (f" (+{v.get('cached_calls')} cached)" if v.get("cached_calls") else "")
             for s, v in sorted(est["stages"].items(), key=lambda kv: ORDER.get(kv[0], 99))
             if v.get("calls") or v.get("cached_calls")]
    return c, h, ", ".join(parts) or "none"


def ok(flag):
    return "ok" if flag else "MISSED"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("name")
    ap.add_argument("label")
    ap.add_argument("--wall-target", type=float)
    ap.add_argument("--base")
    ap.add_argument("--pct-target", type=float)
    ap.add_argument("--chunks-of")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--predicted", help="the dry run of this step, to print its prediction next to it")
    ap.add_argument("--model", action="store_true", help="print model calls")
    a = ap.parse_args()
    rep, rc, wall, err = load(a.dir, a.name)
    label = f"{a.label:<26}"
    if rc != 0 and (rep is None or "error" in rep and rc != 3):
        msg = (rep or {}).get("error") or (err[-1] if err else f"exit {rc}")
        if rc == 2 and "restructure" in msg:
            print(f"{label} not run: this strata rejects the flag ({msg})")
        else:
            print(f"{label} FAILED (exit {rc}): {msg}")
        return
    pad = " " * 26
    if a.dry_run:
        line = f"{label} {wall:7.2f} s wall (dry run)"
        print(line)
        keys = ["documents", "unchanged", "chunks", "corpus_tokens", "entities_updated", "entities_removed",
                "relations_updated", "relations_removed"]
        what = " ".join(f"{k}={rep[k]}" for k in keys if k in rep and not isinstance(rep[k], (dict, list)))
        print(f"{pad} predicts: {what}")
        e = estimate(rep)
        if e is None:
            print(f"{pad} model calls predicted: none in the report (no \"estimate\" object)")
        else:
            print(f"{pad} model calls predicted: {e[0]} (+{e[1]} cached): {e[2]}")
            for s in (rep.get("estimate") or {}).get("assumptions") or []:
                if s.startswith("not counted"):
                    print(f"{pad} ({s})")
        return
    line = f"{label} {wall:7.2f} s wall"
    if a.wall_target is not None:
        line += f"  target <= {a.wall_target:g} s: {ok(wall <= a.wall_target)}"
    if rc == 3:
        line += "  (exit 3: see its report)"
    print(line)
    print(f"{pad} stages (s): {timings(rep)}")
    if a.model:
        c, h = calls(rep)
        line = f"{pad} chat calls: {c} (+{h} cached)"
        line2 = None
        if a.base:
            bc, bh = calls(load(a.dir, a.base)[0])
            if bc:
                pct = 100 * c / bc
                line += f" = {pct:.1f} % of the ingest's {bc}"
                if a.pct_target is not None:
                    line += f"  target <= {a.pct_target:g} %: {ok(pct <= a.pct_target)}"
            if bc + bh:
                # The cache answers whatever an earlier run asked in the same words: an update
                # that rebuilds a summary or report the store had before pays nothing for it, so
                # calls + cached is the work the run regenerated.
                pct = 100 * (c + h) / (bc + bh)
                line2 = f"{pad} asked (calls + cached): {c + h} = {pct:.1f} % of the ingest's {bc + bh}"
                if a.pct_target is not None:
                    line2 += f"  (same target: {ok(pct <= a.pct_target)})"
        print(line)
        if line2:
            print(line2)
        print(f"{pad} per stage: {stage_line(rep)}")
        if a.predicted:
            e = estimate(load(a.dir, a.predicted)[0])
            if e is not None:
                print(f"{pad} the dry run predicted {e[0]} calls (+{e[1]} cached); made {c} (+{h} cached)")
        if a.chunks_of:
            stages = ((rep or {}).get("llm") or {}).get("stages") or {}
            ext = sum(stages.get(s, {}).get("llm_calls", 0) + stages.get(s, {}).get("cache_hits", 0)
                      for s in ("extract", "relations", "glean"))
            billed = sum(stages.get(s, {}).get("llm_calls", 0) for s in ("extract", "relations", "glean"))
            want = (load(a.dir, a.chunks_of)[0] or {}).get("chunks", 0)
            extra = max(0, ext - want)
            print(f"{pad} extraction: {billed} calls + {ext - billed} cached for the article's {want} chunk(s); "
                  f"for unchanged chunks: {extra}  target 0: {ok(extra == 0)}")
    n = ((rep or {}).get("store") or {}).get("nodes") or {}
    if n:
        print(f"{pad} store: {n.get('documents')} documents, {n.get('entities')} entities, "
              f"{n.get('summaries')} summaries, {n.get('communities')} communities")
    print(f"{pad} structure: {structure(rep)}")


if __name__ == "__main__":
    sys.exit(main())
