package retrieval

import (
	"strings"
	"unicode"

	"github.com/stratarag/strata/internal/graph"
)

// namedWeight is what a document scores when the question names its subject and no other
// retrieved document names it; see namedDocuments. It is added to the document's fused score,
// where rank 1 of the lexical channel is worth lexicalWeight/(docRRFK+1) = 0.5.
const namedWeight = 0.5

// namedDocuments links the question to the documents about the entities it names: a document
// whose subject (graph.Document.Subject, its title read as a name) the question contains as a
// phrase, case and punctuation aside, scores namedWeight/(1+n), where n is the number of other
// documents among the lexical candidates whose title or retrieved text also names it. A name
// only the document about it carries identifies what the question is about ("the woman who
// portrayed Corliss Archer in the film Kiss and Tell"); one most candidates repeat is more
// likely the setting of the question than its subject. Names made of function words only
// ("It", "The Who") are left out: they cannot be told from the question's grammar.
//
// Measured on 480 HotpotQA questions (offline, docs/RETRIEVAL.md): a document the question
// names this way was a gold document for 272 of 272 questions where no other candidate named
// it, and for 121 of 208 where six or more did.
func namedDocuments(question string, docs []graph.Document, lexical []graph.Chunk) map[string]float64 {
	q := phraseWords(question)
	subjects := map[string]string{} // document id → its subject's words, for the documents the question names
	for _, d := range docs {
		s := phraseWords(d.Subject())
		if s == " " || !strings.Contains(q, s) || onlyFunctionWords(s) {
			continue
		}
		subjects[d.ID] = s
	}
	if len(subjects) == 0 {
		return nil
	}
	titles := make(map[string]string, len(docs))
	for _, d := range docs {
		titles[d.ID] = d.Title
	}
	// The text each lexical candidate document shows: its title and its retrieved chunks.
	texts := map[string]*strings.Builder{}
	var order []string
	for _, c := range lexical {
		b, ok := texts[c.DocumentID]
		if !ok {
			b = &strings.Builder{}
			b.WriteString(titles[c.DocumentID])
			texts[c.DocumentID] = b
			order = append(order, c.DocumentID)
		}
		b.WriteString("\n")
		b.WriteString(c.Text)
	}
	words := make(map[string]string, len(order))
	for _, d := range order {
		words[d] = phraseWords(texts[d].String())
	}
	scores := make(map[string]float64, len(subjects))
	for id, s := range subjects {
		others := 0
		for _, d := range order {
			if d != id && strings.Contains(words[d], s) {
				others++
			}
		}
		scores[id] = namedWeight / float64(1+others)
	}
	return scores
}

// phraseWords returns the words of s (runs of letters, digits and marks, as the full-text index
// splits them), lower-cased, each followed and the first preceded by one space, so that a
// phrase is found in a text by strings.Contains on whole words only.
func phraseWords(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	in := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			b.WriteRune(unicode.ToLower(r))
			in = true
			continue
		}
		if in {
			b.WriteByte(' ')
			in = false
		}
	}
	if in {
		b.WriteByte(' ')
	}
	return b.String()
}

// onlyFunctionWords reports whether the words of a phrase (as phraseWords writes them) are all
// function words.
func onlyFunctionWords(words string) bool {
	for _, w := range strings.Fields(words) {
		if !functionWords[w] {
			return false
		}
	}
	return true
}
