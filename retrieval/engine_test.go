package retrieval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
)

func TestFuse(t *testing.T) {
	got := fuse(
		weightedList{[]graph.Hit{{ID: "a"}, {ID: "b"}, {ID: "c"}}, 1},
		weightedList{[]graph.Hit{{ID: "c"}, {ID: "b"}, {ID: "d"}}, 1},
	)
	var ids []string
	for _, h := range got {
		ids = append(ids, h.ID)
	}
	// c (ranks 3 and 1) edges out b (2 and 2): 1/61+1/63 > 2/62. Then a (rank 1) before d (rank 3).
	if want := "c b a d"; strings.Join(ids, " ") != want {
		t.Errorf("fuse order %v, want %s", ids, want)
	}
	if got[0].Score != 1.0/61+1.0/63 || got[1].Score != 2.0/62 {
		t.Errorf("scores %v, %v", got[0].Score, got[1].Score)
	}
}

// TestFuseWeightZero: a list of weight 0 adds no score; hits only it found follow all others,
// in its order, and hits both found rank as the weighted list alone ranks them.
func TestFuseWeightZero(t *testing.T) {
	got := fuse(
		weightedList{[]graph.Hit{{ID: "v1"}, {ID: "t2"}, {ID: "v2"}}, 0},
		weightedList{[]graph.Hit{{ID: "t1"}, {ID: "t2"}}, 1},
	)
	var ids []string
	for _, h := range got {
		ids = append(ids, h.ID)
	}
	if want := "t1 t2 v1 v2"; strings.Join(ids, " ") != want {
		t.Errorf("fuse order %v, want %s", ids, want)
	}
}

func TestContextBuilderBudgets(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("lantern ", 400)
	items := []ChunkItem{
		{ID: "c1", DocumentID: "d1", Title: "One", Text: long},
		{ID: "c2", DocumentID: "d2", Title: "Two", Text: "short"},
	}
	b := newContextBuilder(tok)
	kept := b.chunks("Sources", items, 100)
	if len(kept) != 1 || kept[0].ID != "c1" {
		t.Fatalf("kept %v; the first item must be kept (clipped) even over budget", kept)
	}
	text := b.String()
	if n := tok.Count(text); n > 130 {
		t.Errorf("context text has %d tokens for a budget of 100", n)
	}
	if !strings.Contains(text, "[doc:d1 chunk:c1]") || strings.Contains(text, "c2") {
		t.Errorf("text does not match kept items:\n%s", text)
	}

	b = newContextBuilder(tok)
	kept = b.chunks("Sources", items[1:], 1000)
	paths := b.paths("Relationships", nil, 1000)
	if len(kept) != 1 || len(paths) != 0 || strings.Contains(b.String(), "Relationships") {
		t.Errorf("empty sections must not be written: %q", b.String())
	}
}

// TestChunkPages: a chunk of a paged document is labelled with its pages in the context text,
// its citation and its JSON; a chunk without pages keeps the label and JSON it always had.
func TestChunkPages(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	chunks := []graph.Chunk{
		{ID: "c1", DocumentID: "report.pdf", Text: "Page three.", FirstPage: 3, LastPage: 3},
		{ID: "c2", DocumentID: "report.pdf", Text: "Pages three to five.", FirstPage: 3, LastPage: 5},
		{ID: "c3", DocumentID: "notes.txt", Text: "No pages."},
	}
	items := itemsOf(chunks, nil, []graph.Document{{ID: "report.pdf", Title: "Report"}, {ID: "notes.txt", Title: "Notes"}})
	b := newContextBuilder(tok)
	b.chunks("Sources", items, 1000)
	want := "-----Sources-----\n" +
		"[doc:report.pdf p.3 chunk:c1] Report\nPage three.\n" +
		"[doc:report.pdf pp.3-5 chunk:c2] Report\nPages three to five.\n" +
		"[doc:notes.txt chunk:c3] Notes\nNo pages."
	if got := b.String(); got != want {
		t.Errorf("context text:\n%s\nwant:\n%s", got, want)
	}
	for i, cite := range []string{"[doc:report.pdf p.3]", "[doc:report.pdf pp.3-5]", "[doc:notes.txt]"} {
		if got := items[i].Cite(); got != cite {
			t.Errorf("item %d: Cite() = %q, want %q", i, got, cite)
		}
	}
	for i, want := range []string{`"pages":[3]`, `"pages":[3,4,5]`, ""} {
		data, err := json.Marshal(items[i])
		if err != nil {
			t.Fatal(err)
		}
		if want == "" && strings.Contains(string(data), `"pages"`) || want != "" && !strings.Contains(string(data), want) {
			t.Errorf("item %d: JSON %s, want pages %q", i, data, want)
		}
	}
}

// TestContextBuilderStoredTokens: chunks whose token count is stored are budgeted from it, and
// the count taken stays an upper bound, so the text never exceeds the budget; the same items
// without stored counts are kept the same way.
func TestContextBuilderStoredTokens(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	var items []ChunkItem
	for i, text := range []string{"The keeper lit the lamp at dusk.", "Salt barges crossed the reef. ", "  Charts were sold again.\n"} {
		items = append(items, ChunkItem{ID: fmt.Sprintf("c%d", i), DocumentID: "d", Title: "Log", Text: text, tokens: tok.Count(text)})
	}
	for budget := 20; budget <= 80; budget++ {
		stored := newContextBuilder(tok)
		keptStored := stored.chunks("Sources", items, budget)
		counted := newContextBuilder(tok)
		plain := slices.Clone(items)
		for i := range plain {
			plain[i].tokens = 0
		}
		keptCounted := counted.chunks("Sources", plain, budget)
		if len(keptStored) > 1 && tok.Count(stored.String()) > budget+tok.Count("-----Sources-----") {
			t.Errorf("budget %d: %d items in %d tokens", budget, len(keptStored), tok.Count(stored.String()))
		}
		if d := len(keptCounted) - len(keptStored); d < 0 || d > 1 {
			t.Errorf("budget %d: %d items kept from stored counts, %d from counting", budget, len(keptStored), len(keptCounted))
		}
	}
}

// TestSectionLazyCountingKeepsTheSameLines: a section without known costs tokenizes lines only
// once their byte lengths no longer prove they fit; for every budget it writes exactly what
// counting every line writes (known returning -1 forces that).
func TestSectionLazyCountingKeepsTheSameLines(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"[entity:A] Edda Fenwick (person, layer 0): led the lantern guild",
		"déjà vu über Straße — ünïcödé wörds cost many bytes per token",
		strings.Repeat("lantern ", 30),
		"short",
		"東京 tower 東京 tower",
		strings.Repeat("salt barges crossed the reef ", 12),
	}
	render := func(i int) string { return lines[i] }
	for budget := 1; budget <= 400; budget++ {
		lazy := newContextBuilder(tok)
		nLazy := lazy.section("S", len(lines), render, budget)
		exact := newContextBuilder(tok)
		nExact := exact.sectionCost("S", len(lines), render, func(int) int { return -1 }, budget)
		if nLazy != nExact || lazy.String() != exact.String() {
			t.Fatalf("budget %d: lazy counting kept %d lines, counting every line %d\nlazy:  %q\nexact: %q",
				budget, nLazy, nExact, lazy.String(), exact.String())
		}
	}
}
