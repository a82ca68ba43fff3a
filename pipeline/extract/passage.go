package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stratarag/strata/internal/textutil"
)

// Limits of a description taken from the passage: a record's description is one or two of the
// sentences that name it, as short as a model's one-to-three-sentence description.
const (
	passageSentences = 2
	passageRunes     = 400
)

// describeFromPassage gives the entities and relations of res that have no description the
// sentences of text that name them: an entity, the first sentences holding its name (or, for a
// name the passage shortens, its last word); a relation, the first sentences naming both ends,
// else the first naming each. A record the passage never names keeps an empty description.
func describeFromPassage(text string, res *Result) {
	sentences := Sentences(text)
	if len(sentences) == 0 {
		return
	}
	m := nameMatcher{sentences: lowered(sentences), shortened: shortNames(recordNames(*res))}

	for i := range res.Entities {
		e := &res.Entities[i]
		if e.Description == "" {
			e.Description = join(sentences, m.naming(e.Name))
		}
	}
	for i := range res.Relations {
		r := &res.Relations[i]
		if r.Description != "" {
			continue
		}
		src, tgt := m.naming(r.Source), m.naming(r.Target)
		both := intersect(src, tgt)
		if len(both) == 0 {
			both = firsts(src, tgt)
		}
		r.Description = join(sentences, both)
	}
}

// lowered returns the sentences' texts lower-cased, as nameMatcher reads them.
func lowered(sentences []Sentence) []string {
	out := make([]string, len(sentences))
	for i, s := range sentences {
		out[i] = strings.ToLower(s.text)
	}
	return out
}

// recordNames lists the names res's records give, relations' ends included.
func recordNames(res Result) []string {
	names := make([]string, 0, len(res.Entities)+2*len(res.Relations))
	for _, e := range res.Entities {
		names = append(names, e.Name)
	}
	for _, r := range res.Relations {
		names = append(names, r.Source, r.Target)
	}
	return names
}

// nameMatcher finds the sentences that name an entity.
type nameMatcher struct {
	sentences []string          // lower-cased
	shortened map[string]string // lower-cased name → the last word it is shortened to
}

// naming lists, in order, the sentences holding name as a whole word sequence, or else its
// short form.
func (m nameMatcher) naming(name string) []int {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return nil
	}
	out := m.holding(name)
	if len(out) == 0 {
		if short := m.shortened[name]; short != "" {
			out = m.holding(short)
		}
	}
	return out
}

func (m nameMatcher) holding(phrase string) []int {
	var out []int
	for i, s := range m.sentences {
		if containsWords(s, phrase) {
			out = append(out, i)
		}
	}
	return out
}

// shortNames maps each multi-word name to its last word, when that word is long enough to be a
// name of its own ("Lovelace" for "Ada Lovelace") and ends no other name of the chunk: "Guild"
// would stand for both guilds of a passage about two.
func shortNames(names []string) map[string]string {
	lastOf := map[string]string{}
	owners := map[string]map[string]bool{}
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		ws := strings.Fields(n)
		if len(ws) < 2 {
			continue
		}
		last := strings.TrimFunc(ws[len(ws)-1], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if utf8.RuneCountInString(last) < 4 {
			continue
		}
		lastOf[n] = last
		if owners[last] == nil {
			owners[last] = map[string]bool{}
		}
		owners[last][n] = true
	}
	out := map[string]string{}
	for n, last := range lastOf {
		if len(owners[last]) == 1 {
			out[n] = last
		}
	}
	return out
}

// containsWords reports whether phrase occurs in s with no letter or digit right before or
// after it, so that "Vell" does not match inside "Vellmoor".
func containsWords(s, phrase string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(phrase)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if !wordRune(before) && !wordRune(after) {
			return true
		}
		from = i + 1
	}
}

func wordRune(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// firsts lists the first sentence of each list, once.
func firsts(lists ...[]int) []int {
	var out []int
	for _, l := range lists {
		if len(l) > 0 && !slices.Contains(out, l[0]) {
			out = append(out, l[0])
		}
	}
	return out
}

// join writes the first passageSentences of the indexed sentences, in passage order, within
// passageRunes.
func join(sentences []Sentence, idx []int) string {
	idx = slices.Clone(idx)
	slices.Sort(idx)
	var parts []string
	for _, i := range idx {
		if len(parts) == passageSentences {
			break
		}
		parts = append(parts, sentences[i].text)
	}
	return textutil.Clip(strings.Join(parts, " "), passageRunes)
}

// passageRelations joins the entities named in one sentence of text, each pair once, strength
// growing with the sentences that name both. In a sentence naming many, only entities close in
// order are paired, as the offline extractor does.
func passageRelations(text string, entities []Entity) []Relation {
	sentences := Sentences(text)
	lower := lowered(sentences)
	m := nameMatcher{sentences: lower, shortened: shortNames(recordNames(Result{Entities: entities}))}
	perSentence := make([][]int, len(sentences)) // entity indexes, in order of first position
	for ei, e := range entities {
		for _, si := range m.naming(e.Name) {
			perSentence[si] = append(perSentence[si], ei)
		}
	}
	type pair struct{ a, b int }
	index := map[pair]int{}
	var out []Relation
	for si, ents := range perSentence {
		pos := func(ei int) int {
			return strings.Index(lower[si], strings.ToLower(entities[ei].Name))
		}
		slices.SortStableFunc(ents, func(a, b int) int { return pos(a) - pos(b) })
		for i := range ents {
			for j := i + 1; j < len(ents); j++ {
				if len(ents) > denseSentence && j-i > pairWindow {
					break
				}
				p := pair{min(ents[i], ents[j]), max(ents[i], ents[j])}
				k, ok := index[p]
				if !ok {
					index[p] = len(out)
					out = append(out, Relation{Source: entities[p.a].Name, Target: entities[p.b].Name})
					k = len(out) - 1
				}
				out[k].Strength++
			}
		}
	}
	return out
}
