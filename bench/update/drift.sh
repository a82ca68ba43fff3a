#!/usr/bin/env bash
# Does a store updated document by document drift from the store a fresh ingest of the same
# documents builds? Offline, the multihop corpus: a store of a seeded random 37 of its 47
# articles, then 20 random operations on it (ingest one article it lacks, or delete one it holds,
# each from its own JSON Lines file), then a fresh store of the final set. Prints per community
# level the communities and modularity of both (bench/update/modularity) and their ratio (target:
# within 2 %), with the NMI of the two partitions of the layer-0 entities; recall@2/5/10 of `hi`
# and `lca` on both with `strata eval` (target: within 0.01); and the wall time of the 20
# operations against the fresh ingest.
# Questions: only those whose gold documents are all in the final set (QFILTER=all, the default);
# QFILTER=any keeps every question with one of them, its gold list cut to the final set.
# Usage: bench/update/drift.sh   (SEED=1, START=37, OPS=20, MODES="hi lca"; CORPUS=…,
# QUESTIONS=… default to $SHARED_DATA/multihop/{corpus,questions}.jsonl, SHARED_DATA to
# ../shared/data; STRATA_BIN=a strata binary, default built from this tree into bin/strata;
# KEEP=DIR keeps the subsets, stores and reports in DIR, a new or empty directory)
set -euo pipefail
export LC_ALL=C STRATA_OFFLINE=1
case ${1:-} in -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; ?*) echo "drift.sh: no arguments (settings are variables; --help)" >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
data=${SHARED_DATA:-../shared/data}/multihop
corpus=${CORPUS:-$data/corpus.jsonl}
questions=${QUESTIONS:-$data/questions.jsonl}
seed=${SEED:-1} start=${START:-37} ops=${OPS:-20} modes=${MODES:-hi lca} qfilter=${QFILTER:-all}
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
if [ -n "${STRATA_BIN:-}" ]; then strata=$STRATA_BIN; else go build -o bin/strata ./cmd/strata; strata=$PWD/bin/strata; fi
go build -o bin/update-modularity ./bench/update/modularity
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"; [ -z "$(ls -A "$KEEP")" ] || { echo "drift.sh: KEEP=$KEEP is not empty" >&2; exit 2; }
  work=$(cd "$KEEP" && pwd); tmpdir=
else
  work=$(mktemp -d); tmpdir=$work
fi
trap '[ -z "$tmpdir" ] || rm -rf "$tmpdir"' EXIT
now() { echo "$EPOCHREALTIME"; }
since() { python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.2f}")' "$1" "$(now)"; }

echo "strata: $("$strata" --version 2>/dev/null || echo unknown), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The plan: the start set, the operations (one JSON Lines file per article added), the final set
# and the questions for it, all from one seeded generator.
python3 - "$corpus" "$questions" "$work" "$seed" "$start" "$ops" "$qfilter" <<'PY'
import json, random, sys
corpus, questions, work, seed, start, nops, qfilter = sys.argv[1:]
seed, start, nops = int(seed), int(start), int(nops)
recs, order = {}, []
for line in open(corpus, encoding="utf-8"):
    if line.strip():
        r = json.loads(line)
        if r["id"] not in recs:  # the corpus repeats some records whole
            recs[r["id"]] = r
            order.append(r["id"])
rng = random.Random(seed)
inside = set(rng.sample(order, start))
def write(path, ids):
    with open(path, "w", encoding="utf-8") as f:
        for i in order:
            if i in ids:
                f.write(json.dumps(recs[i], ensure_ascii=False) + "\n")
write(f"{work}/start.jsonl", inside)
adds = dels = 0
with open(f"{work}/ops.txt", "w") as f:
    for n in range(nops):
        outside = [i for i in order if i not in inside]
        add = bool(outside) and (not inside or rng.random() < 0.5)
        if add:
            d = rng.choice(outside)
            inside.add(d)
            write(f"{work}/add-{n:02d}.jsonl", {d})
            f.write(f"add\t{d}\t{work}/add-{n:02d}.jsonl\n")
            adds += 1
        else:
            d = rng.choice(sorted(inside, key=order.index))
            inside.discard(d)
            f.write(f"delete\t{d}\t-\n")
            dels += 1
write(f"{work}/final.jsonl", inside)
kept = partial = 0
with open(f"{work}/questions.jsonl", "w", encoding="utf-8") as out:
    total = 0
    for line in open(questions, encoding="utf-8"):
        if not line.strip():
            continue
        total += 1
        q = json.loads(line)
        gold = [g for g in q["gold"] if g in inside]
        if qfilter == "all" and len(gold) != len(q["gold"]):
            continue
        if not gold:
            continue
        partial += len(gold) != len(q["gold"])
        q["gold"] = gold
        out.write(json.dumps(q, ensure_ascii=False) + "\n")
        kept += 1
print(f"seed {seed}: start with {start} of {len(order)} articles; {nops} operations ({adds} adds, {dels} deletes); "
      f"final set {len(inside)} articles")
print(f"questions (QFILTER={qfilter}): {kept} of {total} kept" + (f", {partial} with their gold cut to the final set" if partial else ""))
PY

upd=$work/updated fresh=$work/fresh
echo "== start store: ingest $start articles"
t=$(now)
"$strata" ingest --log-level warn --data-dir "$upd" "$work/start.jsonl" >/dev/null
echo "start ingest: $(since "$t") s"

