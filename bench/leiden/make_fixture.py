#!/usr/bin/python3
"""Generates internal/graphalgo/testdata/networkx_fixture.json from the shared test graphs.

The Go tests compare graphalgo's WCC, shortest paths, modularity and NMI with networkx and
igraph through this file, so they need no Python. Run once (and again only when the shared
graphs or this script change), from the repository root:

    /usr/bin/python3 bench/leiden/make_fixture.py [GRAPH_DIR]

GRAPH_DIR defaults to ../shared/data/graphs. Nodes are numbered in file order, as
graphalgo.ReadGML and ReadEdgeList do. Weighted shortest paths use the deterministic weight
w(u, v) = 1 + (7*min(u,v) + 13*max(u,v)) % 5, which the Go test recomputes.
"""
import json
import os
import random
import sys

import igraph as ig
import networkx as nx

OUT = "internal/graphalgo/testdata/networkx_fixture.json"


def weight(u, v):
    a, b = min(u, v), max(u, v)
    return 1 + (7 * a + 13 * b) % 5


def read(path):
    """Returns (graph on 0..n-1, truth labels or None)."""
    if path.endswith(".gml"):
        h = nx.read_gml(path, label="id")
        index = {v: i for i, v in enumerate(h.nodes())}
        g = nx.Graph()
        g.add_nodes_from(range(len(index)))
        g.add_edges_from((index[u], index[v]) for u, v in h.edges())
        truth = None
        for attr in ("community", "value"):
            vals = [h.nodes[v].get(attr) for v in h.nodes()]
            if all(x is not None for x in vals):
                # A repeated GML key (networkx's way of writing a set) reads back as a list;
                # graphalgo.ReadGML keeps its smallest value.
                truth = [min(x) if isinstance(x, list) else x for x in vals]
                break
        return g, truth
    g = nx.Graph()
    n = 0
    with open(path) as f:
        for line in f:
            s = line.split("#")[0].split()
            if len(s) >= 2:
                u, v = int(s[0]), int(s[1])
                g.add_edge(u, v)
                n = max(n, u + 1, v + 1)
    g.add_nodes_from(range(n))
    return g, None


def entry(name, file, g, truth, filt, rng):
    n = g.number_of_nodes()
    comp_min = [0] * n
    comps = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0])
    for c in comps:
        for v in c:
            comp_min[v] = c[0]
    for u, v in g.edges():
        g[u][v]["w"] = weight(u, v)
    pairs = []
    members = {}
    for v in range(n):
        members.setdefault(comp_min[v], []).append(v)
    for i in range(60):
        s = rng.randrange(n)
        # Half the destinations come from the source's component, so that graphs with many
        # components still get reachable pairs.
        d = rng.choice(members[comp_min[s]]) if i % 2 else rng.randrange(n)
        try:
            hops = nx.shortest_path_length(g, s, d)
            cost = nx.dijkstra_path_length(g, s, d, weight="w")
        except nx.NetworkXNoPath:
            hops, cost = -1, -1
        pairs.append([s, d, hops, cost])
    e = {
        "name": name, "file": file, "filter": filt, "n": n, "m": g.number_of_edges(),
        "component_sizes": [len(c) for c in comps], "component_min": comp_min, "pairs": pairs,
    }
    if truth is not None:
        groups = {}
        for v, c in enumerate(truth):
            groups.setdefault(c, set()).add(v)
        e["truth"] = truth
        e["truth_modularity"] = nx.community.modularity(g, list(groups.values()))
        other = [v % 7 for v in range(n)]
        e["nmi_truth_mod7"] = ig.compare_communities(truth, other, method="nmi")
        e["nmi_truth_self"] = ig.compare_communities(truth, truth, method="nmi")
    return e


def main():
    gdir = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/graphs"
    rng = random.Random(20240611)
    out = []
    for file in ["karate.edgelist", "football.gml", "lfr_n1000_mu0.1.gml",
                 "lfr_n1000_mu0.3.gml", "lfr_n1000_mu0.5.gml"]:
        g, truth = read(os.path.join(gdir, file))
        out.append(entry(os.path.splitext(file)[0], file, g, truth, "", rng))
        if file == "lfr_n1000_mu0.1.gml":
            # Keeping only the edges inside ground-truth communities gives a graph with many
            # components, for WCC and unreachable pairs.
            h = nx.Graph()
            h.add_nodes_from(g.nodes())
            h.add_edges_from((u, v) for u, v in g.edges() if truth[u] == truth[v])
            out.append(entry("lfr_n1000_mu0.1_intra", file, h, truth, "intra", rng))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"generator": "bench/leiden/make_fixture.py", "networkx": nx.__version__,
                   "igraph": ig.__version__, "graphs": out}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
