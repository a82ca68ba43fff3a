#!/usr/bin/python3
"""Reference half of the side-by-side Leiden benchmark (see run.sh).

Runs leidenalg (Debian's python3-leidenalg) with ModularityVertexPartition on the same graph
files as `go run ./bench/leiden run` and prints the same JSON fields, one object per graph.
Only the call to leidenalg.find_partition is timed, not parsing or graph construction.

Usage: ref.py [--seeds N] [--iterations K] FILE...
"""
import argparse
import json
import os
import sys
import time

import igraph as ig
import leidenalg as la
import networkx as nx


def read_edgelist(path):
    """Reads the edge list format of graphalgo.WriteEdgeList/ReadEdgeList."""
    n_declared, edges, weights, n = None, [], [], 0
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s[0] in "#%":
                parts = s[1:].split()
                if len(parts) == 2 and parts[0] == "nodes":
                    n_declared = int(parts[1])
                continue
            parts = s.replace(",", " ").split()
            u, v = int(parts[0]), int(parts[1])
            edges.append((u, v))
            weights.append(float(parts[2]) if len(parts) > 2 else 1.0)
            n = max(n, u + 1, v + 1)
    if n_declared is not None:
        n = n_declared
    g = ig.Graph(n=n, edges=edges)
    if any(w != 1.0 for w in weights):
        g.es["weight"] = weights
    return g


def read_gml(path):
    """Reads GML with networkx, numbering nodes in file order like graphalgo.ReadGML."""
    h = nx.read_gml(path, label="id")
    index = {v: i for i, v in enumerate(h.nodes())}
    edges = [(index[u], index[v]) for u, v in h.edges()]
    g = ig.Graph(n=len(index), edges=edges)
    weights = [d.get("weight", 1.0) for _, _, d in h.edges(data=True)]
    if any(w != 1.0 for w in weights):
        g.es["weight"] = weights
    return g


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=-1,
                    help="leidenalg n_iterations (-1: until stable, as graphalgo's default)")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    for path in args.files:
        g = read_gml(path) if path.endswith(".gml") else read_edgelist(path)
        weights = "weight" if "weight" in g.es.attributes() else None
        best_q, best_k, total = -1.0, 0, 0.0
        for seed in range(args.seeds):
            start = time.perf_counter()
            p = la.find_partition(g, la.ModularityVertexPartition, weights=weights,
                                  n_iterations=args.iterations, seed=seed)
            total += time.perf_counter() - start
            if p.modularity > best_q:
                best_q, best_k = p.modularity, len(p)
        name = os.path.splitext(os.path.basename(path))[0]
        print(json.dumps({"graph": name, "n": g.vcount(), "m": g.ecount(), "q": best_q,
                          "communities": best_k, "seconds": total / args.seeds,
                          "runs": args.seeds}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
