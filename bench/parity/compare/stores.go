package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// graphReport is what `compare stores` finds; run.sh keeps it as graph.json for the report.
type graphReport struct {
	Corpus string     `json:"corpus"`
	Counts []countRow `json:"counts"`
	Checks []check    `json:"checks"`
	Levels []levelRow `json:"levels"`
}

type countRow struct {
	Name     string `json:"name"`
	Embedded int64  `json:"embedded"`
	Neo4j    int64  `json:"neo4j"`
}

// check is one identity test between the two stores.
type check struct {
	Name     string `json:"name"`
	Embedded int    `json:"embedded"`
	Neo4j    int    `json:"neo4j"`
	Same     bool   `json:"same"`
	Detail   string `json:"detail,omitempty"`
}

// levelRow compares the community partitions of one level.
type levelRow struct {
	Level            int     `json:"level"`
	Embedded         int     `json:"embedded"` // communities
	Neo4j            int     `json:"neo4j"`
	ModEmbedded      float64 `json:"modularity_embedded"`
	ModNeo4j         float64 `json:"modularity_neo4j"`
	UnassignedEmb    int     `json:"unassigned_embedded"`
	UnassignedNeo4j  int     `json:"unassigned_neo4j"`
	SamePartition    bool    `json:"same_partition"`
	NMI              float64 `json:"nmi"`
	SameEntityGraphs bool    `json:"same_entity_graph"`
}

func runStores(args []string) error {
	fs := flag.NewFlagSet("stores", flag.ContinueOnError)
	name := fs.String("name", "corpus", "corpus name for the output")
	dir := fs.String("data-dir", "", "embedded store directory")
	jsonOut := fs.String("json", "", "also write the comparison as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("stores: -data-dir is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	emb, neo, err := openBoth(ctx, *dir)
	if err != nil {
		return err
	}
	defer emb.Close()
	defer neo.Close()

	start := time.Now()
	a, err := load(ctx, emb)
	if err != nil {
		return fmt.Errorf("read embedded store: %w", err)
	}
	mid := time.Now()
	b, err := load(ctx, neo)
	if err != nil {
		return fmt.Errorf("read neo4j: %w", err)
	}
	fmt.Fprintf(os.Stderr, "compare: read the embedded store in %s, neo4j in %s\n",
		mid.Sub(start).Round(time.Millisecond), time.Since(mid).Round(time.Millisecond))
	rep := compareSnapshots(*name, a, b)
	printGraphReport(os.Stdout, rep)
	return writeJSONFile(*jsonOut, rep)
}

// openBoth opens the embedded store in dir read-only and the Neo4j database of the NEO4J_*
// variables. Neo4j has no read-only mode; nothing here writes (cypher.Open only creates indexes
// and constraints that are missing, and after an ingest none are).
func openBoth(ctx context.Context, dir string) (graph.Store, graph.Store, error) {
	emb, err := embedded.Open(ctx, dir, embedded.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("open embedded store %s: %w", dir, err)
	}
	cfg := cypher.ConfigFromEnv()
	neo, err := cypher.Open(ctx, cfg)
	if err != nil {
		emb.Close()
		return nil, nil, fmt.Errorf("open neo4j %s: %w", cfg, err)
	}
	return emb, neo, nil
}

func compareSnapshots(name string, a, b *snapshot) graphReport {
	rep := graphReport{Corpus: name}
	for _, pair := range [][2]map[string]int64{{a.stats.Nodes, b.stats.Nodes}, {a.stats.Relationships, b.stats.Relationships}} {
		for _, k := range slices.Sorted(maps.Keys(union(pair[0], pair[1]))) {
			rep.Counts = append(rep.Counts, countRow{Name: k, Embedded: pair[0][k], Neo4j: pair[1][k]})
		}
	}

	layer0 := func(e graph.Entity) bool { return e.Layer == 0 }
	summary := func(e graph.Entity) bool { return e.Layer > 0 }
	sameEntity := func(x, y graph.Entity) bool {
		return x.Name == y.Name && x.Type == y.Type && x.Description == y.Description && x.Layer == y.Layer
	}
	rep.Checks = append(rep.Checks,
		diffCheck("entities (layer 0)", filter(a.entities, layer0), filter(b.entities, layer0), sameEntity),
		diffCheck("entity degrees", a.entities, b.entities, func(x, y graph.Entity) bool { return x.Degree == y.Degree }),
		embeddingCheck(a.entities, b.entities),
		diffCheck("RELATED", a.relations, b.relations, sameRelation),
		componentCheck(a.entities, b.entities),
		diffCheck("summary entities", filter(a.entities, summary), filter(b.entities, summary), sameEntity),
		diffCheck("SUMMARIZED_BY", a.links, b.links, func(x, y float64) bool { return math.Abs(x-y) <= 1e-9 }),
	)

	idsA := slices.Sorted(maps.Keys(a.entities))
	idsB := slices.Sorted(maps.Keys(b.entities))
	sameGraph := slices.Equal(idsA, idsB)
	for _, c := range rep.Checks {
		if c.Name == "RELATED" || c.Name == "SUMMARIZED_BY" {
			sameGraph = sameGraph && c.Same
		}
	}
	// Each partition is scored on its own store's graph; when the graphs are the same, so is
	// the yardstick.
	gamma := graph.DefaultLeidenParams().Gamma
	ga, gb := a.entityGraph(idsA), b.entityGraph(idsB)
	for level := range max(len(a.levels), len(b.levels)) {
		ma, ua := a.membership(level, idsA)
		mb, ub := b.membership(level, idsB)
		row := levelRow{
			Level: level, Embedded: at(a.communities, level), Neo4j: at(b.communities, level),
			ModEmbedded: graphalgo.Modularity(ga, ma, gamma), ModNeo4j: graphalgo.Modularity(gb, mb, gamma),
			UnassignedEmb: ua, UnassignedNeo4j: ub, SameEntityGraphs: sameGraph,
		}
		if sameGraph { // the same entities: the partitions can be compared node by node
			row.SamePartition = samePartition(ma, mb)
			row.NMI = graphalgo.NMI(ma, mb)
		}
		rep.Levels = append(rep.Levels, row)
	}
	return rep
}

func union[V any](a, b map[string]V) map[string]V {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]V{}
	}
	maps.Copy(out, b)
	return out
}

