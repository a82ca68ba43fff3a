package cypher

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// ArchPartition implements graph.ArchIndex with GDS: the layer's nodes are projected with their
// embeddings and gds.knn streams each node's nearest neighbours; the layer's links come from
// Cypher; graph.ArchWeights combines both (the same weights as the embedded store); the weighted
// graph is projected by node index and gds.leiden.stream partitions it. Both projections are
// dropped before returning.
func (s *Store) ArchPartition(ctx context.Context, layer int, p graph.ArchParams) (map[string]int, error) {
	what := fmt.Sprintf("cypher: attributed communities of layer %d", layer)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := s.algorithmReady(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	knnGraph, err := s.archGraphName(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	project, params := qArchProjectEntities, map[string]any{"graphName": knnGraph}
	links, linkParams := qArchLinksEntities, map[string]any(nil)
	if layer > 0 {
		project, params["layer"] = qArchProjectCommunities, int64(layer)
		links, linkParams = qArchLinksCommunities, map[string]any{"layer": int64(layer)}
	}
	defer s.drop(context.WithoutCancel(ctx), knnGraph)
	var nodes int64
	err = s.run.write(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(project), params)
		if err != nil || len(rows) == 0 {
			return err
		}
		f := fields{m: rows[0]}
		nodes = f.int("nodeCount")
		return f.err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: project: %w", what, err)
	}
	if nodes == 0 {
		return map[string]int{}, nil
	}
	var knnRows []map[string]any
	err = s.run.write(ctx, func(t tx) error {
		knnRows, err = t.run(ctx, s.q.get(qArchKNNStream), map[string]any{
			"graphName": knnGraph, "topK": int64(max(1, p.K)), "cutoff": p.Cutoff, "randomSeed": p.Leiden.Seed,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: nearest neighbours: %w", what, err)
	}
	if p.K <= 0 {
		knnRows = nil
	}
	linkRows, err := s.readRows(ctx, links, linkParams)
	if err != nil {
		return nil, fmt.Errorf("%s: links: %w", what, err)
	}
	// Node indexes in id order, so that the projected integers repeat between runs.
	index := map[string]int{}
	var ids []string
	pairs := func(rows []map[string]any) ([]graph.ArchPair, error) {
		out := make([]graph.ArchPair, 0, len(rows))
		for _, row := range rows {
			f := fields{m: row}
			a, b, sim := f.str("source"), f.str("target"), f.float("similarity")
			if f.err != nil {
				return nil, f.err
			}
			out = append(out, graph.ArchPair{A: nodeIndex(index, &ids, a), B: nodeIndex(index, &ids, b), Sim: sim})
		}
		return out, nil
	}
	nb, err := pairs(knnRows)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, qArchKNNStream, err)
	}
	ln, err := pairs(linkRows)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, links, err)
	}
	weighted := graph.ArchWeights(ln, nb)
	part := map[string]int{}
	if len(weighted) > 0 {
		if part, err = s.archLeiden(ctx, ids, weighted, p.Leiden); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	// Nodes without any edge (no neighbour above the cutoff, no link) are alone.
	all, err := s.archNodeIDs(ctx, layer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	next := len(ids) // distinct from every Leiden community id, which are below the node count
	for _, id := range all {
		if _, ok := part[id]; !ok {
			part[id] = next
			next++
		}
	}
	return graph.DensePartition(part), nil
}

// nodeIndex numbers ids in the order first seen.
func nodeIndex(index map[string]int, ids *[]string, id string) int {
	if i, ok := index[id]; ok {
		return i
	}
	index[id] = len(*ids)
	*ids = append(*ids, id)
	return index[id]
}

// archLeiden projects the weighted pairs by node index and runs weighted Leiden, returning the
// community of each node id. The communities are numbered after the node count so that they
// never meet the singletons ArchPartition adds.
func (s *Store) archLeiden(ctx context.Context, ids []string, weighted []graph.ArchPair, p graph.LeidenParams) (map[string]int, error) {
	name, err := s.archGraphName(ctx)
	if err != nil {
		return nil, err
	}
	defer s.drop(context.WithoutCancel(ctx), name)
	edges := make([]map[string]any, len(weighted))
	for i, w := range weighted {
		edges[i] = map[string]any{"source": int64(w.A), "target": int64(w.B), "weight": w.Sim}
	}
	err = s.run.write(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(qArchProjectWeighted), map[string]any{"graphName": name, "edges": edges})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("project the weighted graph: %w", err)
	}
	out := make(map[string]int, len(ids))
	err = s.run.write(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qArchLeidenStream), map[string]any{
			"graphName": name, "gamma": p.Gamma, "theta": p.Theta, "tolerance": p.Tolerance,
			"maxLevels": int64(p.MaxLevels), "randomSeed": p.Seed,
		})
		if err != nil {
			return err
		}
		clear(out)
		for _, row := range rows {
			f := fields{m: row}
			node, comm := f.int("nodeId"), f.int("communityId")
			if f.err != nil {
				return f.err
			}
			if node < 0 || node >= int64(len(ids)) {
				return fmt.Errorf("node %d is not one of the %d projected", node, len(ids))
			}
			out[ids[node]] = len(ids) + int(comm)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("leiden: %w", err)
	}
	return out, nil
}

