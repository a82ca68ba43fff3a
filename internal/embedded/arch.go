package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/vectorindex"
)

// archMigration adds the tables of the attributed-community hierarchy (graph.ArchIndex):
// arch_communities (ArchCommunity nodes), arch_members (ARCH_MEMBER_OF, child to parent: an
// entity or a community one layer down) and arch_links (ARCH_RELATED, source < target). It is
// its own migration so that it can be renumbered when it meets another branch's.
func archMigration() []string {
	return []string{
		`CREATE TABLE arch_communities (
			id        TEXT PRIMARY KEY,
			layer     INTEGER NOT NULL,
			title     TEXT NOT NULL,
			summary   TEXT NOT NULL,
			embedding BLOB
		) WITHOUT ROWID`,
		`CREATE INDEX arch_communities_layer ON arch_communities (layer, id)`,
		`CREATE TABLE arch_members (
			parent TEXT NOT NULL,
			child  TEXT NOT NULL,
			PRIMARY KEY (parent, child)
		) WITHOUT ROWID`,
		`CREATE INDEX arch_members_child ON arch_members (child)`,
		`CREATE TABLE arch_links (
			source TEXT NOT NULL,
			target TEXT NOT NULL,
			weight REAL NOT NULL,
			PRIMARY KEY (source, target)
		) WITHOUT ROWID`,
	}
}

// archNode is a node of one layer of the attributed graph with its normalized embedding.
type archNode struct {
	id  string
	vec []float32
}