func filter[K comparable, V any](m map[K]V, keep func(V) bool) map[K]V {
	out := map[K]V{}
	for k, v := range m {
		if keep(v) {
			out[k] = v
		}
	}
	return out
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

func sameRelation(x, y graph.Relation) bool {
	return x.Description == y.Description && math.Abs(x.Weight-y.Weight) <= 1e-9 &&
		slices.Equal(slices.Sorted(slices.Values(x.ChunkIDs)), slices.Sorted(slices.Values(y.ChunkIDs)))
}

// diffCheck compares two keyed sets: the keys of each, and the values under shared keys.
func diffCheck[K comparable, V any](name string, a, b map[K]V, same func(V, V) bool) check {
	var onlyA, onlyB, differ []string
	for k, va := range a {
		if vb, ok := b[k]; !ok {
			onlyA = append(onlyA, keyString(k))
		} else if !same(va, vb) {
			differ = append(differ, keyString(k))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			onlyB = append(onlyB, keyString(k))
		}
	}
	c := check{Name: name, Embedded: len(a), Neo4j: len(b), Same: len(onlyA)+len(onlyB)+len(differ) == 0}
	var parts []string
	for _, p := range []struct {
		what string
		keys []string
	}{{"only embedded", onlyA}, {"only neo4j", onlyB}, {"differ", differ}} {
		if len(p.keys) > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%s)", p.what, len(p.keys), sample(p.keys)))
		}
	}
	c.Detail = strings.Join(parts, "; ")
	return c
}

func keyString(k any) string {
	if r, ok := k.(graph.RelationKey); ok {
		return r.Source + " -> " + r.Target
	}
	return fmt.Sprint(k)
}

// sample lists up to three keys, sorted, so that the output is stable.
func sample(keys []string) string {
	slices.Sort(keys)
	if len(keys) > 3 {
		return strings.Join(keys[:3], ", ") + ", …"
	}
	return strings.Join(keys, ", ")
}

