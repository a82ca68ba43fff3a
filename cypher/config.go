package cypher

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/rs/zerolog"
)

// DefaultBatchSize is the number of rows sent per UNWIND statement when Config.BatchSize is 0.
// Large enough to amortize round trips, small enough to keep each message well below the
// server's limits with 1536-dimensional embeddings in the rows.
const DefaultBatchSize = 500

// Config says where the Neo4j server is and how to write to it.
type Config struct {
	URI      string // neo4j://, neo4j+s://, bolt:// or bolt+s:// address
	Username string
	Password string
	Database string // "" means the server's default database
	// BatchSize is the number of rows per UNWIND statement within a write transaction
	// (DefaultBatchSize when <= 0).
	BatchSize int
	// RetryTime bounds how long a transaction is retried on transient errors and lost
	// connections (a server restart shorter than it goes unnoticed); 0 keeps the driver's 30 s.
	// Past it the command fails with an error for which Disconnected holds.
	RetryTime time.Duration
	// Resident keeps what queries read often in this process, for a long-lived reader (strata
	// serve): the entity and chunk vectors, searched exactly in memory and the source of
	// ExpandLocal's embeddings (vectorcache.go), the mentions, which answer DocumentLinks
	// (mentions.go), the community records and memberships of CommunitiesByLevel,
	// CommunityEntities and ExpandLocal (communitycache.go), the relations of ExpandLocal and
	// Relations (residentlocal.go), the chunks, documents and entities it read (recordcache.go)
	// and the entity projection, in which it finds paths as GDS does (residentpaths.go), each
	// kept for one generation of what it copies; the generations are read once per
	// graph.WithReadScope. A short-lived process is faster without: loading them costs more
	// than the searches it saves.
	Resident bool
	// SnapshotDir, when set, is a directory of vector snapshots (vectorsnapshot.go): vector
	// searches of the indexes a resident store keeps in memory run on a copy of the vectors
	// read from it, when it holds the current generation's, else loaded from Neo4j and then
	// written to it. A short-lived process (strata query) sets it, so that the first process
	// after a write pays the load and the next ones search locally; a resident store reads its
	// copies from it on start. Each database needs its own directory.
	SnapshotDir string
	// Log receives a debug line per statement sent (its name, records and time); the zero
	// Logger logs nothing.
	Log zerolog.Logger
}

// ConfigFromEnv reads NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE and
// STRATA_NEO4J_BATCH_SIZE. Unset variables leave their field empty; Open reports what is missing.
func ConfigFromEnv() Config {
	c := Config{
		URI:      os.Getenv("NEO4J_URI"),
		Username: os.Getenv("NEO4J_USERNAME"),
		Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"),
	}
	if n, err := strconv.Atoi(os.Getenv("STRATA_NEO4J_BATCH_SIZE")); err == nil {
		c.BatchSize = n
	}
	return c
}

// String describes the configuration for logs and error messages, without the password.
func (c Config) String() string {
	pw := ""
	if c.Password != "" {
		pw = "***"
	}
	return fmt.Sprintf("neo4j uri=%s user=%q password=%s database=%q batch=%d",
		redactURI(c.URI), c.Username, pw, c.Database, c.batchSize())
}

// GoString keeps %#v from printing the password too.
func (c Config) GoString() string { return c.String() }

func (c Config) batchSize() int {
	if c.BatchSize <= 0 {
		return DefaultBatchSize
	}
	return c.BatchSize
}

func (c Config) validate() error {
	if c.URI == "" {
		return errors.New("cypher: no Neo4j URI (set NEO4J_URI or --neo4j-uri)")
	}
	u, err := url.Parse(c.URI)
	if err != nil {
		return fmt.Errorf("cypher: invalid Neo4j URI %q", redactURI(c.URI))
	}
	switch u.Scheme {
	case "neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc":
	default:
		return fmt.Errorf("cypher: Neo4j URI %q: scheme must be neo4j, neo4j+s, neo4j+ssc, bolt, bolt+s or bolt+ssc", redactURI(c.URI))
	}
	return nil
}

// redactURI removes a password given inside the URI (scheme://user:pass@host).
func redactURI(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if err != nil {
			return "(unparsable URI)"
		}
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "***")
	}
	return u.String()
}
