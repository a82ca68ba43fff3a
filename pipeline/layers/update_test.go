package layers_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/layers"
)

// hierarchySnapshot is every summary (id → description) and every link of a store.
type hierarchySnapshot struct {
	summaries map[string]string
	links     map[graph.SummaryLink]bool
}

func snapshot(t *testing.T, store *embedded.Store) hierarchySnapshot {
	t.Helper()
	ctx := context.Background()
	s := hierarchySnapshot{summaries: map[string]string{}, links: map[graph.SummaryLink]bool{}}
	for layer := 0; ; layer++ {
		links, err := store.LayerLinks(ctx, layer)
		if err != nil {
			t.Fatal(err)
		}
		if len(links) == 0 {
			return s
		}
		for _, l := range links {
			s.links[graph.SummaryLink{Member: l.Member, Summary: l.Summary}] = true
		}
		es, err := store.EntitiesByLayer(ctx, layer+1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			s.summaries[e.ID] = e.Description
		}
	}
}

// checkHierarchy checks that every link joins an entity to a summary one layer up that both
// exist, and that every summary has a member.
func checkHierarchy(t *testing.T, store *embedded.Store) {
	t.Helper()
	ctx := context.Background()
	for layer := 0; ; layer++ {
		links, err := store.LayerLinks(ctx, layer)
		if err != nil {
			t.Fatal(err)
		}
		below, err := store.EntitiesByLayer(ctx, layer)
		if err != nil {
			t.Fatal(err)
		}
		above, err := store.EntitiesByLayer(ctx, layer+1)
		if err != nil {
			t.Fatal(err)
		}
		if len(links) == 0 {
			if len(above) > 0 {
				t.Errorf("layer %d: %d summaries without members", layer+1, len(above))
			}
			return
		}
		ids := func(es []graph.Entity) map[string]bool {
			m := map[string]bool{}
			for _, e := range es {
				m[e.ID] = true
			}
			return m
		}
		inBelow, inAbove := ids(below), ids(above)
		members := map[string]int{}
		for _, l := range links {
			if !inBelow[l.Member] || !inAbove[l.Summary] {
				t.Errorf("layer %d: link %s -> %s to or from nothing", layer, l.Member, l.Summary)
			}
			members[l.Summary]++
		}
		for id := range inAbove {
			if members[id] == 0 {
				t.Errorf("layer %d: summary %s has no member", layer+1, id)
			}
		}
	}
}

// synthetic returns a store of n extracted entities in 12 topics (a topic word in every name
// and description, so that the offline embeddings group them), each related to the next two
// of its topic and every seventh to one of another topic.
func synthetic(t *testing.T, n int) (*embedded.Store, embedding.Embedder) {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	emb := embedding.NewOffline(64)
	topics := []string{"harbor", "guild", "comet", "orchard", "treaty", "furnace", "glacier", "ledger", "violin", "lantern", "meadow", "citadel"}
	var batch graph.Batch
	var ids []string
	for i := range n {
		topic := topics[i%len(topics)]
		name := fmt.Sprintf("%s %s %d", strings.ToUpper(topic[:1])+topic[1:], topic, i)
		e := graph.Entity{ID: graph.NormalizeID(name), Name: name, Type: "other",
			Description: fmt.Sprintf("The %s known as number %d, part of the %s lore.", topic, i, topic)}
		vec, err := emb.Embed(ctx, []string{e.EmbeddingText()})
		if err != nil {
			t.Fatal(err)
		}
		e.Embedding = vec[0]
		batch.Entities = append(batch.Entities, e)
		ids = append(ids, e.ID)
	}
	relate := func(a, b string) {
		batch.Relations = append(batch.Relations, graph.Relation{Source: min(a, b), Target: max(a, b), Description: "linked", Weight: 1, ChunkIDs: []string{}})
	}
	for i := range n {
		for _, j := range []int{i + len(topics), i + 2*len(topics)} {
			if j < n {
				relate(ids[i], ids[j])
			}
		}
		if i%7 == 0 && i+5 < n {
			relate(ids[i], ids[i+5])
		}
	}
	if err := store.Apply(ctx, batch); err != nil {
		t.Fatal(err)
	}
	return store, emb
}

func TestUpdateUnchanged(t *testing.T) {
	ctx := context.Background()
	store, emb := synthetic(t, 480)
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: layers.Extractive{}, Describer: layers.ExtractiveRelations{}, Log: zerolog.Nop(), Seed: 3, Options: layers.DefaultOptions()}
	if _, err := b.Build(ctx); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, store)
	up, err := b.Update(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(up.Changed) != 0 {
		t.Errorf("an update without changes changed %v", up.Changed)
	}
	for _, l := range up.Layers {
		if l.Regenerated != 0 || l.Written != 0 || l.Removed != 0 || l.Assigned != 0 {
			t.Errorf("layer %d: %+v without changes", l.Layer, l)
		}
	}
	if after := snapshot(t, store); !maps.Equal(before.summaries, after.summaries) || !maps.Equal(before.links, after.links) {
		t.Error("an update without changes changed the hierarchy")
	}
}

