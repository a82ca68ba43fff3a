package cypher

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQueryTerms bounds the terms a full-text query can hand to Lucene, which refuses a query of
// more than 1024 clauses (IndexSearcher.maxClauseCount). The clauses are counted after analysis
// and once per indexed property (entity_text indexes two), so a bound on white-space separated
// words is no bound: "a,b,c,…" is one word and thousands of terms, and so is a line of Chinese,
// one term per ideograph. 256 estimated terms are at most 512 clauses.
const maxQueryTerms = 256

// maxQueryBytes bounds the query text: a word can carry any amount of punctuation that the
// analyzer drops.
const maxQueryBytes = 32 << 10

// maxTokenRun is how many UTF-16 units of one run of word characters are counted as one term:
// the analyzer cuts tokens longer than 255 units into pieces, each a clause.
const maxTokenRun = 200

// luceneQuery turns free text into a Lucene query that can only mean "any of these words".
// TextSearch promises plain words, never query syntax. The text is split on white space only,
// as Lucene's query parser does, and every character the parser treats as syntax is escaped,
// so that the index's analyzer (standard-no-stop-words, Unicode word rules) splits each word
// as it split the indexed text: "O'Brien", "U.S.", "3.14", "foo_bar" and words with combining
// marks stay whole on both sides and match. Splitting on every non-letter instead would search
// "o" and "brien", which the index never holds.
//
// The analyzer also keeps "fenwick's" and "title:zebra" whole, so such a word alone would miss
// every text that says "Fenwick" or "zebra": it also brings its runs of letters (see
// queryWords). Words without a letter, digit or symbol ("&&", "-") carry no term and are
// dropped; the rest are lower-cased, which also turns the operator words AND, OR and NOT into
// ordinary terms. Words that differ only in case or in surrounding punctuation ("river," and
// "River") are kept once: the analyzer makes one term of them, which would otherwise count twice
// in the BM25 score. The terms are bounded by maxQueryTerms (see termCut) and the text by
// maxQueryBytes. An empty result means "no query": Lucene rejects an empty one.
func luceneQuery(text string) string {
	seen := map[string]bool{}
	var b strings.Builder
	budget := maxQueryTerms
	for w := range queryWords(text) {
		if budget == 0 {
			break
		}
		key := strings.TrimFunc(w, edgePunct)
		if seen[key] {
			continue
		}
		seen[key] = true
		w, n := termCut(w, budget)
		budget -= n
		w = escapeLucene(w)
		room := maxQueryBytes - b.Len() - 1
		if room <= 0 {
			break
		}
		if len(w) > room {
			if w = cutEscaped(w, room); w == "" {
				break
			}
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// queryWords yields the lower-cased white-space separated words of text that hold something to
// search, each followed by the runs of letters inside the terms the analyzer makes of it by
// joining them: Unicode's word rules keep "fenwick's", "o'brien", "title:zebra" and "foo_bar"
// as one term each, which alone would miss every text that says "Fenwick" or "zebra". Runs of
// one character ("o", the "s" of a possessive) would match every stray initial and are left
// out, and so are runs without a letter (the "14" of "3.14").
func queryWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for w := range strings.FieldsSeq(text) {
			if !strings.ContainsFunc(w, searchable) {
				continue
			}
			w = strings.ToLower(w)
			if !yield(w) {
				return
			}
			// The analyzer splits the word at other punctuation ("covid-19") by itself.
			for term := range strings.FieldsFuncSeq(w, func(r rune) bool { return !wordRune(r) && !joiner(r) }) {
				if !strings.ContainsFunc(term, joiner) {
					continue
				}
				for run := range strings.FieldsFuncSeq(term, func(r rune) bool { return !wordRune(r) }) {
					if utf8.RuneCountInString(run) >= 2 && strings.ContainsFunc(run, unicode.IsLetter) && !yield(run) {
						return
					}
				}
			}
		}
	}
}

// wordRune reports whether r belongs to a run of letters, digits and marks.
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// joiner reports whether Unicode's word rules (UAX #29: MidLetter, MidNumLet, ExtendNumLet) join
// the letters on both sides of r into one term: apostrophes, full stops, colons, middle dots,
// and connector punctuation such as "_".
func joiner(r rune) bool {
	return strings.ContainsRune("'.:\u00b7\u0387\u05f4\u2018\u2019\u2024\u2027\ufe13\ufe52\ufe55\uff07\uff0e\uff1a", r) ||
		unicode.Is(unicode.Pc, r)
}

// searchable reports whether the analyzer may make a term of r: letters and digits, and symbols
// (it indexes emoji).
func searchable(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.So, r)
}

