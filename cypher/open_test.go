package cypher

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func TestInit(t *testing.T) {
	kernel := []map[string]any{{"name": "Neo4j Kernel", "versions": []any{"5.26.0"}, "edition": "community"}}
	for _, tc := range []struct {
		name      string
		gdsErr    error
		meta      []map[string]any
		wantGDS   string
		wantIndex []string // vector indexes created
		wantErr   string
	}{
		{name: "with GDS", wantGDS: "2.13.1"},
		{name: "without GDS", gdsErr: &neo4j.Neo4jError{Code: codeProcedureNotFound, Msg: "no gds.version"}},
		{name: "GDS broken", gdsErr: errors.New("license expired"), wantErr: "Graph Data Science"},
		{
			name: "dimension from meta", wantGDS: "2.13.1", meta: []map[string]any{{"value": "384"}},
			wantIndex: []string{qSchemaVectorChunk, qSchemaVectorEntity, qSchemaVectorCommunity},
		},
		{name: "bad meta", meta: []map[string]any{{"value": "many"}}, wantErr: "not a positive integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newFakeStore(t, Config{}, "")
			srv := newSchemaServer()
			srv.rows[qServerComponents] = kernel
			srv.rows[qReadMeta] = tc.meta
			f.answer = func(name string, params map[string]any) ([]map[string]any, error) {
				if name == qServerGDSVersion {
					if tc.gdsErr != nil {
						return nil, tc.gdsErr
					}
					return []map[string]any{{"gdsVersion": "2.13.1"}}, nil
				}
				return srv.answer(name, params)
			}
			err := s.init(t.Context())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("init = %v, want error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c := f.only(qServerGDSVersion); len(c) != 1 || !c[0].write {
				t.Errorf("GDS detection ran as %+v; want one write transaction, routed where the algorithms run", c)
			}
			if s.GDSVersion() != tc.wantGDS || s.ServerVersion() != "5.26.0 community" {
				t.Errorf("versions = %q, %q", s.ServerVersion(), s.GDSVersion())
			}
			names := f.names()
			for _, want := range []string{
				qSchemaConstraintDocument, qSchemaConstraintChunk, qSchemaConstraintEntity,
				qSchemaConstraintCommunity, qSchemaConstraintMeta, qSchemaFulltextChunk,
				qSchemaFulltextEntity, qSchemaIndexEntityLayer, qSchemaIndexCommunityLevel,
			} {
				if !slices.Contains(names, want) {
					t.Errorf("init did not run %s", want)
				}
			}
			if names[len(names)-1] != qSchemaAwait {
				t.Errorf("init ends with %s, want it to wait for indexes", names[len(names)-1])
			}
			var created []string
			for _, n := range names {
				if strings.HasPrefix(n, "schema_vector_") && n != qSchemaVectorIndexes {
					created = append(created, n)
				}
			}
			if !slices.Equal(created, tc.wantIndex) {
				t.Errorf("vector indexes created %v, want %v", created, tc.wantIndex)
			}
			for _, c := range f.calls {
				if strings.HasPrefix(c.name, "schema_constraint") || strings.HasPrefix(c.name, "schema_index") || strings.HasPrefix(c.name, "schema_fulltext") {
					if !c.write {
						t.Errorf("%s ran in a read transaction", c.name)
					}
					for _, d := range f.calls {
						if d.txn == c.txn && d.name != c.name {
							t.Errorf("%s shares its transaction with %s; schema changes need their own", c.name, d.name)
						}
					}
				}
			}
		})
	}
}

func TestInitRejectsOldServer(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	// An old server may also refuse the schema reads that run beside the version check; the
	// version is still what the error names.
	f.answer = func(name string, _ map[string]any) ([]map[string]any, error) {
		switch name {
		case qServerComponents:
			return []map[string]any{{"name": "Neo4j Kernel", "versions": []any{"5.11.0"}, "edition": "community"}}, nil
		case qSchemaExisting:
			return nil, errors.New("Invalid input 'SHOW'")
		}
		return nil, nil
	}
	if err := s.init(t.Context()); err == nil || !strings.Contains(err.Error(), "too old") {
		t.Errorf("init on 5.11 = %v, want a too-old error", err)
	}
	// The plugin probe and the schema reads run beside the version check; nothing writes.
	for _, c := range f.calls {
		if c.write && c.name != qServerGDSVersion {
			t.Errorf("%s ran on an old server", c.name)
		}
	}
	if got := f.only(qServerComponents); len(got) != 1 {
		t.Errorf("server_components sent %d times, want 1", len(got))
	}
}

func TestOpenValidatesBeforeConnecting(t *testing.T) {
	if _, err := Open(context.Background(), Config{}); err == nil || !strings.Contains(err.Error(), "NEO4J_URI") {
		t.Errorf("Open without a URI = %v, want a message naming NEO4J_URI", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("dials a closed local port")
	}
	// Port 1 on the loopback address: nothing listens there, so the dial fails at once.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Open(ctx, Config{URI: "bolt://127.0.0.1:1", Username: "neo4j", Password: "topsecret"})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "cannot reach Neo4j at bolt://127.0.0.1:1") {
		t.Errorf("Open = %v, want a cannot-reach message", err)
	}
	if strings.Contains(err.Error(), "topsecret") {
		t.Errorf("Open leaked the password: %v", err)
	}
}
