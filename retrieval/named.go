package retrieval

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

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
	q := " " + strings.Join(wordsOf(question), " ") + " "
	subjects := map[string][]string{} // document id → its subject's words, for the documents the question names
	for _, d := range docs {
		s := wordsOf(d.Subject())
		if len(s) == 0 || !strings.Contains(q, " "+strings.Join(s, " ")+" ") || onlyFunctionWords(s) {
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
	// Which lexical candidate documents name each subject, in their title or a retrieved chunk;
	// documents with the same subject share a matcher.
	phrases := map[string]int{} // subject words joined → matcher index
	var matchers []phraseMatcher
	for _, s := range subjects {
		key := strings.Join(s, " ")
		if _, ok := phrases[key]; !ok {
			phrases[key] = len(matchers)
			matchers = append(matchers, phraseMatcher{words: s})
		}
	}
	naming := make([]map[string]bool, len(matchers)) // per matcher, the documents naming its phrase
	for i := range naming {
		naming[i] = map[string]bool{}
	}
	var buf []byte
	read := func(doc, text string) {
		buf = eachWord(text, buf, func(w []byte) {
			for i := range matchers {
				matchers[i].next(w)
			}
		})
		for i := range matchers {
			if matchers[i].found {
				naming[i][doc] = true
			}
			matchers[i].found = false
			matchers[i].end()
		}
	}
	seen := map[string]bool{}
	for _, c := range lexical {
		if !seen[c.DocumentID] {
			seen[c.DocumentID] = true
			read(c.DocumentID, titles[c.DocumentID])
		}
		read(c.DocumentID, c.Text)
	}
	scores := make(map[string]float64, len(subjects))
	for id, s := range subjects {
		named := naming[phrases[strings.Join(s, " ")]]
		others := len(named)
		if named[id] {
			others--
		}
		scores[id] = namedWeight / float64(1+others)
	}
	return scores
}

// onlyFunctionWords reports whether words are all function words.
func onlyFunctionWords(words []string) bool {
	for _, w := range words {
		if !functionWords[w] {
			return false
		}
	}
	return true
}

// metadataWeight is what the candidate documents carrying a metadata value the question names
// share; see metadataDocuments. Rank 1 of the lexical channel is worth 0.5.
const metadataWeight = 0.2

// maxMetadataWords bounds the metadata values read as names, as graph.Document.Subject bounds
// titles: longer values are text, not names.
const maxMetadataWords = 8

// metadataDocuments links the question to the documents whose metadata it names: a string value
// of a candidate document's metadata (its publisher, its author) that the question contains as
// a phrase, case and punctuation aside, gives each candidate carrying it metadataWeight/n, n the
// number of candidates carrying it ("as reported by both Fortune and TechCrunch": the articles
// of the one Fortune candidate count more than each of ten TechCrunch ones). Values made of
// function words only, or longer than maxMetadataWords words, are left out, as are numbers and
// other non-string values.
// Documents without metadata (testdata's files, the HotpotQA paragraphs) are unaffected; what it
// gives on news articles with their publisher as metadata is in docs/RETRIEVAL.md.
func metadataDocuments(question string, docs []graph.Document) map[string]float64 {
	q := " " + strings.Join(wordsOf(question), " ") + " "
	holders := map[string][]string{} // value's words joined → the documents carrying it
	var values []string              // in first-seen order, for a deterministic result
	for _, d := range docs {
		if d.Metadata == "" || d.Metadata == "{}" {
			continue
		}
		var meta map[string]any
		if err := json.Unmarshal([]byte(d.Metadata), &meta); err != nil {
			continue // stored metadata is a JSON object; anything else names nothing
		}
		seen := map[string]bool{}
		for _, k := range slices.Sorted(maps.Keys(meta)) {
			s, ok := meta[k].(string)
			if !ok {
				continue
			}
			words := wordsOf(s)
			if len(words) == 0 || len(words) > maxMetadataWords || onlyFunctionWords(words) {
				continue
			}
			key := strings.Join(words, " ")
			if seen[key] || !strings.Contains(q, " "+key+" ") {
				continue
			}
			seen[key] = true
			if _, ok := holders[key]; !ok {
				values = append(values, key)
			}
			holders[key] = append(holders[key], d.ID)
		}
	}
	if len(values) == 0 {
		return nil
	}
	scores := map[string]float64{}
	for _, key := range values {
		for _, id := range holders[key] {
			scores[id] += metadataWeight / float64(len(holders[key]))
		}
	}
	return scores
}
