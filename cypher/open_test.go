package cypher

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/stratarag/strata/internal/graph"
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

// TestInitReadsScopeGenerations: a store opened for one query (snapshots, not resident, in a read
// scope) reads the scope's generations beside the startup checks, so that the query's own reads
// of them, the embedding model's record among them, send nothing more; the GDS catalog is not
// asked (only a resident store's copy of the projection needs it).
func TestInitReadsScopeGenerations(t *testing.T) {
	s, f := newFakeStore(t, Config{SnapshotDir: t.TempDir()}, "2.13.9")
	f.answer = func(name string, params map[string]any) ([]map[string]any, error) {
		switch name {
		case qServerComponents:
			return []map[string]any{{"name": "Neo4j Kernel", "versions": []any{"5.26.0"}, "edition": "community"}}, nil
		case qServerGDSVersion:
			return []map[string]any{{"gdsVersion": "2.13.9"}}, nil
		case qSchemaExisting:
			var rows []map[string]any
			for _, o := range schemaObjects {
				row := map[string]any{"name": o.name, "owningConstraint": "", "state": "ONLINE"}
				if o.constraint {
					row["owningConstraint"] = o.name
				}
				rows = append(rows, row)
			}
			return rows, nil
		case qReadMetaKeys:
			return []map[string]any{{"key": graph.MetaEmbeddingModel, "value": "e5"}}, nil
		}
		return nil, nil
	}
	ctx := graph.WithReadScope(t.Context())
	if err := s.init(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(f.only(qReadMetaKeys)); n != 1 {
		t.Fatalf("init sent read_meta_keys %d times, want once", n)
	}
	f.reset()
	vals, err := s.MetaValues(ctx, []string{graph.MetaEmbeddingModel, graph.MetaEmbeddingDims})
	if err != nil || vals[graph.MetaEmbeddingModel] != "e5" {
		t.Errorf("MetaValues = %v, %v; want the model read at init", vals, err)
	}
	if names := f.names(); len(names) != 0 {
		t.Errorf("MetaValues in the scope sent %v, want nothing", names)
	}
	if len(f.only(qReadGenerations)) != 0 {
		t.Error("a store that is not resident asked the GDS catalog for its projection")
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
