package cypher

import (
	"strings"
	"unicode"
)

// maxQueryWords bounds a full-text query well below Lucene's limit of 1024 clauses.
const maxQueryWords = 256

// luceneQuery turns free text into a Lucene query that can only mean "any of these words".
// TextSearch promises plain words, never query syntax, so the text is split into runs of letters,
// digits and combining marks: operators (+ - && || ! ( ) { } [ ] ^ " ~ * ? : \ /), field
// prefixes ("title:x") and quotes become separators. The words are lower-cased, which also
// turns the operator words AND, OR, NOT and TO into ordinary terms (the index's analyzer
// lower-cases them anyway), and escaped as a second line of defence should the word rule ever
// admit punctuation. Repeated words are kept once. An empty result means "no query".
func luceneQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	})
	seen := map[string]bool{}
	out := make([]string, 0, len(words))
	for _, w := range words {
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, escapeLucene(w))
		if len(out) == maxQueryWords {
			break
		}
	}
	return strings.Join(out, " ")
}

// escapeLucene backslash-escapes the characters that Lucene's classic query parser treats as
// syntax.
func escapeLucene(s string) string {
	const special = `+-&|!(){}[]^"~*?:\/`
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
