package retrieval

import (
	"unicode"
	"unicode/utf8"
)

// eachWord calls f with every word of s, lower-cased: runs of letters, digits and marks, as the
// full-text index splits them. The word is only valid during the call (it lives in buf, which
// eachWord returns for reuse). It reads texts of thousands of characters per query without
// building strings: looking a word up as m[string(w)] does not allocate.
func eachWord(s string, buf []byte, f func(w []byte)) []byte {
	buf = buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+'a'-'A')
			default:
				if len(buf) > 0 {
					f(buf)
					buf = buf[:0]
				}
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		} else if len(buf) > 0 {
			f(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		f(buf)
	}
	return buf
}

// wordsOf returns the words of s as eachWord reads them.
func wordsOf(s string) []string {
	var out []string
	eachWord(s, nil, func(w []byte) { out = append(out, string(w)) })
	return out
}

// phraseMatcher finds a phrase (its words, as eachWord reads them) in a stream of words.
type phraseMatcher struct {
	words   []string
	matched int
	found   bool
}

// next feeds the next word of the text.
func (m *phraseMatcher) next(w []byte) {
	if m.found || len(m.words) == 0 {
		return
	}
	if string(w) == m.words[m.matched] {
		m.matched++
	} else if string(w) == m.words[0] {
		m.matched = 1
	} else {
		m.matched = 0
	}
	if m.matched == len(m.words) {
		m.found = true
	}
}

// end marks the end of one text: a phrase does not run on into the next.
func (m *phraseMatcher) end() { m.matched = 0 }
