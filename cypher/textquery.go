package cypher

import (
	"strings"
	"unicode"
)

// maxQueryWords bounds a full-text query well below Lucene's limit of 1024 clauses.
const maxQueryWords = 256

// luceneQuery turns free text into a Lucene query that can only mean "any of these words".
// TextSearch promises plain words, never query syntax. The text is split on white space only,
// as Lucene's query parser does, and every character the parser treats as syntax is escaped,
// so that the index's analyzer (standard-no-stop-words, Unicode word rules) splits each piece
// exactly as it split the indexed text: "O'Brien", "U.S.", "3.14", "foo_bar" and words with
// combining marks stay whole on both sides and match. Splitting on every non-letter instead
// would search "o" and "brien", which the index never holds. Pieces without a letter or digit
// ("&&", "-") carry no term and are dropped; the rest are lower-cased, which also turns the
// operator words AND, OR, NOT and TO into ordinary terms. Repeated pieces are kept once. An
// empty result means "no query".
func luceneQuery(text string) string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.Fields(text) {
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
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
