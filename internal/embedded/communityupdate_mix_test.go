package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// TestUpdateCommunitiesMix measures UpdateCommunities on a copy of a built store
// (STRATA_UPDATE_STORE, e.g. an offline ingest of the mix corpus): one document's entities
// deleted, then added back, with the per-level share of communities kept by a seeded run of the
// first level only, of every level, and by a fresh run. It logs figures; it fails only when an
// update breaks the hierarchy.
func TestUpdateCommunitiesMix(t *testing.T) {
	src := os.Getenv("STRATA_UPDATE_STORE")
	if src == "" {
		t.Skip("STRATA_UPDATE_STORE not set")
	}
	dir := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v: %s", src, err, out)
	}
	ctx := context.Background()
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := graph.DefaultLeidenParams()

	doc := os.Getenv("STRATA_UPDATE_DOC")
	if doc == "" {
		if err := s.db.QueryRowContext(ctx, `SELECT id FROM documents ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM documents)`).Scan(&doc); err != nil {
			t.Fatal(err)
		}
	}
	only := strings.Join(strings.Fields(`SELECT entity_id FROM mentions GROUP BY entity_id
		HAVING sum(chunk_id IN (SELECT id FROM chunks WHERE document_id = ?1)) = count(*)`), " ")
	exclusive := queryStrings(t, s.db, only, doc)
	shared := queryStrings(t, s.db, `SELECT DISTINCT entity_id FROM mentions WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?1)
		AND entity_id NOT IN (`+only+`)`, doc)
	neighbours := queryStrings(t, s.db, `SELECT target FROM relations WHERE source IN (`+only+`)
		UNION SELECT source FROM relations WHERE target IN (`+only+`)`, doc)
	changed := append(append(append([]string(nil), exclusive...), shared...), neighbours...)
	t.Logf("document %s: %d entities of its own, %d shared, %d neighbours", doc, len(exclusive), len(shared), len(neighbours))

	ents, err := s.Entities(ctx, exclusive)
	if err != nil {
		t.Fatal(err)
	}
	var keys []graph.RelationKey
	for _, k := range queryPairs(t, s.db, `SELECT source, target FROM relations WHERE source IN (`+only+`) OR target IN (`+only+`)`, doc) {
		keys = append(keys, graph.RelationKey{Source: k[0], Target: k[1]})
	}
	rels, err := s.Relations(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	var links []graph.SummaryLink
	for _, k := range queryPairs(t, s.db, `SELECT member, summary FROM summary_links WHERE member IN (`+only+`) OR summary IN (`+only+`)`, doc) {
		links = append(links, graph.SummaryLink{Member: k[0], Summary: k[1], Weight: 1})
	}

	experiment(t, s, p, "unchanged", nil)
	if u := timeUpdate(t, s, p, "unchanged", nil); len(u.Report) != 0 || u.Kept != u.Total || u.Removed != 0 {
		t.Errorf("unchanged store: %d reported, %d of %d kept, %d removed", len(u.Report), u.Kept, u.Total, u.Removed)
	}

	if err := s.Apply(ctx, graph.Batch{DeleteEntities: exclusive}); err != nil {
		t.Fatal(err)
	}
	experiment(t, s, p, "deleted", changed)
	timeUpdate(t, s, p, "deleted", changed)

	if err := s.Apply(ctx, graph.Batch{Entities: ents, Relations: rels, SummaryLinks: links}); err != nil {
		t.Fatal(err)
	}
	experiment(t, s, p, "added", changed)
	timeUpdate(t, s, p, "added", changed)

	start := time.Now()
	comms, err := s.ComputeCommunities(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ComputeCommunities: %d communities in %v", len(comms), time.Since(start).Round(time.Millisecond))
	if u := timeUpdate(t, s, p, "after ComputeCommunities, unchanged", nil); len(u.Report) != 0 || u.Kept != u.Total || u.Fresh {
		t.Errorf("after ComputeCommunities: %d reported, %d of %d kept, fresh %v", len(u.Report), u.Kept, u.Total, u.Fresh)
	}
}

func timeUpdate(t *testing.T, s *Store, p graph.LeidenParams, what string, changed []string) graph.CommunityUpdate {
	start := time.Now()
	u, err := s.UpdateCommunities(context.Background(), p, changed)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: UpdateCommunities in %v: total %d kept %d removed %d report %d fresh %v modularity %.4f",
		what, time.Since(start).Round(time.Millisecond), u.Total, u.Kept, u.Removed, len(u.Report), u.Fresh, u.Modularity)
	return u
}

// experiment compares, without writing, the kept share per level of three ways of computing.
func experiment(t *testing.T, s *Store, p graph.LeidenParams, what string, changed []string) {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	eg, err := s.entityGraph(ctx, tx, false)
	if err != nil {
		t.Fatal(err)
	}
	index := idlist.NewIndex(eg.ids)
	stored, err := readStoredCommunities(ctx, tx, index)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []int32
	for _, id := range changed {
		if u, ok := index.Find([]byte(id)); ok {
			nodes = append(nodes, u)
		}
	}
	initial := initialLevels(stored, eg.ids.Len())
	opt := graphalgo.LeidenOptions{Gamma: p.Gamma, Theta: p.Theta, Tolerance: p.Tolerance, MaxLevels: p.MaxLevels, Seed: p.Seed}
	for _, mode := range []string{"first level", "every level", "frontier", "fresh"} {
		o := opt
		switch mode {
		case "first level":
			o.Initial = initial[:1]
		case "every level":
			o.Initial = initial
		case "frontier":
			o.Initial, o.Frontier, o.Affected = initial, true, nodes
		}
		start := time.Now()
		levels, q, err := graphalgo.LeidenLevels(ctx, eg.g, o)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		proposed, err := proposedCommunities(levels)
		if err != nil {
			t.Fatal(err)
		}
		m := graph.MatchCommunities(stored, proposed, nodes)
		total, kept, report := map[int]int{}, map[int]int{}, map[int]int{}
		for i, c := range m.Communities {
			total[c.Level]++
			if m.Stored[i] >= 0 {
				kept[c.Level]++
			}
		}
		for _, i := range m.Report {
			report[m.Communities[i].Level]++
		}
		var b strings.Builder
		for l := range len(total) {
			fmt.Fprintf(&b, " L%d %d/%d=%.3f (report %d)", l, kept[l], total[l], float64(kept[l])/float64(total[l]), report[l])
		}
		t.Logf("%s, %s: Leiden %v, %d levels, modularity %.4f; kept%s; report %d of %d, removed %d",
			what, mode, took.Round(time.Millisecond), len(q), coarsestFirst(q), b.String(), len(m.Report), len(m.Communities), len(m.Removed))
	}
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func queryPairs(t *testing.T, db *sql.DB, q string, args ...any) [][2]string {
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{a, b})
	}
	return out
}
