package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"unicode"
)

// Aliases are the accepted forms of a gold answer: a questions file's "answer" is a string or a
// list of strings, and a generated answer scores the best it reaches over them.
type Aliases []string

// UnmarshalJSON reads a string or a list of strings; blank entries are dropped.
func (a *Aliases) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*a = nil
		return nil
	}
	var list []string
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		list = []string{s}
	} else if err := json.Unmarshal(b, &list); err != nil {
		return errors.New(`"answer" must be a string or a list of strings`)
	}
	*a = (*a)[:0]
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			*a = append(*a, s)
		}
	}
	return nil
}

// Normalize is the answer normalisation of SQuAD's and HotpotQA's evaluation scripts: lower
// case, punctuation removed (deleted, not turned into spaces: "Cartographers'" →
// "cartographers"), the articles a, an and the dropped, and white space collapsed. Unicode
// punctuation and symbols count as punctuation, so curly quotes and dashes go too.
func Normalize(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	words := strings.Fields(s)
	kept := words[:0]
	for _, w := range words {
		if w != "a" && w != "an" && w != "the" {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// tokens are the words of a normalised text.
func tokens(s string) []string { return strings.Fields(Normalize(s)) }

// Contains reports whether the normalised gold answer occurs in the normalised answer as a run
// of whole words: ArchRAG's Accuracy ("the gold answer is included in the generation"). Whole
// words, so that "Hale" is not found in "Halewood". A gold answer with no words is never found.
func Contains(answer, gold string) bool {
	g := Normalize(gold)
	if g == "" {
		return false
	}
	return strings.Contains(" "+Normalize(answer)+" ", " "+g+" ")
}

// ExactMatch reports whether answer and gold are equal once normalised.
func ExactMatch(answer, gold string) bool {
	g := Normalize(gold)
	return g != "" && Normalize(answer) == g
}

// F1 is SQuAD's token F1: the harmonic mean of the precision and recall of the answer's
// normalised words against the gold answer's, words counted with multiplicity.
func F1(answer, gold string) float64 {
	a, g := tokens(answer), tokens(gold)
	common := overlapCount(a, g)
	if common == 0 {
		return 0
	}
	return fscore(float64(common)/float64(len(a)), float64(common)/float64(len(g)))
}

// RougeL is ROUGE-L's F1 (β = 1) over normalised words: the longest common subsequence of
// answer and gold, as a share of each.
func RougeL(answer, gold string) float64 {
	a, g := tokens(answer), tokens(gold)
	l := lcs(a, g)
	if l == 0 {
		return 0
	}
	return fscore(float64(l)/float64(len(a)), float64(l)/float64(len(g)))
}

// BLEU1 is BLEU with unigrams only against one reference: the answer's clipped unigram
// precision times the brevity penalty exp(1 − r/c) when the answer (c words) is shorter than
// the gold answer (r words). Words are normalised as for F1.
func BLEU1(answer, gold string) float64 {
	a, g := tokens(answer), tokens(gold)
	common := overlapCount(a, g)
	if common == 0 {
		return 0
	}
	p := float64(common) / float64(len(a))
	if len(a) < len(g) {
		p *= math.Exp(1 - float64(len(g))/float64(len(a)))
	}
	return p
}

// Scores are an answer's scores against its gold aliases, each the best over the aliases (as
// SQuAD's script takes the best over its ground truths, metric by metric).
type Scores struct {
	Accuracy   float64 `json:"accuracy"`
	ExactMatch float64 `json:"exact_match"`
	F1         float64 `json:"f1"`
	RougeL     float64 `json:"rouge_l"`
	BLEU1      float64 `json:"bleu_1"`
}

// Score scores answer against every alias of gold.
func Score(answer string, gold Aliases) Scores {
	var s Scores
	for _, g := range gold {
		if Contains(answer, g) {
			s.Accuracy = 1
		}
		if ExactMatch(answer, g) {
			s.ExactMatch = 1
		}
		s.F1 = max(s.F1, F1(answer, g))
		s.RougeL = max(s.RougeL, RougeL(answer, g))
		s.BLEU1 = max(s.BLEU1, BLEU1(answer, g))
	}
	return s
}

// add adds o/n to s, for means.
func (s *Scores) add(o Scores, n int) {
	f := float64(n)
	s.Accuracy += o.Accuracy / f
	s.ExactMatch += o.ExactMatch / f
	s.F1 += o.F1 / f
	s.RougeL += o.RougeL / f
	s.BLEU1 += o.BLEU1 / f
}

func fscore(p, r float64) float64 { return 2 * p * r / (p + r) }

// overlapCount is the size of the multiset intersection of a and b.
func overlapCount(a, b []string) int {
	have := map[string]int{}
	for _, w := range b {
		have[w]++
	}
	n := 0
	for _, w := range a {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return n
}

// lcs is the length of the longest common subsequence of a and b, in O(len(b)) memory.
func lcs(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			default:
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