echo "== $ops operations on it"
total=0
n=0
while IFS=$'\t' read -r op doc file; do
  t=$(now) rc=0
  if [ "$op" = add ]; then
    "$strata" ingest --json --log-level warn --data-dir "$upd" "$file" </dev/null >"$work/op-$n.json" 2>"$work/op-$n.err" || rc=$?
  else
    "$strata" delete --json --log-level warn --data-dir "$upd" "$doc" </dev/null >"$work/op-$n.json" 2>"$work/op-$n.err" || rc=$?
  fi
  w=$(since "$t")
  total=$(python3 -c 'import sys; print(f"{float(sys.argv[1]) + float(sys.argv[2]):.2f}")' "$total" "$w")
  python3 - "$work/op-$n.json" "$n" "$op" "$doc" "$w" "$rc" <<'PY'
import json, sys
path, n, op, doc, wall, rc = sys.argv[1:]
try:
    rep = json.load(open(path))
except Exception:
    rep = {}
t = rep.get("timings_ms") or {}
stages = " ".join(f"{k} {t[k] / 1000:.2f}" for k in ("layers", "communities", "reports") if k in t)
s = rep.get("structure")
mode = f" structure {s.get('mode')}" if isinstance(s, dict) else ""
err = f" FAILED (exit {rc}): {rep.get('error', '')}" if rc not in ("0", "3") else ""
print(f"{int(n):2d} {op:6} {wall:>6} s  {stages}{mode}{err}  {doc[:70]}")
PY
  n=$((n + 1))
done <"$work/ops.txt"

echo "== fresh store of the final set"
t=$(now)
"$strata" ingest --log-level warn --data-dir "$fresh" "$work/final.jsonl" >/dev/null
fw=$(since "$t")
echo "fresh ingest: $fw s"

./bin/update-modularity --data-dir "$upd" --partition "$work/part-updated.json" >"$work/mod-updated.json"
./bin/update-modularity --data-dir "$fresh" --partition "$work/part-fresh.json" >"$work/mod-fresh.json"
for m in $modes; do
  for s in updated fresh; do
    "$strata" eval --json --log-level warn --data-dir "$work/$s" --questions "$work/questions.jsonl" --mode "$m" >"$work/eval-$s-$m.json"
  done
done

python3 - "$work" "$modes" "$total" "$fw" <<'PY'
import json, math, sys
from collections import Counter
work, modes, total, fw = sys.argv[1], sys.argv[2].split(), float(sys.argv[3]), float(sys.argv[4])
u, f = (json.load(open(f"{work}/mod-{s}.json")) for s in ("updated", "fresh"))
pu, pf = (json.load(open(f"{work}/part-{s}.json")) for s in ("updated", "fresh"))
def ok(b): return "ok" if b else "MISSED"
def nmi(a, b):
    """NMI (arithmetic mean normalisation) of two labelings of the same items, and whether the
    labels correspond one to one."""
    n = len(a)
    if n == 0:
        return float("nan"), True
    ca, cb, cab = Counter(a), Counter(b), Counter(zip(a, b))
    h = lambda c: -sum(v / n * math.log(v / n) for v in c.values())
    mi = sum(v / n * math.log(v * n / (ca[x] * cb[y])) for (x, y), v in cab.items())
    ha, hb = h(ca), h(cb)
    same = len(cab) == len(ca) == len(cb)
    return (1.0 if ha + hb == 0 else 2 * mi / (ha + hb)), same
def compare(level):
    a, b = pu.get(str(level), {}), pf.get(str(level), {})
    ids = sorted(set(a) | set(b))
    la = [a.get(i, "none:" + i) for i in ids]
    lb = [b.get(i, "none:" + i) for i in ids]
    return nmi(la, lb)
print("== updated vs fresh")
for k in ("layer0_entities", "summaries", "related", "summarized_by"):
    print(f"{k:16} {u[k]:>8} {f[k]:>8}")
print(f"{'level':5} {'communities':>17} {'modularity':>17} {'ratio':>7}  target |ratio-1| <= 2 %   layer-0 entities: NMI, same partition")
lu, lf = {l["level"]: l for l in u["levels"]}, {l["level"]: l for l in f["levels"]}
for lvl in sorted(set(lu) | set(lf)):
    a, b = lu.get(lvl), lf.get(lvl)
    cu = a["communities"] if a else "-"
    cf = b["communities"] if b else "-"
    qu = f"{a['modularity']:.4f}" if a else "-"
    qf = f"{b['modularity']:.4f}" if b else "-"
    if a and b and b["modularity"]:
        r = a["modularity"] / b["modularity"]
        rs = f"{r:.4f}  {ok(abs(r - 1) <= 0.02)}"
    else:
        rs = "-"
    m, same = compare(lvl)
    print(f"{lvl:5} {cu:>8} {cf:>8} {qu:>8} {qf:>8} {rs:<12}  {m:.3f} {'yes' if same else 'no'}")
print(f"{'mode':5} {'k':10} {'updated':>8} {'fresh':>8} {'diff':>7}  target |diff| <= 0.01")
for m in modes:
    eu, ef = (json.load(open(f"{work}/eval-{s}-{m}.json")) for s in ("updated", "fresh"))
    for k in ("recall@2", "recall@5", "recall@10"):
        a, b = eu["recall"][k], ef["recall"][k]
        print(f"{m:5} {k:10} {a:8.3f} {b:8.3f} {a - b:+7.3f}  {ok(abs(a - b) <= 0.01 + 1e-9)}")
    print(f"{m:5} {'tokens':10} {eu.get('mean_context_tokens', 0):8.0f} {ef.get('mean_context_tokens', 0):8.0f}")
print(f"wall: {total:.2f} s for the operations ({total / max(1, len(open(work + '/ops.txt').readlines())):.2f} s each) "
      f"vs {fw:.2f} s for the fresh ingest ({total / fw:.2f}x)")
PY
