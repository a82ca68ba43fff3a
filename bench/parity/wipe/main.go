// Command wipe checks that the Neo4j database named by NEO4J_URI, NEO4J_USERNAME,
// NEO4J_PASSWORD and NEO4J_DATABASE is empty, or empties it, for bench/parity/run.sh.
//
//	go run ./bench/parity/wipe          prints the node count; exit status 3 when the database is not empty
//	go run ./bench/parity/wipe -force   deletes every node, strata's vector indexes and strata's GDS graphs
//
// (go run turns exit status 3 into 1; run.sh builds the binary.) Only the benchmark uses it;
// strata itself never deletes a database.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The statements -force runs, in order. Relationships, then nodes, go in batches so that a large
// graph fits the heap (DETACH DELETE of 10 000 nodes, summaries with thousands of relationships
// among them, overflows the default 1 GiB heap on ten times mix); the vector indexes go because
// their dimension is fixed when they are created.
var wipeStatements = []string{
	`MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS`,
	`MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS`,
	`DROP INDEX chunk_embedding IF EXISTS`,
	`DROP INDEX entity_embedding IF EXISTS`,
	`DROP INDEX community_embedding IF EXISTS`,
}

const dropGDSGraphs = `CALL gds.graph.list() YIELD graphName WHERE graphName STARTS WITH 'strata'
CALL gds.graph.drop(graphName, false) YIELD graphName AS dropped RETURN count(dropped) AS dropped`

func main() {
	force := flag.Bool("force", false, "delete everything in the database")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	n, err := run(ctx, *force)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wipe:", err)
		os.Exit(1)
	}
	fmt.Printf("nodes: %d\n", n)
	if n > 0 {
		os.Exit(3)
	}
}

// run connects, wipes when force is set, and returns the number of nodes left.
func run(ctx context.Context, force bool) (int64, error) {
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		return 0, errors.New("NEO4J_URI is not set")
	}
	auth := neo4j.NoAuth()
	if u, p := os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"); p != "" {
		auth = neo4j.BasicAuth(u, p, "")
	}
	driver, err := neo4j.NewDriverWithContext(uri, auth)
	if err != nil {
		return 0, fmt.Errorf("connect to %s: %w", uri, err)
	}
	defer driver.Close(ctx)
	session := driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: os.Getenv("NEO4J_DATABASE")})
	defer session.Close(ctx)
	if force {
		for _, stmt := range wipeStatements {
			if err := exec(ctx, session, stmt); err != nil {
				return 0, err
			}
		}
		// Without GDS the procedure is unknown: nothing to drop then.
		if hasGDS(ctx, session) {
			if err := exec(ctx, session, dropGDSGraphs); err != nil {
				return 0, err
			}
		}
	}
	res, err := session.Run(ctx, `MATCH (n) RETURN count(n) AS n`, nil)
	if err != nil {
		return 0, fmt.Errorf("count nodes at %s: %w", uri, err)
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return 0, fmt.Errorf("count nodes at %s: %w", uri, err)
	}
	n, _ := rec.Get("n")
	count, ok := n.(int64)
	if !ok {
		return 0, fmt.Errorf("count nodes: unexpected value %v", n)
	}
	return count, nil
}

// exec runs one statement in an auto-commit transaction (CALL IN TRANSACTIONS needs one).
func exec(ctx context.Context, session neo4j.SessionWithContext, stmt string) error {
	res, err := session.Run(ctx, stmt, nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return fmt.Errorf("run %q: %w", stmt, err)
	}
	return nil
}

func hasGDS(ctx context.Context, session neo4j.SessionWithContext) bool {
	res, err := session.Run(ctx, `SHOW PROCEDURES YIELD name WHERE name = 'gds.graph.list' RETURN count(*) AS n`, nil)
	if err != nil {
		return false
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return false
	}
	n, _ := rec.Get("n")
	c, _ := n.(int64)
	return c > 0
}
