package cypher

import (
	"errors"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Neo4j status codes that Open and the algorithms turn into messages a user can act on.
const (
	codeUnauthorized      = "Neo.ClientError.Security.Unauthorized"
	codeDatabaseNotFound  = "Neo.ClientError.Database.DatabaseNotFound"
	codeProcedureNotFound = "Neo.ClientError.Procedure.ProcedureNotFound"
)

// ErrNoGDS is returned by ComputeComponents and ComputeCommunities when the server has no
// Graph Data Science plugin.
var ErrNoGDS = errors.New("the Neo4j Graph Data Science plugin is not installed " +
	"(gds.version() is unknown); install it, e.g. with NEO4J_PLUGINS='[\"graph-data-science\"]' " +
	"as in docker/compose.yml")

// neo4jCode returns the Neo4j status code carried by err, or "".
func neo4jCode(err error) string {
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		return ne.Code
	}
	return ""
}

// isConnectivity reports whether err says that the server could not be reached.
func isConnectivity(err error) bool {
	var ce *neo4j.ConnectivityError
	return errors.As(err, &ce)
}

// explainOpen turns a failure to connect to cfg's server into a message that names the cause
// and what to check. It never includes the password.
func explainOpen(cfg Config, err error) error {
	return &openError{err: explainOpenCause(cfg, err)}
}

func explainOpenCause(cfg Config, err error) error {
	uri := redactURI(cfg.URI)
	switch {
	case neo4jCode(err) == codeUnauthorized:
		return fmt.Errorf("cypher: Neo4j at %s rejected user %q: authentication failed "+
			"(check NEO4J_USERNAME and NEO4J_PASSWORD): %w", uri, cfg.Username, err)
	case neo4jCode(err) == codeDatabaseNotFound:
		db := cfg.Database
		if db == "" {
			db = "(default)"
		}
		return fmt.Errorf("cypher: Neo4j at %s has no database %q (check NEO4J_DATABASE; "+
			"Community Edition has only \"neo4j\"): %w", uri, db, err)
	case isConnectivity(err):
		return fmt.Errorf("cypher: cannot reach Neo4j at %s (is the server running and the "+
			"URI right? docker/README.md starts one): %w", uri, err)
	default:
		return fmt.Errorf("cypher: connect to Neo4j at %s: %w", uri, err)
	}
}

// Disconnected reports whether err is the driver giving a statement up because it lost the
// server: stopped, restarted or cut off, at once or after its retries, or the database was
// unavailable (shutting down, starting). What the server committed stays; what a transaction
// had not committed is rolled back. cause is the innermost such error, short enough for a
// one-line message (e.g. "EOF", "connect: connection refused"). A failure of Open to reach the
// server is not a disconnection: Open's own message says what to check.
func Disconnected(err error) (cause error, lost bool) {
	var open *openError
	if errors.As(err, &open) {
		return nil, false
	}
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &limit) {
		for i := len(limit.Errors) - 1; i >= 0; i-- {
			if cause, lost := Disconnected(limit.Errors[i]); lost {
				return cause, true
			}
		}
	}
	var ce *neo4j.ConnectivityError
	if errors.As(err, &ce) {
		return ce.Inner, true
	}
	if code := neo4jCode(err); strings.HasSuffix(code, ".DatabaseUnavailable") {
		return errors.New(code), true
	}
	// Only the driver's own errors count: an EOF or a refused file elsewhere in a run is no
	// lost server (the driver wraps its network errors in ConnectivityError).
	return nil, false
}

// openError is a failure of Open, explained (explainOpen).
type openError struct{ err error }

func (e *openError) Error() string { return e.err.Error() }
func (e *openError) Unwrap() error { return e.err }
