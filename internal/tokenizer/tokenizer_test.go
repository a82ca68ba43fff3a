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
