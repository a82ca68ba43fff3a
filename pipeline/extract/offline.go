package extract

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stratarag/strata/internal/textutil"
)

// Offline is the deterministic extractor used when no LLM is configured. Entities are proper-noun
// spans (runs of capitalized words, allowing "of", "de", "&"… inside), typed by their head word
// and context; relations join entities named in the same sentence, described by that sentence.
// Quality is well below an LLM's, but the output has the same shape and costs nothing.
type Offline struct{}

// NewOffline returns the offline extractor.
func NewOffline() *Offline { return &Offline{} }

// Name implements Extractor.
func (*Offline) Name() string { return "offline-propernoun-v1" }

// Limits keep descriptions and the number of pairs per sentence bounded on long, name-dense text.
const (
	maxSpanWords        = 6
	maxDescSentences    = 3
	maxDescriptionRunes = 600
	maxSentenceRunes    = 400
	pairWindow          = 4 // in name-dense sentences, only entities this close in order are paired
	denseSentence       = 6
)

// Extract implements Extractor.
func (o *Offline) Extract(ctx context.Context, text string) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	sentences := Sentences(text)
	capitalizedInside := map[string]bool{}
	for _, s := range sentences {
		for i, w := range s.words {
			if i > 0 && isCapitalized(w.text) {
				capitalizedInside[w.text] = true
			}
		}
	}

	type found struct {
		Entity
		firstSentence int
		sentences     []int
	}
	byKey := map[string]*found{}
	var order []string
	perSentence := make([][]string, len(sentences))
	for si, s := range sentences {
		for _, sp := range spans(s, capitalizedInside) {
			key := strings.ToUpper(sp.name)
			f, ok := byKey[key]
			if !ok {
				f = &found{Entity: Entity{Name: sp.name, Type: sp.typ}, firstSentence: si}
				byKey[key] = f
				order = append(order, key)
			} else if f.Type == "other" && sp.typ != "other" {
				f.Type = sp.typ
			}
			if n := len(f.sentences); n == 0 || f.sentences[n-1] != si {
				f.sentences = append(f.sentences, si)
			}
			if !contains(perSentence[si], key) {
				perSentence[si] = append(perSentence[si], key)
			}
		}
	}

	var res Result
	for _, key := range order {
		f := byKey[key]
		var desc []string
		for _, si := range f.sentences {
			if len(desc) == maxDescSentences {
				break
			}
			desc = append(desc, textutil.Clip(sentences[si].text, maxSentenceRunes))
		}
		f.Description = textutil.Clip(strings.Join(desc, " "), maxDescriptionRunes)
		res.Entities = append(res.Entities, f.Entity)
	}

	type pair struct{ a, b string }
	rels := map[pair]*Relation{}
	var pairs []pair
	for si, keys := range perSentence {
		for i := 0; i < len(keys); i++ {
			for j := i + 1; j < len(keys); j++ {
				if len(keys) > denseSentence && j-i > pairWindow {
					break
				}
				p := pair{keys[i], keys[j]}
				if p.b < p.a {
					p.a, p.b = p.b, p.a
				}
				r, ok := rels[p]
				if !ok {
					r = &Relation{Source: byKey[p.a].Name, Target: byKey[p.b].Name}
					rels[p] = r
					pairs = append(pairs, p)
				}
				r.Strength++
				if strings.Count(r.Description, "\n") < maxDescSentences-1 {
					if r.Description != "" {
						r.Description += "\n"
					}
					r.Description += textutil.Clip(sentences[si].text, maxSentenceRunes)
				}
			}
		}
	}
	for _, p := range pairs {
		res.Relations = append(res.Relations, *rels[p])
	}
	return res, nil
}

// Sentence is a sentence of text with its words.
type Sentence struct {
	text  string
	words []word
}

type word struct {
	text string // without trailing possessive
	// joins is true when nothing but spaces separates this word from the previous one, so the
	// two may belong to one name; punctuation such as a comma or a parenthesis breaks names.
	joins bool
}

