package cypher

import (
	"strings"
	"testing"
)

func TestLuceneQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"river zebra", "river zebra"},
		{"River RIVER river", "river"},
		{`AND "zebra`, `and \"zebra`},
		{"NOT zebra OR TO", "not zebra or to"},
		{"zebra*", `zebra\*`},
		{"+zebra -river", `\+zebra \-river`},
		{"title:zebra", `title\:zebra`},
		{"NEAR(zebra plain)", `near\(zebra plain\)`},
		{"{zebra} [a TO z] zebra^2 zebra~ /re.*/", `\{zebra\} \[a to z\] zebra\^2 zebra\~ \/re.\*\/`},
		{`" ' \ * : ~ && || ! -`, ""},
		{"", ""},
		{"   ", ""},
		{"¿dónde está el río?", `¿dónde está el río\?`},
		{"cafe\u0301 au lait", "cafe\u0301 au lait"}, // combining accent stays in the word
		// Kept whole, as the index's analyzer keeps them in the indexed text.
		{"O'Brien U.S. 3.14 foo_bar", `o'brien u.s. 3.14 foo_bar`},
		{"covid-19", `covid\-19`},
		{"trailing\\", `trailing\\`},
		{"東京 タワー", "東京 タワー"},
	} {
		if got := luceneQuery(tc.in); got != tc.want {
			t.Errorf("luceneQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzLuceneQuery: whatever the text, every Lucene syntax character in the query is escaped (so
// the parser sees plain terms), and the query stays within the clause bound.
func FuzzLuceneQuery(f *testing.F) {
	for _, s := range []string{`a "b" c`, `\`, `x\`, `&&`, `a:b(c)`, "O'Brien", "AND OR NOT", "\u0915\u093f", "🙂 zebra"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := luceneQuery(text)
		if n := len(strings.Fields(q)); n > maxQueryWords {
			t.Fatalf("%d words", n)
		}
		escaped := false
		for _, r := range q {
			switch {
			case escaped:
				escaped = false
			case r == '\\':
				escaped = true
			case strings.ContainsRune(`+-&|!(){}[]^"~*?:/`, r):
				t.Fatalf("luceneQuery(%q) = %q: unescaped %q", text, q, r)
			}
		}
		if escaped {
			t.Fatalf("luceneQuery(%q) = %q ends in a lone backslash", text, q)
		}
	})
}

func TestLuceneQueryBounded(t *testing.T) {
	var words []string
	for i := range 1000 {
		words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26)))
	}
	if n := len(strings.Fields(luceneQuery(strings.Join(words, " ")))); n > maxQueryWords {
		t.Errorf("query has %d words, want at most %d", n, maxQueryWords)
	}
}

func TestEscapeLucene(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{`a+b-c&&d||e!f(g)h{i}j[k]l^m"n~o*p?q:r\s/t`, `a\+b\-c\&\&d\|\|e\!f\(g\)h\{i\}j\[k\]l\^m\"n\~o\*p\?q\:r\\s\/t`},
	} {
		if got := escapeLucene(tc.in); got != tc.want {
			t.Errorf("escapeLucene(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
