package retrieval

import "testing"

func TestTextQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Who founded the guild that Edda Fenwick led from 1124?", "founded guild Edda Fenwick led 1124"},
		{"What is the Saltmere Cartographers' Guild?", "Saltmere Cartographers' Guild"},
		{"Which of them?", "Which of them?"}, // nothing but function words: searched as asked
		{"  ", "  "},
		{"Ashfever, plague; Dunmarrow", "Ashfever plague Dunmarrow"},
	} {
		if got := textQuery(tc.in); got != tc.want {
			t.Errorf("textQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
