// Command ppr times personalized PageRank in Go (graphalgo.PersonalizedPageRank, what the
// embedded store runs) and in GDS (gds.pageRank.stream with sourceNodes, what the Neo4j store
// runs) on the same graph and seeds, and prints, per seed set, each side's time per query, their
// ratio and how many queries ranked the same top k on both sides.
//
//	NEO4J_URI=bolt://127.0.0.1:7687 go run ./bench/ppr [-graph FILE] [-queries 20] [-k 10] [-concurrency 1]
//
// The graph is bench/leiden's planted graph (about 100k nodes and 1M edges, generated here with
// the same settings as `go run ./bench/leiden gen`), or an edge list given with -graph. It is
// projected into GDS from a parameter list of integer ids (no database writes) and dropped at the
// end. Two seed sets are timed: 30 random nodes of equal weight (one GDS run), and 45 random nodes
// weighted as retrieval weights its seeds (5 at 1, 40 at 1/(1+rank)), which the Neo4j store runs
// as one GDS run per bit of the seeds' shares (graph.PPRShares), as here. Go's time is the walk
// and the top k over every node; GDS's is the statement's wall time at the client (the runs, the
// sum over the runs and the top k in Cypher, and Bolt), and, apart, GDS's own computeMillis of
// the same runs (gds.pageRank.stats).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// streamQuery is ppr_stream.cypher's computation on a projection of integer ids: one run per
// group of sources, scores summed with the groups' weights, the top k by score rounded to 9
// decimals, ties by id.
const streamQuery = `
UNWIND $groups AS grp
CALL gds.pageRank.stream($graphName, {
  sourceNodes: grp.nodes, dampingFactor: $damping, maxIterations: $iterations,
  tolerance: $tolerance, relationshipWeightProperty: 'weight', concurrency: $concurrency,
  logProgress: false
})
YIELD nodeId, score
WITH nodeId, sum(grp.weight * score) AS score
WHERE round(score, 9) > 0
RETURN nodeId AS id, score
ORDER BY round(score, 9) DESC, id
LIMIT $k`

// statsQuery runs the same walks for GDS's own timing.
const statsQuery = `
UNWIND $groups AS grp
CALL gds.pageRank.stats($graphName, {
  sourceNodes: grp.nodes, dampingFactor: $damping, maxIterations: $iterations,
  tolerance: $tolerance, relationshipWeightProperty: 'weight', concurrency: $concurrency,
  logProgress: false
})
YIELD computeMillis
RETURN sum(computeMillis) AS ms`

const projectQuery = `
UNWIND $edges AS e
WITH gds.graph.project($graphName, e[0], e[1], {relationshipProperties: {weight: e[2]}},
  {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodes, g.relationshipCount AS relationships`

func main() {
	path := flag.String("graph", "", "edge list to read (default: bench/leiden's planted graph, generated)")
	queries := flag.Int("queries", 20, "queries per seed set")
	k := flag.Int("k", 10, "top k compared")
	concurrency := flag.Int("concurrency", 1, "GDS concurrency (the Neo4j store runs 1)")
	flag.Parse()
	if err := run(context.Background(), *path, *queries, *k, *concurrency); err != nil {
		fmt.Fprintln(os.Stderr, "ppr:", err)
		os.Exit(1)
	}
}

// seedSet is one kind of query: how to draw its seeds.
type seedSet struct {
	name  string
	draw  func(rng *rand.Rand, n int) []graph.PPRSeed
	equal bool // every seed weighs 1: one GDS run, scores not normalised
}

func randomSeeds(rng *rand.Rand, n int, weights []float64) []graph.PPRSeed {
	seeds := make([]graph.PPRSeed, len(weights))
	for i, w := range weights {
		seeds[i] = graph.PPRSeed{ID: fmt.Sprint(rng.IntN(n)), Weight: w}
	}
	return seeds
}

func seedSets() []seedSet {
	equal := make([]float64, 30)
	for i := range equal {
		equal[i] = 1
	}
	ranked := []float64{1, 1, 1, 1, 1}
	for r := range 40 {
		ranked = append(ranked, 1/float64(1+r))
	}
	return []seedSet{
		{"30 seeds, equal", func(rng *rand.Rand, n int) []graph.PPRSeed { return randomSeeds(rng, n, equal) }, true},
		{"45 seeds, retrieval's weights", func(rng *rand.Rand, n int) []graph.PPRSeed { return randomSeeds(rng, n, ranked) }, false},
	}
}