// ArchPartition implements graph.ArchIndex with an exact KNN (graphalgo.KNN) and the Go Leiden.
func (s *Store) ArchPartition(ctx context.Context, layer int, p graph.ArchParams) (map[string]int, error) {
	what := fmt.Sprintf("attributed communities of layer %d", layer)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	opt, err := s.leidenOptions(p.Leiden)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	opt.Iterations = 1
	var nodes []archNode
	var links []graph.ArchLink
	err = s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		if nodes, err = readArchNodes(ctx, tx, layer); err != nil {
			return err
		}
		ids := make(map[string]bool, len(nodes))
		for _, n := range nodes {
			ids[n.id] = true
		}
		links, err = readArchLayerLinks(ctx, tx, layer, ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	index := make(map[string]int, len(nodes))
	vecs := make([][]float32, len(nodes))
	for i, n := range nodes {
		index[n.id] = i
		vecs[i] = n.vec
	}
	var linkPairs []graph.ArchPair
	for _, l := range links {
		a, okA := index[l.Source]
		b, okB := index[l.Target]
		if okA && okB {
			linkPairs = append(linkPairs, graph.ArchPair{A: a, B: b, Sim: (1 + vectorindex.Dot(vecs[a], vecs[b])) / 2})
		}
	}
	var nbPairs []graph.ArchPair
	for i, ns := range graphalgo.ApproxKNN(vecs, p.K, p.Cutoff) {
		for _, n := range ns {
			nbPairs = append(nbPairs, graph.ArchPair{A: i, B: n.Node, Sim: n.Sim})
		}
	}
	if err := ctxErr(ctx, what); err != nil {
		return nil, err
	}
	weighted := graph.ArchWeights(linkPairs, nbPairs)
	edges := make([]graphalgo.Edge, len(weighted))
	for i, w := range weighted {
		edges[i] = graphalgo.Edge{U: w.A, V: w.B, W: w.Sim}
	}
	g, err := graphalgo.NewGraphChecked(len(nodes), edges)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res := graphalgo.Leiden(g, opt)
	part := make(map[string]int, len(nodes))
	if final := res.Final(); final != nil {
		for i, c := range final {
			part[nodes[i].id] = c
		}
	}
	return graph.DensePartition(part), nil
}

// readArchNodes reads the nodes of a layer that have an embedding, ordered by id, with their
// embeddings normalized (a zero embedding stays zero: similar to nothing).
func readArchNodes(ctx context.Context, tx *sql.Tx, layer int) ([]archNode, error) {
	q, args := `SELECT id, embedding FROM entities WHERE layer = 0 AND embedding IS NOT NULL ORDER BY id`, []any{}
	if layer > 0 {
		q, args = `SELECT id, embedding FROM arch_communities WHERE layer = ? AND embedding IS NOT NULL ORDER BY id`, []any{layer}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []archNode
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		v, err := decodeVector(blob)
		if err != nil {
			return nil, fmt.Errorf("embedding of %s: %w", id, err)
		}
		if len(v) == 0 {
			continue
		}
		u := vectorindex.Normalized(v)
		if u == nil {
			u = make([]float32, len(v))
		}
		out = append(out, archNode{id: id, vec: u})
	}
	return out, rows.Err()
}

// readArchLayerLinks reads the links of a layer among the given nodes: RELATED between layer-0
// entities, or the ARCH_RELATED links of a community layer. The links are read whole and
// filtered here: joined with the node tables, SQLite revisited the entity rows (and their
// embedding pages) for every relation.
func readArchLayerLinks(ctx context.Context, tx *sql.Tx, layer int, nodes map[string]bool) ([]graph.ArchLink, error) {
	q := `SELECT source, target, weight FROM relations ORDER BY source, target`
	if layer > 0 {
		q = `SELECT source, target, weight FROM arch_links ORDER BY source, target`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graph.ArchLink
	for rows.Next() {
		var l graph.ArchLink
		if err := rows.Scan(&l.Source, &l.Target, &l.Weight); err != nil {
			return nil, err
		}
		if nodes[l.Source] && nodes[l.Target] {
			out = append(out, l)
		}
	}
	return out, rows.Err()
}

// archNodeSet reads the ids of a layer's nodes that have an embedding.
func archNodeSet(ctx context.Context, tx *sql.Tx, layer int) (map[string]bool, error) {
	if layer > 0 {
		return idSet(ctx, tx, `SELECT id FROM arch_communities WHERE layer = ? AND embedding IS NOT NULL`, layer)
	}
	return idSet(ctx, tx, `SELECT id FROM entities WHERE layer = 0 AND embedding IS NOT NULL`)
}

// WriteArchLayer implements graph.ArchIndex.
func (s *Store) WriteArchLayer(ctx context.Context, layer int, comms []graph.ArchCommunity, links []graph.ArchLink) error {
	what := fmt.Sprintf("write attributed communities of layer %d", layer)
	if layer < 1 {
		return fmt.Errorf("%s: layers start at 1", what)
	}
	return s.write(ctx, what, func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM arch_links WHERE source IN (SELECT id FROM arch_communities WHERE layer >= ?)`,
			`DELETE FROM arch_members WHERE parent IN (SELECT id FROM arch_communities WHERE layer >= ?)`,
			`DELETE FROM arch_communities WHERE layer >= ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, layer); err != nil {
				return fmt.Errorf("remove layers from %d: %w", layer, err)
			}
		}
		if len(comms) == 0 {
			return nil
		}
		if err := checkArchMembers(ctx, tx, layer, comms); err != nil {
			return err
		}
		ids := map[string]bool{}
		for _, c := range comms {
			if c.Layer != layer {
				return fmt.Errorf("community %s is of layer %d", c.ID, c.Layer)
			}
			if ids[c.ID] {
				return fmt.Errorf("community %s is given twice", c.ID)
			}
			ids[c.ID] = true
			var emb any
			if len(c.Embedding) > 0 {
				emb = encodeVector(c.Embedding)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO arch_communities (id, layer, title, summary, embedding) VALUES (?, ?, ?, ?, ?)`,
				c.ID, c.Layer, c.Title, c.Summary, emb); err != nil {
				return fmt.Errorf("community %s: %w", c.ID, err)
			}
			for _, m := range c.Members {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO arch_members (parent, child) VALUES (?, ?)`, c.ID, m); err != nil {
					return fmt.Errorf("member %s of community %s: %w", m, c.ID, err)
				}
			}
		}
		for _, l := range links {
			if !ids[l.Source] || !ids[l.Target] || l.Source >= l.Target {
				return fmt.Errorf("link %s-%s: want two communities of the layer, the smaller id first", l.Source, l.Target)
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO arch_links (source, target, weight) VALUES (?, ?, ?)`,
				l.Source, l.Target, l.Weight); err != nil {
				return fmt.Errorf("link %s-%s: %w", l.Source, l.Target, err)
			}
		}
		return nil
	})
}

// checkArchMembers refuses members that are not nodes one layer down, naming them.
func checkArchMembers(ctx context.Context, tx *sql.Tx, layer int, comms []graph.ArchCommunity) error {
	q := `SELECT count(*) FROM entities WHERE id = ? AND layer = 0`
	if layer > 1 {
		q = `SELECT count(*) FROM arch_communities WHERE id = ? AND layer = ?`
	}
	var missing []string
	for _, c := range comms {
		for _, m := range c.Members {
			var n int
			args := []any{m}
			if layer > 1 {
				args = append(args, layer-1)
			}
			if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("members not found one layer down (layer %d): %s", layer-1, strings.Join(missing[:min(len(missing), 10)], ", "))
	}
	return nil
}

// ArchLayer implements graph.ArchIndex.
func (s *Store) ArchLayer(ctx context.Context, layer int) ([]graph.ArchCommunity, error) {
	var out []graph.ArchCommunity
	err := s.read(ctx, fmt.Sprintf("read attributed communities of layer %d", layer), func(tx *sql.Tx) error {
		var err error
		out, err = readArchCommunities(ctx, tx, `c.layer = ?`, []any{layer}, true)
		return err
	})
	return out, err
}

// ArchCommunities implements graph.ArchIndex.
func (s *Store) ArchCommunities(ctx context.Context, ids []string) ([]graph.ArchCommunity, error) {
	ids = graph.UniqueIDs(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	var found []graph.ArchCommunity
	err := s.read(ctx, "read attributed communities", func(tx *sql.Tx) error {
		var err error
		found, err = readArchCommunities(ctx, tx, `c.id IN (SELECT value FROM json_each(?))`, []any{encodeStrings(ids)}, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]graph.ArchCommunity, len(found))
	for _, c := range found {
		byID[c.ID] = c
	}
	out := make([]graph.ArchCommunity, 0, len(found))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// readArchCommunities reads the communities matching where, ordered by id, with their sorted
// members and, when withEmbedding, their embeddings.
func readArchCommunities(ctx context.Context, tx *sql.Tx, where string, args []any, withEmbedding bool) ([]graph.ArchCommunity, error) {
	emb := `NULL`
	if withEmbedding {
		emb = `c.embedding`
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.layer, c.title, c.summary, `+emb+`,
		(SELECT json_group_array(child) FROM (SELECT child FROM arch_members m WHERE m.parent = c.id ORDER BY child))
		FROM arch_communities c WHERE `+where+` ORDER BY c.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graph.ArchCommunity
	for rows.Next() {
		var c graph.ArchCommunity
		var blob []byte
		var members string
		if err := rows.Scan(&c.ID, &c.Layer, &c.Title, &c.Summary, &blob, &members); err != nil {
			return nil, err
		}
		if blob != nil {
			if c.Embedding, err = decodeVector(blob); err != nil {
				return nil, fmt.Errorf("embedding of %s: %w", c.ID, err)
			}
		}
		if c.Members, err = decodeStrings(members); err != nil {
			return nil, fmt.Errorf("members of %s: %w", c.ID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ArchLinks implements graph.ArchIndex.
func (s *Store) ArchLinks(ctx context.Context, layer int) ([]graph.ArchLink, error) {
	var out []graph.ArchLink
	err := s.read(ctx, fmt.Sprintf("read attributed community links of layer %d", layer), func(tx *sql.Tx) error {
		nodes, err := archNodeSet(ctx, tx, layer)
		if err != nil {
			return err
		}
		out, err = readArchLayerLinks(ctx, tx, layer, nodes)
		return err
	})
	return out, err
}

// ArchSearch implements graph.ArchIndex. Layer 0 is searched in the entity vectors (the summary
// entities of the hierarchical index left out); community layers are scanned from SQLite, as
// they hold a few hundred nodes at most.
func (s *Store) ArchSearch(ctx context.Context, layer int, vec []float32, within []string, k int) ([]graph.Hit, error) {
	what := fmt.Sprintf("search layer %d of the attributed communities", layer)
	q := vectorindex.Normalized(vec)
	if q == nil {
		return nil, fmt.Errorf("%s: query vector is zero or not finite", what)
	}
	if k <= 0 || (within != nil && len(within) == 0) {
		return nil, nil
	}
	var allow map[string]bool
	if within != nil {
		allow = make(map[string]bool, len(within))
		for _, id := range within {
			allow[id] = true
		}
	}
	if layer == 0 {
		set, err := s.vectorSet(ctx, graph.EntityEmbedding, "entities")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if set.Dim() == 0 {
			return nil, nil
		}
		if len(q) != set.Dim() {
			return nil, fmt.Errorf("%s: query vector has %d dimensions, the index has %d", what, len(q), set.Dim())
		}
		var summaries map[string]bool
		err = s.read(ctx, what, func(tx *sql.Tx) error {
			var err error
			summaries, err = summaryIDs(ctx, tx)
			return err
		})
		if err != nil {
			return nil, err
		}
		var hits []graph.Hit
		for i := range set.Len() {
			id := set.ID(i)
			if summaries[id] || (allow != nil && !allow[id]) {
				continue
			}
			hits = append(hits, graph.Hit{ID: id, Score: (1 + vectorindex.Dot(q, set.Row(i))) / 2})
		}
		return topHits(hits, k), nil
	}
	var nodes []archNode
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		nodes, err = readArchNodes(ctx, tx, layer)
		return err
	})
	if err != nil {
		return nil, err
	}
	var hits []graph.Hit
	for _, n := range nodes {
		if allow != nil && !allow[n.id] {
			continue
		}
		if len(n.vec) != len(q) {
			return nil, fmt.Errorf("%s: query vector has %d dimensions, community %s has %d", what, len(q), n.id, len(n.vec))
		}
		hits = append(hits, graph.Hit{ID: n.id, Score: (1 + vectorindex.Dot(q, n.vec)) / 2})
	}
	return topHits(hits, k), nil
}

// summaryIDs returns the ids of the summary entities (layer >= 1).
func summaryIDs(ctx context.Context, tx *sql.Tx) (map[string]bool, error) {
	return idSet(ctx, tx, `SELECT id FROM entities WHERE layer >= 1`)
}

// idSet runs a query of one id column and returns the ids as a set.
func idSet(ctx context.Context, tx *sql.Tx, query string, args ...any) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// topHits sorts hits by score descending, then id, and keeps k.
func topHits(hits []graph.Hit, k int) []graph.Hit {
	slices.SortFunc(hits, graph.CompareHits)
	return hits[:min(k, len(hits))]
}
