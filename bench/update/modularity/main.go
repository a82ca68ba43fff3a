// Command modularity prints, as one JSON object, the communities of an embedded store per level
// and their modularity on the graph the communities stage partitions: every entity of every
// layer a node, RELATED and SUMMARIZED_BY undirected edges weighted as the embedded store weighs
// them (internal/embedded/entitygraph.go: a missing, non-positive or infinite weight counts 1),
// resolution gamma 1 (graph.DefaultLeidenParams). bench/update/drift.sh runs it on a store
// updated document by document and on a fresh store of the same documents.
//
//	go run ./bench/update/modularity --data-dir DIR [--partition FILE]
//
// --partition writes the community of every layer-0 entity per level, {"0": {"ENTITY": "c0-3",
// ...}, ...}, so that the partitions of two stores can be compared entity by entity (summary
// entities are left out: their ids depend on how the layers were built).
//
// The store is opened read-only, so it may run next to a writer. An entity in no community of a
// level counts as a community of its own there (and is counted as unassigned).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// level is one community level of the output; level 0 is the coarsest, as the store numbers it.
type level struct {
	Level       int     `json:"level"`
	Communities int     `json:"communities"`
	Modularity  float64 `json:"modularity"`
	Unassigned  int     `json:"unassigned"`   // entities in no community of the level
	Largest     int     `json:"largest"`      // members of the largest community
	Singletons  int     `json:"singletons"`   // communities of one member
	MeanSize    float64 `json:"mean_size"`    // members per community
	Assigned    int     `json:"assigned"`     // entities in a community of the level
	Reported    int     `json:"with_reports"` // communities with a non-empty summary or report
}

type output struct {
	DataDir     string  `json:"data_dir"`
	Entities    int     `json:"entities"` // every layer
	Layer0      int     `json:"layer0_entities"`
	Summaries   int     `json:"summaries"`
	Relations   int     `json:"related"`
	Links       int     `json:"summarized_by"`
	TotalWeight float64 `json:"total_weight"`
	Gamma       float64 `json:"gamma"`
	Levels      []level `json:"levels"`
	ReadMS      float64 `json:"read_ms"`
}