// Sentences splits text into sentences: at ., ! or ? followed by white space and an upper-case
// letter, a quote or a digit; at blank lines; and around Markdown headings, list items and
// lines that end without punctuation. Heading lines are dropped: they are captions in Title Case,
// where capitalization says nothing about names.
func Sentences(text string) []Sentence {
	var out []Sentence
	for _, para := range strings.Split(text, "\n") {
		line := strings.TrimSpace(para)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimLeft(line, "-*> ")
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c != '.' && c != '!' && c != '?' {
				continue
			}
			j := i + 1
			for j < len(line) && (line[j] == '"' || line[j] == '\'' || line[j] == ')') {
				j++
			}
			if j >= len(line) || line[j] != ' ' {
				continue
			}
			k := j
			for k < len(line) && line[k] == ' ' {
				k++
			}
			if k < len(line) {
				r, _ := utf8.DecodeRuneInString(line[k:])
				if !unicode.IsUpper(r) && !unicode.IsDigit(r) && r != '"' && r != '“' && r != '\'' {
					continue
				}
			}
			if c == '.' && isAbbreviation(line[start:i]) {
				continue
			}
			out = appendSentence(out, line[start:j])
			start = k
		}
		out = appendSentence(out, line[start:])
	}
	return out
}

func appendSentence(out []Sentence, s string) []Sentence {
	s = strings.TrimSpace(s)
	if s == "" {
		return out
	}
	return append(out, Sentence{text: s, words: splitWords(s)})
}

func isAbbreviation(before string) bool {
	i := strings.LastIndexByte(before, ' ')
	last := before[i+1:]
	switch last {
	case "Dr", "Mr", "Mrs", "Ms", "St", "Mt", "Capt", "Gen", "Prof", "Sr", "Jr", "Inc", "Ltd", "Co", "vs", "No", "Fig", "e.g", "i.e", "U.S", "U.K":
		return true
	}
	// Single capital letters are initials ("J. Marrow").
	return utf8.RuneCountInString(last) == 1 && unicode.IsUpper([]rune(last)[0])
}

func splitWords(s string) []word {
	var words []word
	var cur strings.Builder
	joins := false
	gap := ""
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		w := cur.String()
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		w = strings.Trim(w, "-")
		if w != "" {
			words = append(words, word{text: w, joins: joins && len(words) > 0})
		}
		cur.Reset()
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '\'' || r == '’' || r == '&' {
			if cur.Len() == 0 {
				joins = strings.TrimSpace(gap) == ""
				gap = ""
			}
			cur.WriteRune(r)
			continue
		}
		flush()
		gap += string(r)
	}
	flush()
	return words
}

type span struct {
	name, typ string
}

// connectors may sit inside a name between capitalized words ("Bank of the West").
var connectors = map[string]bool{"of": true, "the": true, "de": true, "du": true, "da": true, "van": true, "von": true, "der": true, "la": true, "le": true, "&": true, "al": true, "bin": true}

