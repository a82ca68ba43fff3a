// Command pathcheck checks that a resident Neo4j store (strata serve) finds the paths a fresh
// process finds: it asks both for the shortest paths of random requests among the stored
// entities, with a hop limit that takes paths_gds_near.cypher and one that takes
// paths_gds.cypher, and prints how many paths differ (nodes or steps) and what each took.
//
//	NEO4J_URI=bolt://127.0.0.1:7687 go run ./bench/neo4jquery/pathcheck [-sources 300] [-targets 6]
//
// The database must hold an ingested graph whose GDS projection exists (an ingest makes it).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"time"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/graph"
)

func main() {
	sources := flag.Int("sources", 300, "random source entities")
	targets := flag.Int("targets", 6, "random targets per source")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := run(context.Background(), *sources, *targets, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "pathcheck:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, sources, targets int, seed uint64) error {
	cfg := cypher.ConfigFromEnv()
	plain, err := cypher.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer plain.Close()
	cfg.Resident = true
	resident, err := cypher.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer resident.Close()

	var ids []string
	for layer := 0; ; layer++ {
		n := len(ids)
		for after := ""; ; {
			es, err := plain.EntitiesAfter(ctx, layer, after, 5000)
			if err != nil {
				return err
			}
			if len(es) == 0 {
				break
			}
			for _, e := range es {
				ids = append(ids, e.ID)
			}
			after = es[len(es)-1].ID
		}
		if len(ids) == n {
			break
		}
	}
	if len(ids) < 2 {
		return fmt.Errorf("the database holds %d entities; ingest a corpus first", len(ids))
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var reqs []graph.PathRequest
	for range sources {
		src := ids[rng.IntN(len(ids))]
		for range targets {
			reqs = append(reqs, graph.PathRequest{Source: src, Target: ids[rng.IntN(len(ids))]})
		}
	}
	// Warm both (the resident copy loads), then compare query-sized batches.
	for _, s := range []*cypher.Store{plain, resident} {
		if _, err := s.ShortestPaths(ctx, reqs[:targets], 4); err != nil {
			return err
		}
	}
	for _, maxHops := range []int{4, 6} {
		var took [2]time.Duration
		found, differ := 0, 0
		for start := 0; start < len(reqs); start += targets * 4 {
			batch := reqs[start:min(start+targets*4, len(reqs))]
			var got [2][]graph.Path
			for i, s := range []*cypher.Store{plain, resident} {
				t := time.Now()
				ps, err := s.ShortestPaths(graph.WithReadScope(ctx), batch, maxHops)
				if err != nil {
					return err
				}
				took[i] += time.Since(t)
				got[i] = ps
			}
			found += len(got[0])
			if !reflect.DeepEqual(got[0], got[1]) {
				differ++
				if differ <= 3 {
					fmt.Printf("differ (max hops %d):\n  fresh    %v\n  resident %v\n", maxHops, got[0], got[1])
				}
			}
		}
		fmt.Printf("max hops %d: %d requests, %d paths, %d of %d batches differ; fresh %v, resident %v\n",
			maxHops, len(reqs), found, differ, (len(reqs)+targets*4-1)/(targets*4), took[0].Round(time.Millisecond), took[1].Round(time.Millisecond))
	}
	return nil
}
