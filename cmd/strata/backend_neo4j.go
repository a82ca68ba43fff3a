package main

import (
	"context"
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/graph"
)

func openNeo4j(ctx context.Context, c *cli.Context, b *backend) (graph.Store, error) {
	return nil, errors.New("the Neo4j backend is not in this build yet")
}
