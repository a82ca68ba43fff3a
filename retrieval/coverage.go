package retrieval

import (
	"math"

	"github.com/stratarag/strata/internal/graph"
)

// The second document: a multi-hop question joins facts of several documents, and the fused
// ranking often puts a document that says the same as the first one second. So the document
// ranked second is chosen among the secondCandidates after the first by its fused score plus
// coverageWeight times the share of the question's words the first document leaves out that it
// holds (see coverage). Measured on 480 HotpotQA questions, the multihop set and testdata/
// (docs/RETRIEVAL.md).
const (
	secondCandidates = 5
	coverageWeight   = 0.5
)

// coverage knows which of the question's words the lexical candidates hold: each document's best
// lexical chunk with its title (the text that ranked it), and how rare each word is among them.
type coverage struct {
	weight map[string]float64         // question word → its idf among the lexical candidates' documents
	words  map[string]map[string]bool // document → the question words its best chunk or title holds
}

// newCoverage reads the question's words (function words left out, as full-text search gets
// them) in the best lexical chunk of every candidate document and its title (titles by
// document id). A word's weight is its BM25 idf over those documents: words most candidates
// hold say little about which one is missing.
func newCoverage(question string, lexical []graph.Chunk, titles map[string]string) *coverage {
	c := &coverage{weight: map[string]float64{}, words: map[string]map[string]bool{}}
	for _, w := range wordsOf(textQuery(question)) {
		if !functionWords[w] {
			c.weight[w] = 0
		}
	}
	df := map[string]int{}
	var buf []byte
	for _, ch := range lexical {
		if _, ok := c.words[ch.DocumentID]; ok {
			continue // a later, weaker chunk of a document already read
		}
		held := map[string]bool{}
		hold := func(w []byte) {
			if _, ok := c.weight[string(w)]; ok && !held[string(w)] {
				held[string(w)] = true
				df[string(w)]++
			}
		}
		buf = eachWord(titles[ch.DocumentID], buf, hold)
		buf = eachWord(ch.Text, buf, hold)
		c.words[ch.DocumentID] = held
	}
	n := float64(len(c.words))
	for w := range c.weight {
		c.weight[w] = math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
	}
	return c
}

// gain is the share of the weight of the question words first does not hold that doc holds.
func (c *coverage) gain(first, doc string) float64 {
	var missing, held float64
	for w, x := range c.weight {
		if c.words[first][w] {
			continue
		}
		missing += x
		if c.words[doc][w] {
			held += x
		}
	}
	if missing == 0 {
		return 0
	}
	return held / missing
}

// chooseSecond moves to second place the document among the secondCandidates after the first
// whose fused score plus coverageWeight times its gain is highest (the earlier one on a tie).
func (c *coverage) chooseSecond(docs []string, score map[string]float64) {
	if len(docs) < 3 {
		return
	}
	best, bestScore := 1, -math.MaxFloat64
	for i := 1; i < min(len(docs), 1+secondCandidates); i++ {
		if s := score[docs[i]] + coverageWeight*c.gain(docs[0], docs[i]); s > bestScore {
			best, bestScore = i, s
		}
	}
	d := docs[best]
	copy(docs[2:best+1], docs[1:best])
	docs[1] = d
}