func run(ctx context.Context, path string, queries, k, concurrency int) error {
	g, err := loadGraph(path)
	if err != nil {
		return err
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		return fmt.Errorf("NEO4J_URI is not set: the GDS side needs a Neo4j server with GDS")
	}
	driver, err := neo4j.NewDriverWithContext(uri, neo4j.BasicAuth(os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"), ""))
	if err != nil {
		return fmt.Errorf("connect %s: %w", uri, err)
	}
	defer driver.Close(ctx)
	sess := driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: os.Getenv("NEO4J_DATABASE")})
	defer sess.Close(ctx)

	name := fmt.Sprintf("strata-ppr-bench-%d", os.Getpid())
	start := time.Now()
	nodes, rels, err := project(ctx, sess, name, g)
	if err != nil {
		return fmt.Errorf("project: %w", err)
	}
	defer func() {
		if _, err := sess.Run(ctx, "CALL gds.graph.drop($graphName) YIELD graphName RETURN graphName", map[string]any{"graphName": name}); err != nil {
			fmt.Fprintln(os.Stderr, "ppr: drop", name+":", err)
		}
	}()
	fmt.Printf("graph: %d nodes, %d edges; GDS projection %d nodes, %d relationships in %.1f s\n",
		g.NumNodes(), g.NumEdges(), nodes, rels, time.Since(start).Seconds())
	opt := graphalgo.PPROptions{Damping: 0.5, MaxIterations: 20, Tolerance: 1e-7}
	fmt.Printf("damping %v, max iterations %d, tolerance %g, top %d, GDS concurrency %d, %d queries per set\n\n",
		opt.Damping, opt.MaxIterations, opt.Tolerance, k, concurrency, queries)
	fmt.Printf("%-30s %9s %9s %9s %9s %9s %8s\n", "seeds", "go ms", "gds ms", "compute", "go/gds", "runs", "same")
	for _, set := range seedSets() {
		rng := rand.New(rand.NewPCG(1, 2))
		var goTime, gdsTime time.Duration
		var computeMS int64
		same, groupsTotal := 0, 0
		for q := -2; q < queries; q++ { // two untimed queries first: the JVM's warm-up
			seeds := set.draw(rng, g.NumNodes())
			goSeeds, groups := weigh(seeds, set.equal)
			t := time.Now()
			score, err := graphalgo.PersonalizedPageRank(g, goSeeds, opt)
			if err != nil {
				return err
			}
			top := graphalgo.TopNodes(score, k, nil, cmp.Compare[int])
			goQ := time.Since(t)
			params := map[string]any{"graphName": name, "groups": groups, "damping": opt.Damping,
				"iterations": int64(opt.MaxIterations), "tolerance": opt.Tolerance,
				"concurrency": int64(concurrency), "k": int64(k)}
			t = time.Now()
			ids, scores, err := stream(ctx, sess, params)
			if err != nil {
				return fmt.Errorf("gds stream: %w", err)
			}
			gdsQ := time.Since(t)
			ms, err := stats(ctx, sess, params)
			if err != nil {
				return fmt.Errorf("gds stats: %w", err)
			}
			if q < 0 {
				continue
			}
			goTime += goQ
			gdsTime += gdsQ
			computeMS += ms
			groupsTotal += len(groups)
			if slices.Equal(top, ids) {
				same++
			} else {
				fmt.Fprintf(os.Stderr, "%s, query %d: go %v %v, gds %v %v\n", set.name, q, top, pick(score, top), ids, scores)
			}
		}
		n := float64(queries)
		goMS, gdsMS := goTime.Seconds()*1e3/n, gdsTime.Seconds()*1e3/n
		fmt.Printf("%-30s %9.1f %9.1f %9.1f %9.2f %9.1f %5d/%d\n", set.name, goMS, gdsMS,
			float64(computeMS)/n, goMS/gdsMS, float64(groupsTotal)/n, same, queries)
	}
	return nil
}