// spans returns the proper-noun spans of a sentence.
func spans(s Sentence, capitalizedInside map[string]bool) []span {
	var out []span
	ws := s.words
	for i := 0; i < len(ws); {
		if !isCapitalized(ws[i].text) {
			i++
			continue
		}
		j := i + 1 // exclusive end
		end := j
		for j < len(ws) && ws[j].joins {
			if isCapitalized(ws[j].text) {
				j++
				end = j
				continue
			}
			if connectors[ws[j].text] {
				j++
				continue
			}
			break
		}
		words := ws[i:end]
		// A sentence-initial capital is grammar, not a name, unless the word is capitalized
		// elsewhere too.
		if i == 0 {
			for len(words) > 0 && (isStopWord(words[0].text) || (len(words) == 1 && !capitalizedInside[words[0].text])) {
				words = words[1:]
			}
		}
		for len(words) > 0 && (isStopWord(words[0].text) || connectors[strings.ToLower(words[0].text)]) {
			words = words[1:]
		}
		if len(words) > 0 && len(words) <= maxSpanWords {
			name := joinWords(words)
			name = strings.TrimRight(name, "'’")
			if keepName(name) {
				out = append(out, span{name: name, typ: entityType(words, ws, i)})
			}
		}
		i = end
	}
	return out
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

func keepName(name string) bool {
	if utf8.RuneCountInString(name) < 2 {
		return false
	}
	if calendar[name] {
		return false
	}
	return strings.IndexFunc(name, unicode.IsLetter) >= 0
}

func isCapitalized(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func isStopWord(w string) bool { return sentenceStarters[strings.ToLower(w)] }

// sentenceStarters are capitalized at the start of a sentence or in titles but never names.
var sentenceStarters = toSet(`a an the this that these those there here it its in on at by for from
	to of with as after before when while during since until if but and or so yet however although
	though because meanwhile today yesterday tomorrow then now also each every some many most all
	both he she they we you i his her their our your my one two three four five first second third
	last next new no not what which who whom where why how according despite under over into
	among between through without within across behind beyond around near toward towards upon
	mr mrs ms dr prof
	additionally furthermore moreover instead still nevertheless nonetheless therefore thus hence
	otherwise indeed likewise similarly consequently finally overall currently recently
	previously earlier later initially ultimately eventually notably specifically importantly
	unlike whether such other another more less further including regarding besides altogether
	perhaps certainly clearly fortunately unfortunately interestingly surprisingly`)

var calendar = toSet(`January February March April May June July August September October November
	December Monday Tuesday Wednesday Thursday Friday Saturday Sunday`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func entityType(name []word, sentence []word, at int) string {
	last := strings.ToLower(name[len(name)-1].text)
	firstWord := strings.ToLower(name[0].text)
	for _, th := range typeHeads {
		if th.words[last] || (th.typ == "event" && len(name) > 1 && th.words[firstWord]) {
			return th.typ
		}
	}
	if len(name) > 1 && locationFirstWords[firstWord] {
		return "location"
	}
	if at > 0 {
		switch strings.ToLower(sentence[at-1].text) {
		case "in", "at", "near", "from", "across", "to", "into", "outside", "inside":
			return "location"
		case "mr", "mrs", "ms", "dr", "captain", "professor", "prof", "sir", "lady", "lord", "king", "queen", "president", "minister", "ceo", "founder", "judge":
			return "person"
		}
	}
	if len(name) >= 2 && len(name) <= 3 {
		allNames := true
		for _, w := range name {
			if !isCapitalized(w.text) || strings.ContainsAny(w.text, "&0123456789") {
				allNames = false
			}
		}
		if allNames {
			return "person"
		}
	}
	return "other"
}

// typeHeads maps the head word of a name to its type, first match wins ("Harbor Guild" is an
// organization, "Treaty of Vell" an event).
var typeHeads = []struct {
	typ   string
	words map[string]bool
}{
	{"organization", toSet(`guild company council university college academy bank society ministry court
		party inc corp corporation ltd group league order union institute foundation agency
		commission committee department office association federation navy army fleet house
		press times post journal club school trust fund exchange authority board`)},
	{"event", toSet(`treaty war battle festival plague trial summit conference election siege fire
		flood accord dispute revolt rebellion uprising crisis expedition fair games strike`)},
	{"location", toSet(`city town village island islands isle port harbor harbour bay sea ocean river
		lake mountain mountains valley street road square district province county state kingdom
		republic coast cape strait lighthouse tower bridge market quarter archipelago quay
		dock docks pier wharf reef shoals`)},
	{"product", toSet(`engine lamp compass ship vessel device machine app phone model`)},
	{"technology", toSet(`protocol algorithm method process system technique`)},
}

// locationFirstWords start place names ("Port Avel", "Cape Wrath").
var locationFirstWords = toSet(`port mount lake cape fort isle saint st`)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
