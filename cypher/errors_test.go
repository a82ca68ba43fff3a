package cypher

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func TestExplainOpen(t *testing.T) {
	cfg := Config{URI: "neo4j://neo4j:hunter2@db:7687", Username: "strata", Password: "hunter2", Database: "graphs"}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"auth", &neo4j.Neo4jError{Code: codeUnauthorized, Msg: "The client is unauthorized"},
			[]string{"authentication failed", `"strata"`, "NEO4J_PASSWORD"}},
		{"database", fmt.Errorf("components: %w", &neo4j.Neo4jError{Code: codeDatabaseNotFound, Msg: "Database does not exist"}),
			[]string{`no database "graphs"`, "NEO4J_DATABASE"}},
		{"unreachable", &neo4j.ConnectivityError{Inner: errors.New("dial tcp: connection refused")},
			[]string{"cannot reach Neo4j", "db:7687", "docker/README.md"}},
		{"other", errors.New("something else"), []string{"connect to Neo4j", "something else"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := explainOpen(cfg, tc.err).Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "hunter2") {
				t.Errorf("message leaks the password: %q", msg)
			}
			if !errors.Is(explainOpen(cfg, tc.err), tc.err) {
				t.Errorf("explainOpen does not wrap the cause")
			}
		})
	}
}

func TestDisconnected(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name  string
		err   error
		gone  bool
		cause string
	}{
		{"connection lost", fmt.Errorf("write_chunks: %w", &neo4j.ConnectivityError{Inner: io.EOF}), true, "EOF"},
		{"retries ran out", fmt.Errorf("write document d: %w", &neo4j.TransactionExecutionLimit{Cause: "timeout",
			Errors: []error{&neo4j.ConnectivityError{Inner: io.EOF}, &neo4j.ConnectivityError{Inner: refused}}}), true, "connection refused"},
		{"database unavailable", &neo4j.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable"}, true, "DatabaseUnavailable"},
		{"a file's error", fmt.Errorf("read questions: %w", &os.PathError{Op: "open", Path: "q.jsonl", Err: syscall.ENOENT}), false, ""},
		{"a reader's EOF", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), false, ""},
		{"syntax error", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}, false, ""},
		{"retries ran out on deadlocks", &neo4j.TransactionExecutionLimit{Cause: "timeout",
			Errors: []error{&neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected"}}}, false, ""},
		{"other", errors.New("reporter crashed"), false, ""},
		{"Open could not reach the server", explainOpen(Config{URI: "bolt://db:7687"}, &neo4j.ConnectivityError{Inner: refused}), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cause, gone := Disconnected(tc.err)
			if gone != tc.gone || (gone && !strings.Contains(fmt.Sprint(cause), tc.cause)) {
				t.Errorf("Disconnected = %v, %v; want %v with a cause saying %q", cause, gone, tc.gone, tc.cause)
			}
		})
	}
}
