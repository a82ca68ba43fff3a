package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/extract"
)

// packingExtractor names, for each text it is given, one entity: the text's first word. It
// records the packs it was asked for.
type packingExtractor struct {
	mu    sync.Mutex
	packs [][]string
}

func (*packingExtractor) Name() string { return "test-packer" }
func (*packingExtractor) Packs() bool  { return true }

func (x *packingExtractor) Extract(ctx context.Context, text string) (extract.Result, error) {
	r, err := x.ExtractPack(ctx, []string{text})
	if err != nil {
		return extract.Result{}, err
	}
	return r[0], nil
}

func (x *packingExtractor) ExtractPack(_ context.Context, texts []string) ([]extract.Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var firsts []string
	out := make([]extract.Result, len(texts))
	for i, t := range texts {
		first := strings.Fields(t)[0]
		firsts = append(firsts, first)
		out[i] = extract.Result{Entities: []extract.Entity{{Name: first, Type: "person", Description: t}}}
	}
	x.packs = append(x.packs, firsts)
	return out, nil
}

// TestPackedExtraction: consecutive short documents are extracted together, in input order,
// and each one's records land on its own chunk; a long one goes alone.
func TestPackedExtraction(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("Overlong harbour records of the guild go on and on. ", 200)
	texts := map[string]string{
		"a.txt": "Alder kept the lighthouse.",
		"b.txt": "Birch sailed to Vell.",
		"c.txt": long,
		"d.txt": "Cedar mapped the reef.",
	}
	for name, text := range texts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := openStore(t, t.TempDir())
	x := &packingExtractor{}
	in := newIngester(t, store, x)
	in.Options.Concurrency = 1
	if _, err := in.Run(context.Background(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	var packed [][]string
	for _, p := range x.packs {
		if len(p) > 1 {
			packed = append(packed, p)
		}
	}
	if want := [][]string{{"Alder", "Birch"}}; !reflect.DeepEqual(packed, want) {
		t.Errorf("packs %v (all calls %v), want %v", packed, x.packs, want)
	}
	for doc, name := range map[string]string{"a.txt": "Alder", "b.txt": "Birch", "d.txt": "Cedar"} {
		lc, err := store.ExpandLocal(context.Background(), []string{graph.NormalizeID(name)}, graph.LocalOptions{TopChunks: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(lc.Chunks) != 1 || lc.Chunks[0].DocumentID != doc {
			var got []string
			for _, c := range lc.Chunks {
				got = append(got, fmt.Sprintf("%s#%d", c.DocumentID, c.Seq))
			}
			t.Errorf("%s is mentioned by %v, want the chunk of %s alone", name, got, doc)
		}
	}
}