func pick(score []float64, nodes []int) []float64 {
	out := make([]float64, len(nodes))
	for i, v := range nodes {
		out[i] = score[v]
	}
	return out
}

// weigh gives the seeds' Go form and GDS groups. Equal seeds keep weight 1 each (GDS's scale:
// every source starts at 1 - damping); weighted ones are normalised as the stores normalise
// them (graph.NormalizePPRSeeds) and grouped by the bits of their shares, as cypher/ppr.go does.
func weigh(seeds []graph.PPRSeed, equal bool) ([]graphalgo.Seed, []map[string]any) {
	node := func(id string) int {
		var v int
		fmt.Sscan(id, &v)
		return v
	}
	if equal {
		var goSeeds []graphalgo.Seed
		var ids []any
		for _, s := range seeds {
			if !slices.Contains(ids, any(int64(node(s.ID)))) {
				ids = append(ids, int64(node(s.ID)))
				goSeeds = append(goSeeds, graphalgo.Seed{Node: node(s.ID), Weight: 1})
			}
		}
		return goSeeds, []map[string]any{{"weight": 1.0, "nodes": ids}}
	}
	shares, total := graph.PPRShares(seeds)
	var goSeeds []graphalgo.Seed
	for _, s := range shares {
		goSeeds = append(goSeeds, graphalgo.Seed{Node: node(s.ID), Weight: s.Weight / float64(total)})
	}
	var groups []map[string]any
	for b := graph.PPRShareBits; b >= 0; b-- {
		var ids []any
		for _, s := range shares {
			if int(s.Weight)>>b&1 == 1 {
				ids = append(ids, int64(node(s.ID)))
			}
		}
		if ids != nil {
			groups = append(groups, map[string]any{"weight": math.Ldexp(1, b) / float64(total), "nodes": ids})
		}
	}
	return goSeeds, groups
}

func stream(ctx context.Context, sess neo4j.SessionWithContext, params map[string]any) ([]int, []float64, error) {
	res, err := sess.Run(ctx, streamQuery, params)
	if err != nil {
		return nil, nil, err
	}
	recs, err := res.Collect(ctx)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]int, len(recs))
	scores := make([]float64, len(recs))
	for i, r := range recs {
		id, _ := r.Get("id")
		s, _ := r.Get("score")
		ids[i], scores[i] = int(id.(int64)), s.(float64)
	}
	return ids, scores, nil
}

func stats(ctx context.Context, sess neo4j.SessionWithContext, params map[string]any) (int64, error) {
	res, err := sess.Run(ctx, statsQuery, params)
	if err != nil {
		return 0, err
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return 0, err
	}
	ms, _ := rec.Get("ms")
	v, ok := ms.(int64)
	if !ok {
		return 0, fmt.Errorf("computeMillis %v (%T)", ms, ms)
	}
	return v, nil
}

// project sends every edge once (u < v, self-loops left out as the PPR projection leaves them)
// as integer ids with its weight.
func project(ctx context.Context, sess neo4j.SessionWithContext, name string, g *graphalgo.Graph) (int64, int64, error) {
	var edges []any
	for _, e := range g.Edges() {
		if e.U != e.V {
			edges = append(edges, []any{int64(e.U), int64(e.V), e.W})
		}
	}
	res, err := sess.Run(ctx, projectQuery, map[string]any{"graphName": name, "edges": edges})
	if err != nil {
		return 0, 0, err
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return 0, 0, err
	}
	n, _ := rec.Get("nodes")
	r, _ := rec.Get("relationships")
	return n.(int64), r.(int64), nil
}

func loadGraph(path string) (*graphalgo.Graph, error) {
	if path == "" {
		g, _, err := graphalgo.Planted(graphalgo.PlantedConfig{N: 100_000, AvgDegree: 21, MaxDegree: 200,
			DegreeExp: 2.5, MinCommunity: 50, MaxCommunity: 2000, CommunityExp: 1.5, Mu: 0.3, Seed: 1})
		if err != nil {
			return nil, fmt.Errorf("planted graph: %w", err)
		}
		return g, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := graphalgo.ReadEdgeList(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}
