package main

import (
	"context"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/graph"
)

// openNeo4j connects to the Neo4j server named by the flags (or NEO4J_* variables).
func openNeo4j(ctx context.Context, c *cli.Context, log zerolog.Logger, b *backend, resident bool) (graph.Store, error) {
	cfg := cypher.Config{
		Resident: resident,
		URI:      c.String(flagNeo4jURI),
		Username: c.String(flagNeo4jUser),
		Password: c.String(flagNeo4jPassword),
		Database: c.String(flagNeo4jDatabase),
		Log:      log, // a line per statement at --log-level debug
	}
	if cfg.Database != "" {
		b.Location += " (database " + cfg.Database + ")"
	}
	return cypher.Open(ctx, cfg)
}

// statementOutput is what one Neo4j statement cost during a run (cypher.StatementStat).
type statementOutput struct {
	Name  string  `json:"name"`
	Calls int     `json:"calls"`
	Rows  int     `json:"rows"`
	MS    float64 `json:"ms"`
}

// neo4jStatements lists what the statements a Neo4j store sent cost, the most time first; nil
// for the embedded store.
func neo4jStatements(store graph.Store) []statementOutput {
	s, ok := store.(*cypher.Store)
	if !ok {
		return nil
	}
	var out []statementOutput
	for _, st := range s.StatementStats() {
		out = append(out, statementOutput{Name: st.Name, Calls: st.Calls, Rows: st.Rows, MS: ms(st.Elapsed)})
	}
	return out
}
