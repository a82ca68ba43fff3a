package chunk

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/tokenizer"
)

func TestSplit(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("The harbor of Port Avel opens at dawn. ", 60) // 9 tokens per sentence
	tests := []struct {
		name       string
		text       string
		opt        Options
		wantChunks int
	}{
		{"short text is one chunk", "Port Avel.", Options{Size: 100, Overlap: 10}, 1},
		{"exact windows", long, Options{Size: 100, Overlap: 0}, (tok.Count(long) + 99) / 100},
		{"overlap adds windows", long, Options{Size: 100, Overlap: 50}, (tok.Count(long) - 50 + 49) / 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pieces, err := Split(tok, "doc", tc.text, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(pieces) != tc.wantChunks {
				t.Fatalf("got %d chunks, want %d", len(pieces), tc.wantChunks)
			}
			for i, p := range pieces {
				if p.Seq != i || p.Tokens > tc.opt.Size || p.Tokens <= 0 {
					t.Errorf("piece %d: seq %d tokens %d", i, p.Seq, p.Tokens)
				}
				if got := tok.Count(p.Text); got < p.Tokens-2 || got > p.Tokens+2 {
					// Re-tokenizing a window can merge differently at its edges, by a token or two.
					t.Errorf("piece %d: text has %d tokens, recorded %d", i, got, p.Tokens)
				}
			}
			checkSpans(t, tc.text, pieces)
			if tc.opt.Overlap == 0 {
				var joined strings.Builder
				for _, p := range pieces {
					joined.WriteString(p.Text)
				}
				if joined.String() != tc.text {
					t.Error("non-overlapping chunks do not reassemble the text")
				}
			}
		})
	}
}

func TestSplitIDs(t *testing.T) {
	tok, _ := tokenizer.New()
	a, _ := Split(tok, "doc-a", "Same text.", DefaultOptions())
	a2, _ := Split(tok, "doc-a", "Same text.", DefaultOptions())
	b, _ := Split(tok, "doc-b", "Same text.", DefaultOptions())
	if a[0].ID != a2[0].ID {
		t.Error("same document and text must give the same id")
	}
	if a[0].ID == b[0].ID {
		t.Error("the same text in two documents must give distinct ids")
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{0, 0}, {10, 10}, {10, -1}} {
		if o.Validate() == nil {
			t.Errorf("%+v should be invalid", o)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Error(err)
	}
}

// TestSplitRepeatedWindows: identical windows of one document are distinct chunks, numbered in
// order, with ids that repeat across runs; the first keeps the id of an unrepeated window.
func TestSplitRepeatedWindows(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Size: 4, Overlap: 0}
	// "Lorem ipsum dolor sit" is four tokens; six copies make six identical windows.
	window := " Lorem ipsum dolor sit"
	if n := tok.Count(window); n != 4 {
		t.Fatalf("test window has %d tokens, want 4", n)
	}
	text := strings.Repeat(window, 6)
	pieces, err := Split(tok, "doc", text, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 6 {
		t.Fatalf("got %d pieces, want 6", len(pieces))
	}
	ids := map[string]bool{}
	for i, p := range pieces {
		if p.Seq != i || p.Text != window {
			t.Errorf("piece %d = seq %d %q", i, p.Seq, p.Text)
		}
		ids[p.ID] = true
	}
	if len(ids) != 6 {
		t.Errorf("six identical windows got %d distinct ids, want 6", len(ids))
	}
	again, _ := Split(tok, "doc", text, opt)
	for i := range pieces {
		if again[i].ID != pieces[i].ID {
			t.Errorf("piece %d: id %s then %s", i, pieces[i].ID, again[i].ID)
		}
	}
	if one, _ := Split(tok, "doc", window, opt); one[0].ID != pieces[0].ID {
		t.Error("the first of repeated windows must keep the id of the same window alone")
	}
}

// TestSplitInSegments checks that tokenizing a text in segments cut at cutPoint gives the pieces
// of tokenizing it whole: the same windows, ids and token counts, for text with and without
// places to cut, and windows smaller and larger than a segment.
func TestSplitInSegments(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	var corpus strings.Builder
	files, err := filepath.Glob("../../testdata/corpus/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		corpus.Write(b)
	}
	tests := []struct {
		name string
		text string
		opt  Options
	}{
		{"corpus, small windows", corpus.String(), Options{Size: 50, Overlap: 10}},
		{"corpus, default windows", corpus.String(), DefaultOptions()},
		{"corpus on one line", strings.Join(strings.Fields(corpus.String()), " "), Options{Size: 30, Overlap: 0}},
		{"capitalised words", strings.Repeat("Alpha Beta gamma's Delta, 42 Épée Zeta ", 300), Options{Size: 17, Overlap: 5}},
		{"no place to cut", strings.Repeat("日本語のテキスト。", 500), Options{Size: 40, Overlap: 8}},
		{"empty", "", Options{Size: 10, Overlap: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := split(tok, "d", tt.text, tt.opt, len(tt.text)+1)
			if err != nil {
				t.Fatal(err)
			}
			for _, segment := range []int{1, 64, 1000} {
				got, err := split(tok, "d", tt.text, tt.opt, segment)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("segments of %d bytes: %d pieces, want %d (first differing: %v)", segment, len(got), len(want), firstDiff(got, want))
				}
				checkSpans(t, tt.text, got)
			}
		})
	}
}

// checkSpans checks that every piece's offsets select its text from the document, in the
// document's order, covering all of it.
func checkSpans(t *testing.T, text string, pieces []Piece) {
	t.Helper()
	prev := Piece{}
	for i, p := range pieces {
		if p.Start < 0 || p.End > len(text) || p.Start > p.End || text[p.Start:p.End] != p.Text {
			t.Fatalf("piece %d: span [%d, %d) of %d bytes does not hold its text", i, p.Start, p.End, len(text))
		}
		if i > 0 && (p.Start < prev.Start || p.Start > prev.End || p.End <= prev.End) {
			t.Fatalf("piece %d: span [%d, %d) does not follow [%d, %d)", i, p.Start, p.End, prev.Start, prev.End)
		}
		prev = p
	}
	if len(pieces) > 0 && (pieces[0].Start != 0 || prev.End != len(text)) {
		t.Fatalf("pieces span [%d, %d), want the whole text [0, %d)", pieces[0].Start, prev.End, len(text))
	}
}

func firstDiff(a, b []Piece) any {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return [2]Piece{a[i], b[i]}
		}
	}
	return nil
}
