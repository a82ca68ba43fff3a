package cypher

import (
	"errors"
	"fmt"
	"strings"
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