// embeddingCheck reports the largest element difference between the entities' embeddings.
func embeddingCheck(a, b map[string]graph.Entity) check {
	c := check{Name: "entity embeddings", Same: true}
	var worst float64
	for id, x := range a {
		y, ok := b[id]
		if !ok {
			continue
		}
		if len(x.Embedding) > 0 {
			c.Embedded++
		}
		if len(y.Embedding) > 0 {
			c.Neo4j++
		}
		if len(x.Embedding) != len(y.Embedding) {
			c.Same = false
			continue
		}
		for i := range x.Embedding {
			worst = max(worst, math.Abs(float64(x.Embedding[i]-y.Embedding[i])))
		}
	}
	c.Same = c.Same && worst == 0
	c.Detail = fmt.Sprintf("max |Δ| %.3g over shared entities", worst)
	return c
}

// componentCheck compares the WCC partitions, whatever the component ids.
func componentCheck(a, b map[string]graph.Entity) check {
	ids := slices.Sorted(maps.Keys(a))
	c := check{Name: "components", Embedded: countComponents(a), Neo4j: countComponents(b)}
	if !slices.Equal(ids, slices.Sorted(maps.Keys(b))) {
		c.Detail = "different entity sets"
		return c
	}
	pa, pb := make([]int64, len(ids)), make([]int64, len(ids))
	for i, id := range ids {
		pa[i], pb[i] = a[id].ComponentID, b[id].ComponentID
	}
	c.Same = samePartition(pa, pb)
	return c
}

func countComponents(m map[string]graph.Entity) int {
	seen := map[int64]bool{}
	for _, e := range m {
		seen[e.ComponentID] = true
	}
	return len(seen)
}

// samePartition says whether two labelings of the same items group them alike: the labels
// correspond one to one.
func samePartition[A, B comparable](a []A, b []B) bool {
	if len(a) != len(b) {
		return false
	}
	ab, ba := map[A]B{}, map[B]A{}
	for i := range a {
		if x, ok := ab[a[i]]; ok && x != b[i] {
			return false
		}
		if y, ok := ba[b[i]]; ok && y != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return true
}

func printGraphReport(w io.Writer, r graphReport) {
	fmt.Fprintf(w, "== %s: graph parity (embedded vs neo4j)\n", r.Corpus)
	fmt.Fprintf(w, "%-22s %10s %10s %8s\n", "label / type", "embedded", "neo4j", "diff")
	for _, c := range r.Counts {
		fmt.Fprintf(w, "%-22s %10d %10d %+8d\n", c.Name, c.Embedded, c.Neo4j, c.Neo4j-c.Embedded)
	}
	fmt.Fprintf(w, "\n%-22s %10s %10s %8s  %s\n", "check", "embedded", "neo4j", "same", "detail")
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%-22s %10d %10d %8s  %s\n", c.Name, c.Embedded, c.Neo4j, yesNo(c.Same), c.Detail)
	}
	fmt.Fprintf(w, "\n%-5s %9s %9s %9s %9s %8s %10s %6s  %s\n",
		"level", "comm.emb", "comm.neo", "Q emb", "Q neo", "ΔQ", "same part", "NMI", "entities without a community (emb/neo)")
	for _, l := range r.Levels {
		same, nmi := "n/a", "n/a"
		if l.SameEntityGraphs {
			same, nmi = yesNo(l.SamePartition), fmt.Sprintf("%.3f", l.NMI)
		}
		fmt.Fprintf(w, "%-5d %9d %9d %9.4f %9.4f %+8.4f %10s %6s  %d/%d\n", l.Level, l.Embedded, l.Neo4j,
			l.ModEmbedded, l.ModNeo4j, l.ModNeo4j-l.ModEmbedded, same, nmi, l.UnassignedEmb, l.UnassignedNeo4j)
	}
	if len(r.Levels) > 0 && !r.Levels[0].SameEntityGraphs {
		fmt.Fprintln(w, "(the entity graphs differ: each partition's modularity is on its own store's graph)")
	}
	fmt.Fprintln(w)
}

func yesNo(b bool) string { return cmp.Or(map[bool]string{true: "yes"}[b], "NO") }