// edgePunct is the punctuation that the analyzer drops at the start and end of a word. Connector
// punctuation ("_") is part of a word there.
func edgePunct(r rune) bool {
	return unicode.IsPunct(r) && !unicode.Is(unicode.Pc, r)
}

// termClass is how the analyzer groups a character into terms, coarsened so that termCut
// over-estimates and never under-estimates the terms of a word.
type termClass int

const (
	classNone     termClass = iota // punctuation, controls, format characters: no term, ends one
	classSingle                    // ideographs, kana, South-East Asian scripts, symbols: a term each
	classMark                      // combining marks: part of the term before them
	classKatakana                  // runs of Katakana are one term, apart from other letters
	classHangul                    // runs of Hangul are one term, apart from other letters
	classWord                      // other letters, digits and "_": runs are one term
)

func classOf(r rune) termClass {
	switch {
	case unicode.IsMark(r):
		return classMark
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Thai, unicode.Lao, unicode.Myanmar,
		unicode.Khmer, unicode.Tai_Le, unicode.New_Tai_Lue, unicode.Tai_Tham, unicode.Tai_Viet),
		unicode.IsSymbol(r):
		return classSingle
	case unicode.Is(unicode.Katakana, r) || r == 'ー' || r == 'ｰ': // the prolonged sound marks are Katakana to the word rules
		return classKatakana
	case unicode.Is(unicode.Hangul, r):
		return classHangul
	case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r):
		return classWord
	}
	return classNone
}

// termCut returns the longest prefix of w, a text without white space, of which the analyzer
// makes at most max terms, and an upper bound of those terms. The bound counts a term for every
// run of word characters (cut every maxTokenRun UTF-16 units), for every change between
// Katakana, Hangul and other letters, and for every character of the scripts the analyzer
// splits into single characters; Unicode's word rules never split a word more finely.
func termCut(w string, max int) (string, int) {
	n, run := 0, 0
	prev := classNone
	for i, r := range w {
		c := classOf(r)
		units := 1
		if r >= 0x10000 {
			units = 2 // a surrogate pair in Lucene's UTF-16
		}
		var start bool
		switch c {
		case classNone:
			prev = classNone
			continue
		case classSingle:
			start = true
		case classMark:
			start = prev == classNone || prev == classSingle
			if !start {
				c = prev // a mark continues the run it belongs to
			}
		default:
			start = c != prev
		}
		if !start && run+units > maxTokenRun {
			start = true
		}
		if start {
			if n == max {
				return w[:i], n
			}
			n++
			run = 0
		}
		run += units
		prev = c
	}
	return w, n
}

// cutEscaped shortens an escaped query word to at most max bytes without splitting a character
// or an escape.
func cutEscaped(w string, max int) string {
	end := 0
	for i := 0; i < len(w); {
		n := 1
		if w[i] == '\\' {
			n = 2
		} else if _, size := utf8.DecodeRuneInString(w[i:]); size > 1 {
			n = size
		}
		if i+n > max {
			break
		}
		i += n
		end = i
	}
	return w[:end]
}

// escapeLucene backslash-escapes the characters that Lucene's classic query parser treats as
// syntax. Bytes that are not UTF-8 become U+FFFD, so that the query is valid text for Bolt.
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

// maxTextWindow bounds how many nodes TextSearch asks Lucene for when ties at the k-th score go
// on: beyond it, which of the tied nodes are kept is Lucene's choice.
const maxTextWindow = 10000

// textWindow is how many nodes search_text.cypher returns for its $k: its {limit: 2 * $k + 10}.
func textWindow(k int) int {
	return 2*k + 10
}
