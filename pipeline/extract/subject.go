package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/textutil"
)

// maxMiddleNames bounds the words a name in the text may hold between the first and last word of
// the subject it stands for ("Abraham Harold Maslow" for "Abraham Maslow").
const maxMiddleNames = 2

// NameSubject adds the subject of a chunk's document (graph.Document.Subject: its title read as
// a name) to what the chunk's extraction found, when the chunk's text names the subject and the
// extraction does not: within a longer name ("Shirley Temple Black" in the document titled
// "Shirley Temple"), at the start of a sentence or after a number, where the offline extractor
// reads a capital as grammar ("The 1964 Armstrong 500 was…"), or with middle names ("Abraham
// Harold Maslow" for "Abraham Maslow"). The title says which words to look for; the text still
// has to say them, so the entity's evidence (its name as written, the sentence naming it) comes
// from the chunk like any other. Without it, ingest cannot link a document to its subject
// (pipeline: subjectLinks), and retrieval cannot walk from a document that names the entity to
// the document about it.
//
// The subject's words must appear in order, case aside except that a capitalised word of the
// subject must be capitalised in the text ("Kiss and Tell" is not "kiss and tell"), separated
// by what separates them in the subject, spaces and quotes aside ("Neafie, Levy" is not "Neafie
// Levy"; Tyrone Curtis "Muggsy" Bogues is Muggsy Bogues).
// The entity takes the type of the extracted name that holds it, or its own by the offline
// rules, and is related to the names of the sentence that names it.
func NameSubject(res Result, text, subject string) Result {
	id := graph.NormalizeID(subject)
	want := nameWords(subject)
	if id == "" || len(want) == 0 {
		return res
	}
	for _, e := range res.Entities {
		if graph.NormalizeID(e.Name) == id {
			return res
		}
	}
	for _, r := range res.Relations {
		if graph.NormalizeID(r.Source) == id || graph.NormalizeID(r.Target) == id {
			return res
		}
	}
	for _, s := range Sentences(text) {
		name, ok := findName(s.text, want)
		if !ok {
			continue
		}
		typ := ""
		for _, e := range res.Entities {
			if _, ok := findName(e.Name, want); ok {
				typ = e.Type
				break
			}
		}
		if typ == "" {
			typ = entityType(splitWords(name), nil, 0)
		}
		if graph.NormalizeID(name) != id {
			name = subject // "Feel Good Inc" for "Feel Good Inc.": the entity is the subject's
		}
		desc := textutil.Clip(s.text, maxSentenceRunes)
		res.Entities = append(res.Entities, Entity{Name: name, Type: typ, Description: desc})
		// Related, as the offline extractor relates names, to the names of the same sentence
		// (the longer name holding it among them), so that it is not a component of its own.
		related := 0
		for _, e := range res.Entities[:len(res.Entities)-1] {
			if related < denseSentence && strings.Contains(s.text, e.Name) {
				res.Relations = append(res.Relations, Relation{Source: name, Target: e.Name, Description: desc, Strength: 1})
				related++
			}
		}
		return res
	}
	if len(want) < 2 {
		return res
	}
	for _, e := range res.Entities {
		if withMiddleNames(nameWords(e.Name), want) {
			res.Entities = append(res.Entities, Entity{Name: subject, Type: e.Type, Description: e.Description})
			res.Relations = append(res.Relations, Relation{Source: subject, Target: e.Name, Description: e.Description, Strength: 1})
			return res
		}
	}
	return res
}

// nameWord is a word of a name: a run of letters, digits and marks, with what separates it from
// the previous word (spaces removed).
type nameWord struct {
	text       string
	sep        string
	start, end int // byte offsets in the text read
}

// nameWords splits s into its words.
func nameWords(s string) []nameWord {
	var out []nameWord
	start := -1
	for i, r := range s {
		inWord := unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = append(out, nameWord{text: s[start:i], start: start, end: i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, nameWord{text: s[start:], start: start, end: len(s)})
	}
	// What separates each word from the previous one, spaces and quotes aside (a nickname:
	// Tyrone Curtis "Muggsy" Bogues names Muggsy Bogues).
	for i := 1; i < len(out); i++ {
		out[i].sep = strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || unicode.Is(unicode.Quotation_Mark, r) {
				return -1
			}
			return r
		}, s[out[i-1].end:out[i].start])
	}
	return out
}

// findName finds the words of want in s (see NameSubject) and returns them as s writes them.
func findName(s string, want []nameWord) (string, bool) {
	words := nameWords(s)
	for i := 0; i+len(want) <= len(words); i++ {
		ok := true
		for j, w := range want {
			got := words[i+j]
			if !sameWord(got.text, w.text) || (j > 0 && got.sep != w.sep) {
				ok = false
				break
			}
		}
		if ok {
			return s[words[i].start:words[i+len(want)-1].end], true
		}
	}
	return "", false
}

// sameWord compares a word of the text with a word of the subject: case aside, except that a
// capitalised subject word must be capitalised in the text.
func sameWord(text, subject string) bool {
	if !strings.EqualFold(text, subject) {
		return false
	}
	s, _ := utf8.DecodeRuneInString(subject)
	t, _ := utf8.DecodeRuneInString(text)
	return !unicode.IsUpper(s) || unicode.IsUpper(t)
}

// withMiddleNames reports whether name is the subject's words with at most maxMiddleNames more
// between them, its first and last word the subject's.
func withMiddleNames(name, subject []nameWord) bool {
	if len(name) <= len(subject) || len(name) > len(subject)+maxMiddleNames {
		return false
	}
	if !sameWord(name[0].text, subject[0].text) || !sameWord(name[len(name)-1].text, subject[len(subject)-1].text) {
		return false
	}
	j := 0
	for _, w := range name {
		if j < len(subject) && sameWord(w.text, subject[j].text) {
			j++
		}
	}
	return j == len(subject)
}