func main() {
	dir := flag.String("data-dir", "", "embedded store directory")
	partition := flag.String("partition", "", "write the community of each layer-0 entity per level to this file (JSON)")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: modularity --data-dir DIR")
		os.Exit(2)
	}
	out, err := run(context.Background(), *dir, *partition)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modularity:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "modularity:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, partition string) (*output, error) {
	start := time.Now()
	s, err := embedded.Open(ctx, dir, embedded.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer s.Close()
	st, err := s.Stats(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}

	// Every entity, layer by layer until a layer is empty.
	var ids, layer0 []string
	layers := 0
	out := &output{DataDir: dir, Gamma: graph.DefaultLeidenParams().Gamma}
	for layer := 0; ; layer++ {
		es, err := s.EntitiesByLayer(ctx, layer)
		if err != nil {
			return nil, fmt.Errorf("entities of layer %d: %w", layer, err)
		}
		if len(es) == 0 {
			break
		}
		layers++
		if layer == 0 {
			out.Layer0 = len(es)
			for _, e := range es {
				layer0 = append(layer0, e.ID)
			}
		} else {
			out.Summaries += len(es)
		}
		for _, e := range es {
			ids = append(ids, e.ID)
		}
	}
	slices.Sort(ids) // nodes in id order, as the store numbers them
	out.Entities = len(ids)
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}

	// RELATED layer by layer (EachLayerEdge streams the relations between two entities of one
	// layer: all of them, as relations never cross layers, which the count against Stats checks),
	// and SUMMARIZED_BY from Ancestors of the layer-0 entities in batches (every summary is above
	// some layer-0 entity; one call over every entity takes the store 13 s on multihop, batches
	// of 256 a fraction of that). Links are collected by key, as batches share ancestors.
	var edges []graphalgo.Edge
	add := func(a, b string, w float64) {
		u, okU := index[a]
		v, okV := index[b]
		if okU && okV {
			edges = append(edges, graphalgo.Edge{U: u, V: v, W: edgeWeight(w)})
		}
	}
	for layer := range layers {
		err := s.EachLayerEdge(ctx, layer, func(e graph.Edge) error {
			add(e.Source, e.Target, e.Weight)
			out.Relations++
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("relations of layer %d: %w", layer, err)
		}
	}
	links := map[graph.RelationKey]float64{}
	for batch := range slices.Chunk(layer0, 256) {
		h, err := s.Ancestors(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("read the summary links: %w", err)
		}
		for _, l := range h.Links {
			links[graph.RelationKey{Source: l.Member, Target: l.Summary}] = l.Weight
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(links), func(a, b graph.RelationKey) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	}) {
		add(k.Source, k.Target, links[k])
	}
	out.Links = len(links)
	if want := st.Relationships["RELATED"]; int64(out.Relations) != want {
		return nil, fmt.Errorf("read %d RELATED, Stats counts %d", out.Relations, want)
	}
	if want := st.Relationships["SUMMARIZED_BY"]; int64(out.Links) != want {
		return nil, fmt.Errorf("read %d SUMMARIZED_BY, Stats counts %d", out.Links, want)
	}
	g, err := graphalgo.NewGraphChecked(len(ids), edges)
	if err != nil {
		return nil, fmt.Errorf("entity graph: %w", err)
	}
	out.TotalWeight = g.TotalWeight()

	// The communities and their members, per level.
	comms, err := s.CommunitiesByLevel(ctx, -1)
	if err != nil {
		return nil, fmt.Errorf("communities: %w", err)
	}
	cids := make([]string, len(comms))
	for i, c := range comms {
		cids[i] = c.ID
	}
	members, err := s.CommunityEntities(ctx, cids)
	if err != nil {
		return nil, fmt.Errorf("community members: %w", err)
	}
	var levels []map[string]string // entity id -> community id, per level
	count := map[int]int{}
	reported := map[int]int{}
	for _, c := range comms {
		for len(levels) <= c.Level {
			levels = append(levels, map[string]string{})
		}
		count[c.Level]++
		if c.Summary != "" || c.Report != "" {
			reported[c.Level]++
		}
		for _, e := range members[c.ID] {
			if prev, ok := levels[c.Level][e.ID]; ok {
				return nil, fmt.Errorf("entity %q is in communities %s and %s of level %d", e.ID, prev, c.ID, c.Level)
			}
			levels[c.Level][e.ID] = c.ID
		}
	}
	for l, m := range levels {
		membership := make([]int, len(ids))
		labels := map[string]int{}
		sizes := map[string]int{}
		row := level{Level: l, Communities: count[l], Reported: reported[l]}
		for i, id := range ids {
			c, ok := m[id]
			if !ok {
				row.Unassigned++
				c = "none:" + id
			} else {
				row.Assigned++
				sizes[c]++
			}
			lab, seen := labels[c]
			if !seen {
				lab = len(labels)
				labels[c] = lab
			}
			membership[i] = lab
		}
		for _, n := range slices.Collect(maps.Values(sizes)) {
			row.Largest = max(row.Largest, n)
			if n == 1 {
				row.Singletons++
			}
		}
		if len(sizes) > 0 {
			row.MeanSize = float64(row.Assigned) / float64(len(sizes))
		}
		row.Modularity = graphalgo.Modularity(g, membership, out.Gamma)
		out.Levels = append(out.Levels, row)
	}
	if partition != "" {
		parts := map[string]map[string]string{}
		for l, m := range levels {
			p := make(map[string]string, len(layer0))
			for _, id := range layer0 {
				if c, ok := m[id]; ok {
					p[id] = c
				}
			}
			parts[strconv.Itoa(l)] = p
		}
		data, err := json.Marshal(parts)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(partition, data, 0o644); err != nil {
			return nil, err
		}
	}
	out.ReadMS = float64(time.Since(start).Microseconds()) / 1000
	return out, nil
}

// edgeWeight is the weight of an edge as the embedded store's algorithms use it
// (internal/embedded/entitygraph.go): a missing, non-positive or infinite weight counts as 1.
func edgeWeight(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}
