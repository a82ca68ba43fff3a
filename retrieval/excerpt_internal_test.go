package retrieval

import (
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/tokenizer"
)

func TestExcerpt(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("The harbour was quiet that year and nothing of note happened at all. ", 12)
	tests := []struct {
		name, text, question string
		want                 []string // substrings the excerpt must hold
		wantOut              []string // and must not
		whole                bool
	}{
		{"short text whole", "Edda Fenwick led the guild.", "Who led the guild?", []string{"Edda Fenwick led the guild."}, nil, true},
		{"the matching sentence", filler + "Edda Fenwick founded the Saltmere guild in 1802. " + filler, "Who founded the Saltmere guild?",
			[]string{"… ", "Edda Fenwick founded the Saltmere guild in 1802.", " …"}, nil, false},
		{"the opening without a match", "Nothing matches here. " + filler, "Who designed the lighthouse?",
			[]string{"Nothing matches here.", " …"}, []string{"… Nothing"}, false},
		{"more question words win", filler + "The guild met. " + filler + "The Saltmere guild was founded by Fenwick. " + filler, "Who founded the Saltmere guild?",
			[]string{"The Saltmere guild was founded by Fenwick."}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, n := excerpt(tok, tc.text, 0, questionWords(tc.question), 60)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("excerpt %q lacks %q", got, w)
				}
			}
			for _, w := range tc.wantOut {
				if strings.Contains(got, w) {
					t.Errorf("excerpt %q holds %q", got, w)
				}
			}
			if tc.whole != (got == tc.text) {
				t.Errorf("excerpt %q of %q: whole %v, want %v", got, tc.text, got == tc.text, tc.whole)
			}
			if c := tok.Count(got); n < c || (!tc.whole && n > 60+2) {
				t.Errorf("excerpt of %d tokens reported as %d (limit 60)", c, n)
			}
		})
	}
}