func TestUpdateAddAndRemove(t *testing.T) {
	ctx := context.Background()
	store, emb := synthetic(t, 480)
	sum := &countingSummarizer{}
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: sum, Describer: layers.ExtractiveRelations{}, Log: zerolog.Nop(), Seed: 3, Options: layers.DefaultOptions()}
	built, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clusters := built[0].Summaries
	before := snapshot(t, store)

	// Three new entities, each like a stored one and related to it.
	base, err := store.EntitiesByLayer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var batch graph.Batch
	var changed []string
	for _, like := range []graph.Entity{base[0], base[len(base)/2], base[len(base)-1]} {
		e := graph.Entity{ID: like.ID + " JUNIOR", Name: like.Name + " Junior", Type: like.Type, Description: like.Description}
		vec, err := emb.Embed(ctx, []string{e.EmbeddingText()})
		if err != nil {
			t.Fatal(err)
		}
		e.Embedding = vec[0]
		batch.Entities = append(batch.Entities, e)
		batch.Relations = append(batch.Relations, graph.Relation{Source: min(like.ID, e.ID), Target: max(like.ID, e.ID), Description: "kin", Weight: 1, ChunkIDs: []string{}})
		changed = append(changed, e.ID, like.ID)
	}
	if err := store.Apply(ctx, batch); err != nil {
		t.Fatal(err)
	}
	sum.sizes = nil
	up, err := b.Update(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	checkHierarchy(t, store)
	links, err := store.LayerLinks(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range batch.Entities {
		if !slices.ContainsFunc(links, func(l graph.SummaryLink) bool { return l.Member == e.ID }) {
			t.Errorf("new entity %s joined no cluster", e.ID)
		}
	}
	t.Logf("add: %d clusters at layer 1; update %+v", clusters, up.Layers)
	if up.Layers[0].Assigned != 3 {
		t.Errorf("layer 1: %d entities placed, want 3", up.Layers[0].Assigned)
	}
	// Only the clusters of the three entities and their relatives are summarized again: at
	// most six at layer 1, and a few above.
	if r := up.Layers[0].Regenerated; r == 0 || r > 6 || r >= clusters {
		t.Errorf("layer 1: %d of %d clusters summarized again for 3 new entities", r, clusters)
	}
	after := snapshot(t, store)
	kept := 0
	for id, desc := range before.summaries {
		if after.summaries[id] == desc {
			kept++
		}
	}
	if kept < len(before.summaries)/2 {
		t.Errorf("%d of %d summaries kept after adding 3 entities", kept, len(before.summaries))
	}

	// Removing them again (with the summaries they belonged to, as the pipeline records them)
	// touches the same few clusters.
	h, err := store.Ancestors(ctx, changed[:1])
	if err != nil {
		t.Fatal(err)
	}
	removed := []string{batch.Entities[0].ID}
	for _, l := range h.Links {
		if l.Member == batch.Entities[0].ID {
			removed = append(removed, l.Summary)
		}
	}
	if err := store.Apply(ctx, graph.Batch{DeleteEntities: []string{batch.Entities[0].ID}}); err != nil {
		t.Fatal(err)
	}
	up, err = b.Update(ctx, removed)
	if err != nil {
		t.Fatal(err)
	}
	checkHierarchy(t, store)
	t.Logf("remove: update %+v", up.Layers)
	if r := up.Layers[0].Regenerated; r == 0 || r > 2 {
		t.Errorf("layer 1: %d clusters summarized again after removing one entity", r)
	}

	// Removing every member of a cluster removes its summaries, which then hold nothing.
	links, err = store.LayerLinks(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	victim := links[0].Summary
	var members []string
	for _, l := range links {
		if l.Summary == victim {
			members = append(members, l.Member)
		}
	}
	h, err = store.Ancestors(ctx, members)
	if err != nil {
		t.Fatal(err)
	}
	removed = slices.Clone(members)
	for _, l := range h.Links {
		if slices.Contains(members, l.Member) {
			removed = append(removed, l.Summary)
		}
	}
	if err := store.Apply(ctx, graph.Batch{DeleteEntities: members}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, removed); err != nil {
		t.Fatal(err)
	}
	checkHierarchy(t, store)
	if es, err := store.Entities(ctx, []string{victim}); err != nil || len(es) != 0 {
		t.Errorf("summary %s of removed members still stored: %v, %v", victim, es, err)
	}
}

func TestUpdateNeedsBuild(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	emb := embedding.NewOffline(16)
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: layers.Extractive{}, Log: zerolog.Nop(), Options: layers.DefaultOptions()}
	var batch graph.Batch
	for i := range 30 {
		name := string(rune('A'+i%26)) + string(rune('a'+i/26)) + " Place"
		vec, _ := emb.Embed(ctx, []string{name})
		batch.Entities = append(batch.Entities, graph.Entity{ID: graph.NormalizeID(name), Name: name, Type: "location", Embedding: vec[0]})
	}
	if err := store.Apply(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, []string{batch.Entities[0].ID}); err != layers.ErrNeedsBuild {
		t.Errorf("update of 30 entities without layers: %v, want ErrNeedsBuild", err)
	}
}
