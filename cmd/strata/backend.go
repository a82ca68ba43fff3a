package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
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
		announceCheck(dir, log)
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

// announceCheck logs, for a database file of slowCheckBytes or more, that a writable open reads
// it all before anything else happens.
func announceCheck(dir string, log zerolog.Logger) {
	fi, err := os.Stat(embedded.DatabaseFile(dir))
	if err != nil || fi.Size() < slowCheckBytes {
		return // a new store, or one quick to check; Open reports any problem
	}
	log.Info().Str("file", embedded.DatabaseFile(dir)).Float64("gib", math.Round(float64(fi.Size())/(1<<30)*10)/10).
		Msg("checking the store's database file before writing to it: the whole file is read, about a minute per 10 GiB")
}

func closeStore(s graph.Store, log zerolog.Logger) {
	if err := s.Close(); err != nil {
		log.Error().Err(err).Msg("close store")
	}
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

// longLivedGCPercent is the garbage collector's target for ingest and serve unless GOGC says
// otherwise: the heap may grow half over what is live between collections instead of doubling.
// Both hold large things live for long (an ingest a huge document's text through all its batches
// and a layer's entities through its clustering; a server its store's in-memory indexes), so the
// default doubling adds about a third to their peak RSS (bench/bigdoc on a huge document, a server
// over bench/query's 10x mix store), while collecting more often costs a few percent of CPU.
const longLivedGCPercent = 50

// stageGCPercent is the collector's target while the summary layers and the communities are
// computed. A layer of millions holds its ids, links and reduced embeddings in large
// pointer-free arrays, and the communities stage the entity graph and Leiden's arrays, while
// they read and write entities row by row, making garbage at every row (the driver's strings and
// arguments): at longLivedGCPercent the 50 MiB adversarial document's layers went up to 301 MiB
// while the links of layer 1 were written, and its communities' graph load to 310 MB.
const stageGCPercent = 10

// memoryPolicy is the memory policy of the process, applied by ingest and serve (Apply) and by
// the stage runner of ingest and delete: longLivedGCPercent unless the user set GOGC,
// stageGCPercent during the layers and communities stages (unless GOGC is lower or off), and
// the garbage of every stage and of the large steps within them collected at once, its pages
// handed back (memstat.Policy.ReturnFreed).
func memoryPolicy() memstat.Policy {
	p := memstat.Policy{
		StageGCPercent: map[string]int{"layers": stageGCPercent, "communities": stageGCPercent},
		ReturnFreed:    true,
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		p.GCPercent = longLivedGCPercent
	}
	return p
}

// lowerGC applies longLivedGCPercent unless the user set GOGC (memoryPolicy).
func lowerGC() {
	memoryPolicy().Apply()
}

// heapProfileEnv names a file to write a heap profile of an ingest to, taken near the peak of
// the Go heap (memstat.HeapProfiler): a diagnostic for bench/bigdoc, not a documented option.
const heapProfileEnv = "STRATA_HEAP_PROFILE"

// profileHeap profiles the heap into path until the returned stop is called; a failure to write
// the profile is logged, never fatal.
func profileHeap(ctx context.Context, path string, log zerolog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := (memstat.HeapProfiler{Path: path}).Run(ctx); err != nil {
			log.Warn().Err(err).Msg("heap profile")
		}
	}()
	return func() { cancel(); <-done }
}

// cpuProfileEnv names a file prefix to write CPU profiles of an ingest to, one per
// cpuProfileWindow (PREFIX.000, PREFIX.001, ...), so that a slow phase of a long run has a
// profile of its own: a diagnostic for bench/bigdoc, not a documented option.
const cpuProfileEnv = "STRATA_CPU_PROFILE"

const cpuProfileWindow = 5 * time.Minute

// profileCPU writes CPU profiles to prefix.NNN until the returned stop is called; a failure to
// write one is logged, never fatal.
func profileCPU(ctx context.Context, prefix string, log zerolog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			path := fmt.Sprintf("%s.%03d", prefix, i)
			if err := profileCPUWindow(ctx, path); err != nil {
				log.Warn().Err(err).Msg("CPU profile")
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// profileCPUWindow profiles into path for cpuProfileWindow or until ctx is done.
func profileCPUWindow(ctx context.Context, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(cpuProfileWindow):
	}
	pprof.StopCPUProfile()
	return f.Close()
}

func describe(b backend) string { return fmt.Sprintf("%s store at %s", b.Kind, b.Location) }
