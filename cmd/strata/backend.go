package main

import (
	"context"
	"math"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/memstat"
)

// backend describes where the graph lives, for status output and logs (never with secrets).
type backend struct {
	Kind     string `json:"kind"` // "embedded" or "neo4j"
	Location string `json:"location"`
}

// openStore opens Neo4j when a URI is configured, else the embedded store. A writable open takes
// the store's writer lock (the embedded store's lock file, Neo4j's writer lease), so a second
// writer is refused before it writes anything; read-only opens take none, so queries run while
// an ingest is in progress.
func openStore(ctx context.Context, c *cli.Context, log zerolog.Logger, readOnly bool) (graph.Store, backend, error) {
	return openStoreWith(ctx, c, log, embedded.Options{ReadOnly: readOnly, Release: memoryPolicy().Release})
}

// openExistingReadOnly opens the store read-only when one exists (a Neo4j URI is set, or the
// data directory holds a database), for a dry run or a prediction that must leave no store
// behind; nil when there is none. The caller closes it with closeStore.
func openExistingReadOnly(c *cli.Context, log zerolog.Logger) (graph.Store, error) {
	if c.String(flagNeo4jURI) == "" && !fileExists(embedded.DatabaseFile(c.String(flagDataDir))) {
		return nil, nil
	}
	store, _, err := openStore(c.Context, c, log, true)
	return store, err
}

// storeLocation names a store: a database of the Neo4j server the flags name, or the embedded
// store in a directory.
type storeLocation struct {
	neo4j    bool
	database string // with neo4j: the database, "" for the server's default
	dataDir  string // without neo4j
}

// flagLocation is the store the flags name: Neo4j when a URI is configured, else --data-dir.
func flagLocation(c *cli.Context) storeLocation {
	if c.String(flagNeo4jURI) != "" {
		return storeLocation{neo4j: true, database: c.String(flagNeo4jDatabase)}
	}
	return storeLocation{dataDir: c.String(flagDataDir)}
}

// openStoreWith is openStore with the embedded store's options; Neo4j takes only Resident from
// them (strata serve keeps what queries read often in memory, on either backend).
func openStoreWith(ctx context.Context, c *cli.Context, log zerolog.Logger, opt embedded.Options) (graph.Store, backend, error) {
	return openStoreAt(ctx, c, log, opt, flagLocation(c))
}

// openStoreAt is openStoreWith at loc, for strata serve's workspaces.
func openStoreAt(ctx context.Context, c *cli.Context, log zerolog.Logger, opt embedded.Options, loc storeLocation) (graph.Store, backend, error) {
	if loc.neo4j {
		uri := c.String(flagNeo4jURI)
		b := backend{Kind: "neo4j", Location: uri}
		s, err := openNeo4j(ctx, c, log, &b, loc.database, !opt.ReadOnly, opt.Resident)
		if err != nil {
			return nil, b, err
		}
		log.Debug().Str("backend", "neo4j").Str("uri", uri).Msg("store opened")
		return s, b, nil
	}
	dir := loc.dataDir
	b := backend{Kind: "embedded", Location: dir}
	if !opt.ReadOnly {
		opt.BeforeCheck = announceCheck(log)
	}
	s, err := embedded.Open(ctx, dir, opt)
	if err != nil {
		return nil, b, err
	}
	log.Debug().Str("backend", "embedded").Str("dir", dir).Msg("store opened")
	return s, b, nil
}

// slowCheckBytes is the database size from which a writable open says that it checks the file
// first: at the 100–200 MB/s it reads, 1 GiB takes seconds and a 15 GB store minutes, during
// which nothing else would be logged.
const slowCheckBytes = 1 << 30

// announceCheck returns the embedded.Options.BeforeCheck that logs, for a database file of
// slowCheckBytes or more, that the writable open reads it all before anything else happens.
func announceCheck(log zerolog.Logger) func(path string, size int64) {
	return func(path string, size int64) {
		if size < slowCheckBytes {
			return
		}
		log.Info().Str("file", path).Float64("gib", math.Round(float64(size)/(1<<30)*10)/10).
			Msg("checking the store's database file before writing to it: the whole file is read, about a minute per 10 GiB")
	}
}

func closeStore(s graph.Store, log zerolog.Logger) {
	if err := s.Close(); err != nil {
		log.Error().Err(err).Msg("close store")
	}
}

// writeQueryFilesEarly starts writing the embedded store's query files (those a fresh query
// process reads, which Close writes) beside what a writing command still does before it closes
// the store: the report's store counts, 0.4 s on mix next to 0.5 s for the files. The returned
// wait must be called before Close, which then finds the files current; a failure here is left
// to Close to report.
func writeQueryFilesEarly(ctx context.Context, s graph.Store, log zerolog.Logger) (wait func()) {
	w, ok := s.(interface{ WriteQueryFiles(context.Context) error })
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.WriteQueryFiles(ctx); err != nil {
			log.Debug().Err(err).Msg("write query files early; close tries again")
		}
	}()
	return func() { <-done }
}

// closeIngestStore closes the store an ingest wrote and logs at info how long closing took and
// the memory of the process after it: the embedded store writes its query files (vectors, entity
// graph) on Close, the last stage of an ingest.
func closeIngestStore(s graph.Store, log zerolog.Logger) {
	t := time.Now()
	closeStore(s, log)
	m := memstat.Now()
	m.Fields(log.Info().Str("stage", "close").Dur("took", time.Since(t))).Msg("stage finished")
}
