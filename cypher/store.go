package cypher

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/graph"
)

// Store is the Neo4j implementation of graph.Store. It is safe for concurrent use.
type Store struct {
	run       runner
	q         queries
	batchSize int
	// projectionPrefix starts the GDS catalog names of this database's entity projections.
	projectionPrefix string
	// staleTempGraphAge is the age past which a short-lived projection counts as left behind
	// (the constant staleTempGraphAge; tests shorten it).
	staleTempGraphAge time.Duration
	// txWrites bounds the writes of one transaction of writeSteps (the constant
	// hierarchyTxWrites; tests lower it).
	txWrites int

	server string // "5.26.0 enterprise", from dbms.components()
	gds    string // GDS version, "" when the plugin is missing

	// writeMu serializes this process's writes (Apply, algorithms): Neo4j would serialize
	// conflicting ones too, but only by failing and retrying transactions.
	writeMu sync.Mutex

	dimsMu sync.Mutex
	dims   map[graph.VectorIndex]int // dimension of each existing vector index

	lease *lease // the writer lease, once TakeWriterLease took it

	log  zerolog.Logger // Config.Log: a debug line per in-memory copy loaded
	warm warmer         // StartWarming

	// resident: vector search, ExpandLocal, Relations, DocumentLinks, AncestorLinks,
	// CommunitiesByLevel, Chunks and Documents run on in-memory copies (Config.Resident).
	resident    bool
	snapshotDir string // Config.SnapshotDir
	vectorsMu   sync.Mutex
	vectors     map[graph.VectorIndex]*residentVectors
	mentions    residentMentions
	communities residentCommunities
	paths       residentPaths
	members     residentMembers
	links       residentLinks
	relations   residentRelations
	// chunkCache, documentCache and entityCache are a resident store's copies of the records
	// it read.
	chunkCache    recordCache[graph.Chunk]
	documentCache recordCache[graph.Document]
	entityCache   recordCache[graph.Entity] // without embeddings (EntityTexts)
}

var _ graph.Store = (*Store)(nil)

// Open connects to the server in cfg and prepares the database: it checks that the server is
// reachable, accepts the credentials, has the database and is recent enough, detects the GDS
// plugin, creates constraints and indexes (if missing) and waits until they are online. Errors
// say what to fix and never contain the password.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	qs, err := loadQueries()
	if err != nil {
		return nil, err
	}
	auth := neo4j.NoAuth()
	if cfg.Username != "" || cfg.Password != "" {
		auth = neo4j.BasicAuth(cfg.Username, cfg.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.UserAgent = "strata"
		if cfg.RetryTime > 0 {
			c.MaxTransactionRetryTime = cfg.RetryTime
		}
	})
	if err != nil {
		return nil, explainOpen(cfg, err)
	}
	s := newStore(&driverRunner{driver: driver, database: cfg.Database, retry: cfg.RetryTime, stmts: statements{log: cfg.Log}}, qs, cfg)
	// The connectivity check fails fast where a statement would retry for RetryTime; it runs
	// beside the startup statements rather than before them, a round trip a fresh query process
	// does not wait for, and stops them when it fails.
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	verified := make(chan error, 1)
	go func() {
		err := driver.VerifyConnectivity(ictx)
		if err != nil {
			cancel()
		}
		verified <- err
	}()
	err = s.init(ictx)
	if verr := <-verified; verr != nil {
		err = verr
	}
	if err != nil {
		_ = driver.Close(ctx)
		return nil, explainOpen(cfg, err)
	}
	return s, nil
}

// newStore wires a store to a runner; Open and the tests call it.
func newStore(r runner, qs queries, cfg Config) *Store {
	return &Store{
		run:               r,
		q:                 qs,
		batchSize:         cfg.batchSize(),
		projectionPrefix:  projectionPrefix(cfg.Database),
		staleTempGraphAge: staleTempGraphAge,
		txWrites:          hierarchyTxWrites,
		dims:              map[graph.VectorIndex]int{},
		resident:          cfg.Resident,
		snapshotDir:       cfg.SnapshotDir,
		log:               cfg.Log,
		vectors:           map[graph.VectorIndex]*residentVectors{},
	}
}

// init runs the startup checks and the schema setup of Open. The server's version, its GDS
// plugin and the schema are asked for at once: a fresh query process would otherwise wait for
// these round trips in turn before its first search. The schema is changed only on a server
// that passed the check, and the version check's error is the one shown when several fail: on
// a server strata does not support, that is what to fix.
func (s *Store) init(ctx context.Context) error {
	var (
		rows                          []map[string]any
		versionErr, gdsErr, schemaErr error
		schema                        schemaState
		wg                            sync.WaitGroup
	)
	wg.Add(3)
	if !s.resident && s.snapshotDir != "" && graph.ReadScopeOf(ctx) != nil {
		// A store opened for one query (strata query) reads its scope's generations beside
		// the checks: the query's first search waits for them. The scope keeps what it read.
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = s.generations(ctx)
		}()
	}
	go func() {
		defer wg.Done()
		rows, versionErr = s.readRows(ctx, qServerComponents, nil)
	}()
	go func() {
		defer wg.Done()
		s.gds, gdsErr = s.detectGDS(ctx)
	}()
	go func() {
		defer wg.Done()
		schema, schemaErr = s.readSchema(ctx)
	}()
	wg.Wait()
	if versionErr != nil {
		return versionErr
	}
	var err error
	if s.server, err = checkComponents(rows); err != nil {
		return err
	}
	if gdsErr != nil {
		return gdsErr
	}
	if schemaErr != nil {
		return schemaErr
	}
	return s.ensureSchema(ctx, schema)
}

// detectGDS returns the GDS version, or "" when the plugin is not installed. It asks in a write
// transaction, routed like the algorithm runs and path searches, so that on a cluster the
// server that says it has GDS is the one that will run it.
func (s *Store) detectGDS(ctx context.Context) (string, error) {
	rows, err := s.run.one(ctx, true, s.q.get(qServerGDSVersion), nil)
	switch {
	case neo4jCode(err) == codeProcedureNotFound:
		return "", nil
	case err != nil:
		return "", fmt.Errorf("detect the Graph Data Science plugin: %w", err)
	case len(rows) == 0:
		return "", nil
	}
	f := fields{m: rows[0]}
	version := f.str("gdsVersion")
	if f.err != nil {
		return "", fmt.Errorf("detect the Graph Data Science plugin: %w", f.err)
	}
	return version, nil
}

// ServerVersion is the Neo4j version and edition found by Open, e.g. "5.26.0 enterprise".
func (s *Store) ServerVersion() string { return s.server }

// GDSVersion is the version of the Graph Data Science plugin, or "" when it is not installed
// (then ComputeComponents and ComputeCommunities return ErrNoGDS).
func (s *Store) GDSVersion() string { return s.gds }

// Close gives the writer lease up, if the store holds it, and releases the driver's connections.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.stopWarming()
	return errors.Join(s.releaseLease(ctx), s.run.close(ctx))
}
