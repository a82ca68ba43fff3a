package pipeline

import (
	"testing"

	"github.com/stratarag/strata/pipeline/chunk"
)

// TestPiecePages: a window is on the pages of its first and last non-space bytes; the blank
// line that closes a page does not put the window that starts with it on that page.
func TestPiecePages(t *testing.T) {
	text := "Page one ends.\n\nPage two.\n\nPage three."
	pages := []int{0, 16, 27} // where "Page two." and "Page three." begin
	span := func(s string) chunk.Piece {
		for i := 0; i+len(s) <= len(text); i++ {
			if text[i:i+len(s)] == s {
				return chunk.Piece{Text: s, Start: i, End: i + len(s)}
			}
		}
		t.Fatalf("%q is not in the text", s)
		return chunk.Piece{}
	}
	tests := []struct {
		piece       chunk.Piece
		pages       []int
		first, last int
	}{
		{span("Page one ends."), pages, 1, 1},
		{span("ends.\n\nPage two"), pages, 1, 2},
		{span("\n\nPage two.\n\n"), pages, 2, 2},
		{span(".\n\nPage three."), pages, 2, 3},
		{span("\n\n"), pages, 1, 1}, // white space alone: its whole span, the end of page 1
		{span("Page two."), nil, 0, 0},
	}
	for _, tc := range tests {
		first, last := piecePages(tc.pages, tc.piece)
		if first != tc.first || last != tc.last {
			t.Errorf("piecePages(%q) = %d-%d, want %d-%d", tc.piece.Text, first, last, tc.first, tc.last)
		}
	}
}
