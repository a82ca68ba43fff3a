package embedded

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestContractResident runs the contract suite on a Resident store: its in-memory read paths
// must answer what SQLite answers, and follow every write.
func TestContractResident(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graph.Store {
		s, err := Open(t.Context(), t.TempDir(), Options{Resident: true})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}

// TestDocumentLinksResident: the mention index answers what documentLinksSQL answers, and
// follows every write.
func TestDocumentLinksResident(t *testing.T) {
	w, r := writerAndResident(t)
	storetest.DocumentLinksFollowWrites(t, w, r, func() bool { return r.mentions.ix != nil })
}

// TestResidentReaderOfVersion5 checks that a resident reader uses a store of schema version 5
// as it is (no mentions generation, no communities_rating: SQLite answers), and that the next
// writer upgrades it to what the in-memory paths need.
func TestResidentReaderOfVersion5(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := storetest.MentionsBatch(rand.New(rand.NewPCG(7, 8)), 4, 6, 20)
	if err := w.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ComputeCommunities(t.Context(), graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	var chunks, seeds []string
	for _, c := range b.Chunks[:5] {
		chunks = append(chunks, c.ID)
	}
	for _, e := range b.Entities[:8] {
		seeds = append(seeds, e.ID)
	}
	wantLinks, err := w.DocumentLinks(t.Context(), chunks, 3)
	if err != nil {
		t.Fatal(err)
	}
	opt := graph.LocalOptions{TopChunks: 5, TopCommunities: 4}
	wantLocal, err := w.ExpandLocal(t.Context(), seeds, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantLinks) == 0 || len(wantLocal.Communities) == 0 {
		t.Fatalf("the store gives nothing to compare: %d links, %d communities", len(wantLinks), len(wantLocal.Communities))
	}
	for _, q := range []string{
		`DROP INDEX entities_degree`, `DROP INDEX communities_level`, `CREATE INDEX communities_level ON communities (level, community_id)`,
		`DROP INDEX communities_rating`, `DELETE FROM generations WHERE name = 'mentions'`,
		`ALTER TABLE chunks DROP COLUMN first_page`, `ALTER TABLE chunks DROP COLUMN last_page`, `PRAGMA user_version = 5`,
	} {
		if _, err := w.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := Open(t.Context(), dir, Options{ReadOnly: true, Resident: true})
	if err != nil {
		t.Fatalf("resident open of a version 5 store: %v", err)
	}
	links, err := r.DocumentLinks(t.Context(), chunks, 3)
	if err != nil || !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("version 5 store: DocumentLinks = %v, %v; want %v", links, err, wantLinks)
	}
	local, err := r.ExpandLocal(t.Context(), seeds, opt)
	if err != nil || !reflect.DeepEqual(local, wantLocal) {
		t.Errorf("version 5 store: ExpandLocal = %+v, %v; want %+v", local, err, wantLocal)
	}
	r.Close()

	w, err = Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("upgrading open: %v", err)
	}
	defer w.Close()
	var n int
	if err := w.db.QueryRow(`SELECT count(*) FROM generations WHERE name = 'mentions'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("after the upgrade: %d mentions generations, %v", n, err)
	}
	if err := w.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'communities_rating'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("after the upgrade: %d communities_rating indexes, %v", n, err)
	}
}

// writerAndResident opens a new store and, beside its writer, a read-only resident reader (as
// strata serve runs beside an ingest); both are closed when the test ends.
func writerAndResident(t *testing.T) (w, r *Store) {
	t.Helper()
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	r, err = Open(t.Context(), dir, Options{ReadOnly: true, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return w, r
}
