package eval

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"The Saltmere Cartographers' Guild!", "saltmere cartographers guild"},
		{"  An   apple, a day ", "apple day"},
		{"Rector's “Hall” — 1120", "rectors hall 1120"},
		{"theatre anthem", "theatre anthem"}, // articles only as whole words
		{"", ""},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMetrics holds each metric to values worked out by hand (the comments show the counts).
func TestMetrics(t *testing.T) {
	e := math.Exp(-1)
	for _, tc := range []struct {
		name, answer, gold string
		em                 bool
		f1, rouge, bleu    float64
	}{
		// 2 of 4 answer words, 2 of 2 gold words: P .5, R 1.
		{"longer answer", "Ilsa Marrow founded it", "Ilsa Marrow", false, 2.0 / 3, 2.0 / 3, 0.5},
		// Articles go: [cat sat on mat] against [cat on mat]; overlap 3, LCS 3: P 3/4, R 1.
		{"articles", "the cat sat on the mat", "the cat on the mat", false, 6.0 / 7, 6.0 / 7, 0.75},
		// Same words, other order: F1 and BLEU-1 see a bag, ROUGE-L a sequence (LCS 1 of 3).
		{"order", "mat on cat", "cat on mat", false, 1, 1.0 / 3, 1},
		// One word of two: P 1, R .5; BLEU-1's brevity penalty exp(1 − 2/1).
		{"short answer", "Osric", "Osric Daventh", false, 2.0 / 3, 2.0 / 3, e},
		// Repeats are clipped: one "salt" counts. P 1/3, R 1/2.
		{"repeats", "salt salt salt", "salt tariff", false, 0.4, 0.4, 1.0 / 3},
		{"equal once normalised", "The Brinewright Company.", "brinewright company", true, 1, 1, 1},
		{"nothing shared", "Corvin Hale", "Ilsa Marrow", false, 0, 0, 0},
		{"empty answer", "", "Ilsa Marrow", false, 0, 0, 0},
		{"punctuation only gold", "anything", "?!", false, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExactMatch(tc.answer, tc.gold); got != tc.em {
				t.Errorf("ExactMatch = %v, want %v", got, tc.em)
			}
			for _, m := range []struct {
				metric    string
				got, want float64
			}{{"F1", F1(tc.answer, tc.gold), tc.f1}, {"RougeL", RougeL(tc.answer, tc.gold), tc.rouge}, {"BLEU1", BLEU1(tc.answer, tc.gold), tc.bleu}} {
				if math.Abs(m.got-m.want) > 1e-9 {
					t.Errorf("%s(%q, %q) = %.6f, want %.6f", m.metric, tc.answer, tc.gold, m.got, m.want)
				}
			}
		})
	}
}

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		answer, gold string
		want         bool
	}{
		{"She founded the Dunmarrow Infirmary in 1120 [doc:lira-solenne.txt].", "Dunmarrow Infirmary", true},
		{"Osric Daventh, the rector of Hollin Reach University.", "Osric Daventh, rector of Hollin Reach University", true},
		{"Halewood", "Hale", false}, // whole words only
		{"Corvin Hale captained the Grey Heron.", "the Saltmere Cartographers' Guild; Corvin Hale", false},
		{"anything", "the", false}, // nothing left of the gold answer
	} {
		if got := Contains(tc.answer, tc.gold); got != tc.want {
			t.Errorf("Contains(%q, %q) = %v, want %v", tc.answer, tc.gold, got, tc.want)
		}
	}
}

// TestScoreTakesBestAlias: each metric is the best over the aliases, metric by metric.
func TestScoreTakesBestAlias(t *testing.T) {
	gold := Aliases{"heavy duty on salt", "duty on salt"}
	// [duty on salt passed]: against the first alias overlap 3 of 4 and 4 (F1 .75), against the
	// second 3 of 4 and 3 (F1 6/7); BLEU-1 is 3/4 against both, no brevity penalty.
	got := Score("The duty on salt passed", gold)
	want := Scores{Accuracy: 1, ExactMatch: 0, F1: 6.0 / 7, RougeL: 6.0 / 7, BLEU1: 0.75}
	if !near(got, want) {
		t.Errorf("Score = %+v, want %+v", got, want)
	}
	if got := Score("Duty on salt.", gold); got.ExactMatch != 1 || got.Accuracy != 1 {
		t.Errorf("exact alias: %+v", got)
	}
	if got := Score("Duty on salt.", nil); got != (Scores{}) {
		t.Errorf("no gold: %+v", got)
	}
}

func near(a, b Scores) bool {
	x := []float64{a.Accuracy, a.ExactMatch, a.F1, a.RougeL, a.BLEU1}
	y := []float64{b.Accuracy, b.ExactMatch, b.F1, b.RougeL, b.BLEU1}
	for i := range x {
		if math.Abs(x[i]-y[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func TestAliasesJSON(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Aliases
		wantErr bool
	}{
		{`"Ilsa Marrow"`, Aliases{"Ilsa Marrow"}, false},
		{`["tide dial", "a tide dial"]`, Aliases{"tide dial", "a tide dial"}, false},
		{`["", " "]`, Aliases{}, false},
		{`null`, nil, false},
		{`3`, nil, true},
		{`{"a": 1}`, nil, true},
	} {
		var a Aliases
		err := json.Unmarshal([]byte(tc.in), &a)
		if (err != nil) != tc.wantErr || (!tc.wantErr && !slices.Equal(a, tc.want)) {
			t.Errorf("%s: %q, %v", tc.in, a, err)
		}
	}
}
