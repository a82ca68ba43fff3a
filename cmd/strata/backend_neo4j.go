package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline"
)

// openNeo4j connects to database (default: the server's) of the Neo4j server named by the flags
// (or NEO4J_* variables); a writer takes the database's writer lease.
func openNeo4j(ctx context.Context, c *cli.Context, log zerolog.Logger, b *backend, database string, writer, resident bool) (graph.Store, error) {
	cfg := cypher.Config{
		Resident:  resident,
		URI:       c.String(flagNeo4jURI),
		Username:  c.String(flagNeo4jUser),
		Password:  c.String(flagNeo4jPassword),
		Database:  database,
		RetryTime: c.Duration(flagNeo4jRetry),
		Log:       log, // a line per statement at --log-level debug
	}
	if cfg.Database != "" {
		b.Location += " (database " + cfg.Database + ")"
	}
	if !writer {
		// A writer's searches (entity resolution) come between its own writes, each of which
		// would make a snapshot stale.
		cfg.SnapshotDir = snapshotDir(c.String(flagDataDir), cfg.URI, cfg.Database)
	}
	s, err := cypher.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if !writer {
		return s, nil
	}
	if err := s.TakeWriterLease(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// snapshotDir is where readers of the Neo4j database at uri keep its vector snapshots
// (cypher.Config.SnapshotDir): under the data directory, one directory per server and database.
func snapshotDir(dataDir, uri, database string) string {
	sum := sha256.Sum256([]byte(uri + "\x00" + database))
	return filepath.Join(dataDir, "neo4j-snapshots", hex.EncodeToString(sum[:8]))
}

// writeSnapshots leaves, after a writer's run on Neo4j, the snapshots that query processes with
// the same --data-dir read (snapshotDir), so that the first of them does not load the copies
// itself; it returns the time taken, 0 for the embedded store. A failure is logged, not
// returned: the readers load the copies then.
func writeSnapshots(c *cli.Context, s graph.Store, log zerolog.Logger) time.Duration {
	sw, ok := s.(interface {
		WriteSnapshots(ctx context.Context, dir string) error
	})
	if !ok {
		return 0
	}
	start := time.Now()
	dir := snapshotDir(c.String(flagDataDir), c.String(flagNeo4jURI), c.String(flagNeo4jDatabase))
	if err := sw.WriteSnapshots(c.Context, dir); err != nil {
		log.Warn().Err(err).Str("dir", dir).Msg("write the snapshots for query processes; the first one loads them")
	}
	return time.Since(start)
}

// statementOutput is what one Neo4j statement cost during a run (cypher.StatementStat).
type statementOutput struct {
	Name  string  `json:"name"`
	Calls int     `json:"calls"`
	Rows  int     `json:"rows"`
	MS    float64 `json:"ms"`
}

// stageStatements is what one stage's statements to Neo4j cost: how many, and their time summed.
type stageStatements struct {
	Statements int     `json:"statements"`
	MS         float64 `json:"ms"`
}

// neo4jStages is a run's statements per stage; nil for the embedded store.
func neo4jStages(byStage map[string]pipeline.StatementCount) map[string]stageStatements {
	if len(byStage) == 0 {
		return nil
	}
	out := make(map[string]stageStatements, len(byStage))
	for stage, st := range byStage {
		out[stage] = stageStatements{Statements: st.Calls, MS: ms(st.Elapsed)}
	}
	return out
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
