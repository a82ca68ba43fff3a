package retrieval

import (
	"strings"
	"unicode"
)

// functionWords are English words that carry no topic: articles, pronouns, auxiliaries,
// prepositions, conjunctions and question words. BM25 gives them almost no weight, but a
// full-text engine still scores every row that holds one, which on a long question is nearly
// every row of the index. Dropping them makes hi's searches faster at the same recall
// (docs/RETRIEVAL.md).
var functionWords = wordSet(`a an the this that these those it its they them their there he him
	his she her hers we us our you your i me my who whom whose which what when where why how is are
	was were be been being am do does did done has have had having can could shall should will
	would may might must of in on at by for from to with as into onto upon about over under than
	then and or but nor so if not no also too very both either neither each any all some such own
	same other just only`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// textQuery is the question as full-text search gets it: its words without function words, or
// the question as it is when nothing else is left.
func textQuery(question string) string {
	words := strings.FieldsFunc(question, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r) && r != '\'' && r != '’'
	})
	kept := words[:0:0]
	for _, w := range words {
		if !functionWords[strings.ToLower(w)] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return question
	}
	return strings.Join(kept, " ")
}
