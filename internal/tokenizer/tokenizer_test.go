package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCount(t *testing.T) {
	tok, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"tiktoken is great!", 6},
	}
	for _, tc := range tests {
		if got := tok.Count(tc.in); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestEndsCoverTextOnRuneBoundaries(t *testing.T) {
	tok, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"plain ascii text here", "Ünïcödé – 東京 emoji 🙂 mix", strings.Repeat("ß", 50)} {
		ends, err := tok.Ends(s)
		if err != nil {
			t.Fatal(err)
		}
		if ends[len(ends)-1] != len(s) {
			t.Errorf("%q: last end %d, want %d", s, ends[len(ends)-1], len(s))
		}
		prev := 0
		for _, e := range ends {
			if e <= prev {
				t.Fatalf("%q: ends not increasing: %v", s, ends)
			}
			if !utf8.ValidString(s[prev:e]) {
				t.Errorf("%q: piece %q is not valid UTF-8", s, s[prev:e])
			}
			prev = e
		}
	}
}

// TestLoadWaitsForTables: a tokenizer from Load counts like New's from its first call on, also
// when several goroutines call it while the tables are still loading.
func TestLoadWaitsForTables(t *testing.T) {
	ref, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "hello world", "tiktoken is great!", strings.Repeat("Corrin Archipelago ", 50)}
	tok := Load()
	got := make([][]int, 4)
	done := make(chan int)
	for g := range got {
		go func() {
			for _, s := range texts {
				got[g] = append(got[g], tok.Count(s))
			}
			done <- g
		}()
	}
	for range got {
		<-done
	}
	if err := tok.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	for g := range got {
		for i, s := range texts {
			if want := ref.Count(s); got[g][i] != want {
				t.Errorf("goroutine %d: Count(%.20q) = %d, want %d", g, s, got[g][i], want)
			}
		}
	}
}