// archNodeIDs lists the nodes of a layer that have an embedding.
func (s *Store) archNodeIDs(ctx context.Context, layer int) ([]string, error) {
	var ids []string
	rows, err := s.readRows(ctx, qArchNodesEntities, nil)
	if layer > 0 {
		rows, err = s.readRows(ctx, qArchNodesCommunities, map[string]any{"layer": int64(layer)})
	}
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		f := fields{m: row}
		id := f.str("id")
		if f.err != nil {
			return nil, f.err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// archGraphName returns a fresh GDS catalog name for one attributed-graph projection.
func (s *Store) archGraphName(ctx context.Context) (string, error) {
	return s.tempGraphName(ctx, archGraphKind)
}

// The kinds of short-lived projections: each name is the kind, the database, then random hex.
const (
	archGraphKind    = "strata-arch:"
	relatedGraphKind = "strata-related:"
)

// staleTempGraphAge is how old a short-lived projection must be before any process drops it
// as left behind by a killed one. The projections live for one stage of one ingest (seconds to
// minutes); the margin keeps another ingest's projection on the same database safe.
const staleTempGraphAge = 6 * time.Hour

// tempGraphName returns a fresh GDS catalog name for a projection one call makes and drops,
// outside the entity-graph catalog (whose stale graphs any process drops): kind, then the
// database, then random hex. It first drops this database's short-lived projections older
// than staleTempGraphAge, so a killed ingest does not hold server memory for good.
func (s *Store) tempGraphName(ctx context.Context, kind string) (string, error) {
	name, err := s.newTempGraphName(kind)
	if err != nil {
		return "", err
	}
	var stale []string
	err = s.run.write(ctx, func(t tx) (err error) {
		stale, err = s.staleTempGraphs(ctx, t)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("list stale projections: %w", err)
	}
	for _, old := range stale {
		s.drop(ctx, old)
	}
	return name, nil
}

// WriteArchLayer implements graph.ArchIndex in one transaction: the layers from this one up are
// deleted, the members checked, and the layer's communities, memberships and links created.
func (s *Store) WriteArchLayer(ctx context.Context, layer int, comms []graph.ArchCommunity, links []graph.ArchLink) error {
	what := fmt.Sprintf("cypher: write attributed communities of layer %d", layer)
	if layer < 1 {
		return fmt.Errorf("%s: layers start at 1", what)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	ids := map[string]bool{}
	var created, members []map[string]any
	var memberIDs []string
	for _, c := range comms {
		if c.Layer != layer {
			return fmt.Errorf("%s: community %s is of layer %d", what, c.ID, c.Layer)
		}
		if ids[c.ID] {
			return fmt.Errorf("%s: community %s is given twice", what, c.ID)
		}
		ids[c.ID] = true
		created = append(created, map[string]any{
			"id": c.ID, "layer": int64(c.Layer), "title": c.Title, "summary": c.Summary, "embedding": vectorParam(c.Embedding),
		})
		for _, m := range c.Members {
			members = append(members, map[string]any{"parent": c.ID, "child": m})
			memberIDs = append(memberIDs, m)
		}
	}
	var linkRows []map[string]any
	for _, l := range links {
		if !ids[l.Source] || !ids[l.Target] || l.Source >= l.Target {
			return fmt.Errorf("%s: link %s-%s: want two communities of the layer, the smaller id first", what, l.Source, l.Target)
		}
		linkRows = append(linkRows, map[string]any{"source": l.Source, "target": l.Target, "weight": l.Weight})
	}
	missing, memberQuery, params := qArchMissingEntities, qArchMembersEntities, map[string]any{}
	if layer > 1 {
		missing, memberQuery, params["layer"] = qArchMissingCommunities, qArchMembersCommunities, int64(layer-1)
	}
	if err := s.checkLease(); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	err := s.run.write(ctx, func(t tx) error {
		if _, err := t.run(ctx, s.q.get(qArchDelete), map[string]any{"layer": int64(layer)}); err != nil {
			return err
		}
		var absent []string
		for _, part := range chunked(graph.UniqueIDs(memberIDs), s.batchSize) {
			params["ids"] = part
			rows, err := t.run(ctx, s.q.get(missing), params)
			if err != nil {
				return err
			}
			for _, row := range rows {
				f := fields{m: row}
				absent = append(absent, f.str("id"))
				if f.err != nil {
					return f.err
				}
			}
		}
		if len(absent) > 0 {
			return fmt.Errorf("members not found one layer down (layer %d): %s", layer-1, strings.Join(absent[:min(len(absent), 10)], ", "))
		}
		for _, step := range []struct {
			name string
			rows []map[string]any
		}{{qArchCreate, created}, {memberQuery, members}, {qArchLinksCreate, linkRows}} {
			if err := s.unwind(ctx, t, step.name, step.rows); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ArchLayer implements graph.ArchIndex.
func (s *Store) ArchLayer(ctx context.Context, layer int) ([]graph.ArchCommunity, error) {
	rows, err := s.readRows(ctx, qArchReadLayer, map[string]any{"layer": int64(layer)})
	if err != nil {
		return nil, fmt.Errorf("cypher: read attributed communities of layer %d: %w", layer, err)
	}
	out := make([]graph.ArchCommunity, 0, len(rows))
	for _, row := range rows {
		c, err := decodeArchCommunity(row)
		if err != nil {
			return nil, fmt.Errorf("cypher: read attributed communities of layer %d: %w", layer, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func decodeArchCommunity(m map[string]any) (graph.ArchCommunity, error) {
	f := fields{m: m}
	c := graph.ArchCommunity{
		ID: f.str("id"), Layer: int(f.int("layer")), Title: f.str("title"), Summary: f.str("summary"), Members: f.strs("members"),
	}
	if _, ok := m["embedding"]; ok {
		c.Embedding = f.vector("embedding")
	}
	return c, f.err
}

// ArchCommunities implements graph.ArchIndex.
func (s *Store) ArchCommunities(ctx context.Context, ids []string) ([]graph.ArchCommunity, error) {
	return byIDs(ctx, s, "read attributed communities", qArchReadByID, "community", ids, decodeArchCommunity,
		func(c graph.ArchCommunity) string { return c.ID })
}

// ArchLinks implements graph.ArchIndex.
func (s *Store) ArchLinks(ctx context.Context, layer int) ([]graph.ArchLink, error) {
	name, params := qArchLinksCommunities, map[string]any{"layer": int64(layer)}
	if layer == 0 {
		name, params = qArchLinksEntities, nil
	}
	rows, err := s.readRows(ctx, name, params)
	if err != nil {
		return nil, fmt.Errorf("cypher: read attributed community links of layer %d: %w", layer, err)
	}
	var out []graph.ArchLink
	for _, row := range rows {
		f := fields{m: row}
		l := graph.ArchLink{Source: f.str("source"), Target: f.str("target"), Weight: f.float("weight")}
		if f.err != nil {
			return nil, fmt.Errorf("cypher: read attributed community links of layer %d: %w", layer, f.err)
		}
		out = append(out, l)
	}
	return out, nil
}

// ArchSearch implements graph.ArchIndex: layer 0 through the entity vector index (or exactly
// among within), community layers by an exact scan of the layer.
func (s *Store) ArchSearch(ctx context.Context, layer int, vec []float32, within []string, k int) ([]graph.Hit, error) {
	what := fmt.Sprintf("cypher: search layer %d of the attributed communities", layer)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(vec) == 0 {
		return nil, fmt.Errorf("%s: empty query vector", what)
	}
	if k <= 0 || (within != nil && len(within) == 0) {
		return nil, nil
	}
	var name string
	params := map[string]any{"k": int64(k), "vector": vectorParam(vec)}
	switch {
	case layer > 0:
		name, params["layer"] = qArchSearchCommunities, int64(layer)
		if within != nil {
			params["ids"] = graph.UniqueIDs(within)
		} else {
			params["ids"] = nil
		}
	case within != nil:
		name, params["ids"] = qArchSearchEntitiesWithin, graph.UniqueIDs(within)
	default:
		dim, ok, err := s.vectorDim(ctx, graph.EntityEmbedding)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if !ok {
			return nil, nil
		}
		if dim != len(vec) {
			return nil, fmt.Errorf("%s: query vector has %d dimensions, the index holds %d-dimensional embeddings", what, len(vec), dim)
		}
		name, params["candidates"] = qArchSearchEntities, int64(vectorCandidates(k))
	}
	rows, err := s.readRows(ctx, name, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return decodeHits(rows)
}
