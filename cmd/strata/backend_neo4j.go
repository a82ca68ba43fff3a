package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/graph"
)

// openNeo4j connects to the Neo4j server named by the flags (or NEO4J_* variables).
func openNeo4j(ctx context.Context, c *cli.Context, b *backend) (graph.Store, error) {
	cfg := cypher.Config{
		URI:      c.String(flagNeo4jURI),
		Username: c.String(flagNeo4jUser),
		Password: c.String(flagNeo4jPassword),
		Database: c.String(flagNeo4jDatabase),
	}
	if cfg.Database != "" {
		b.Location += " (database " + cfg.Database + ")"
	}
	return cypher.Open(ctx, cfg)
}
