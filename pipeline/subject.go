package pipeline

import (
	"strings"
	"unicode"

	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/resolve"
)

// maxSubjectWords bounds a title that can name a subject: encyclopaedia titles name their
// entity in a few words ("Treaty of Vell", "Hollin Reach University"); longer titles are
// headlines.
const maxSubjectWords = 8

// subjectJoiners are the lower-case words a name may contain between capitalised ones.
var subjectJoiners = map[string]bool{
	"of": true, "the": true, "and": true, "for": true, "in": true, "on": true, "at": true, "to": true,
	"a": true, "an": true, "de": true, "du": true, "la": true, "le": true, "von": true, "van": true,
	"der": true, "den": true, "del": true, "da": true, "di": true, "y": true, "&": true,
}

// subjectName returns the entity a document's title names, with a trailing parenthetical
// ("Mercury (planet)") removed, or "" when the title reads as a headline or a sentence rather
// than a name: more than maxSubjectWords words, a lower-case word that is not a joiner, or
// sentence punctuation. The subject is stored as an entity every chunk of the document
// mentions, so retrieval can walk from a document that names an entity to the document about it.
func subjectName(title string) string {
	title = strings.TrimSpace(title)
	if i := strings.LastIndex(title, " ("); i > 0 && strings.HasSuffix(title, ")") {
		title = strings.TrimSpace(title[:i])
	}
	words := strings.Fields(title)
	if len(words) == 0 || len(words) > maxSubjectWords || strings.ContainsAny(title, "?!:;\"“”") {
		return ""
	}
	for i, w := range words {
		first := []rune(w)[0]
		switch {
		case unicode.IsUpper(first) || unicode.IsDigit(first):
		case i > 0 && subjectJoiners[strings.ToLower(w)]:
		default:
			return ""
		}
	}
	return strings.Join(words, " ")
}

// withSubject adds the document's subject to what was extracted from each of its chunks.
func withSubject(results []resolve.ChunkResult, subject string) []resolve.ChunkResult {
	if subject == "" {
		return results
	}
	out := make([]resolve.ChunkResult, len(results))
	for i, r := range results {
		r.Result.Entities = append(r.Result.Entities[:len(r.Result.Entities):len(r.Result.Entities)], extract.Entity{Name: subject})
		out[i] = r
	}
	return out
}
