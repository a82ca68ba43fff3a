package pipeline_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbedEntitiesAcrossPages: the embed stage reads layer 0 a page of 2 048 entities at a
// time; on a graph of several pages (random capitalised words: a new entity at nearly every
// name) every entity gets its embedding, as many as the report counts.
func TestEmbedEntitiesAcrossPages(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a few thousand entities")
	}
	rng := rand.New(rand.NewPCG(15, 0))
	var sb strings.Builder
	for sb.Len() < 150_000 {
		for w := range 8 + rng.IntN(8) {
			var word []byte
			for range 3 + rng.IntN(7) {
				word = append(word, byte('a'+rng.IntN(26)))
			}
			if rng.IntN(2) == 0 {
				word[0] -= 'a' - 'A'
			}
			if w > 0 {
				sb.WriteByte(' ')
			}
			sb.Write(word)
		}
		sb.WriteString(". ")
	}
	path := filepath.Join(t.TempDir(), "names.txt")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	store := openStore(t, t.TempDir())
	rep := ingest(t, store, path)
	entities, err := store.EntitiesByLayer(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entities) <= 2*2048 {
		t.Fatalf("%d entities: the test needs more than two pages", len(entities))
	}
	missing := 0
	for _, e := range entities {
		if len(e.Embedding) == 0 {
			missing++
		}
	}
	if missing > 0 || rep.EntityEmbeds != len(entities) {
		t.Errorf("%d of %d entities without an embedding; %d embedded by the run", missing, len(entities), rep.EntityEmbeds)
	}
}
