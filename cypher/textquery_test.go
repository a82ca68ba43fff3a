package cypher

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
)

func TestLuceneQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"river zebra", "river zebra"},
		{"River RIVER river", "river"},
		{"river, River. (river)", "river,"}, // one term to the analyzer: counted once
		{`AND "zebra`, `and \"zebra`},
		{"NOT zebra OR TO", "not zebra or to"},
		{"zebra*", `zebra\*`},
		{"+zebra -river", `\+zebra \-river`},
		{"title:zebra", `title\:zebra title zebra`}, // whole, as "c:a" is indexed, and split
		{"title:", `title\:`},
		{"NEAR(zebra plain)", `near\(zebra plain\)`},
		{"{zebra} [a TO z] zebra^2 zebra~ /re.*/", `\{zebra\} \[a to z\] zebra\^2 zebra\~ \/re.\*\/`},
		{`" ' \ * : ~ && || ! - _`, ""},
		{"", ""},
		{" \t\n\u3000", ""},
		{"a\u3000AND", "a and"}, // Lucene's parser splits on the ideographic space too
		{"¿dónde está el río?", `¿dónde está el río\?`},
		{"cafe\u0301 au lait", "cafe\u0301 au lait"},
		// Kept whole, as the index's analyzer keeps them in the indexed text, and with the runs
		// of letters inside them, which the indexed text may hold alone.
		{"O'Brien U.S. 3.14 foo_bar पुस्तक", `o'brien brien u.s. 3.14 foo_bar foo bar पुस्तक`},
		{"Fenwick's", `fenwick's fenwick`},
		{"brinewright's Brinewright", `brinewright's brinewright`},
		{"covid-19", `covid\-19`},
		{`trailing\`, `trailing\\`},
		{"東京 タワー", "東京 タワー"},
		{"🙂", "🙂"}, // the analyzer indexes emoji
		{"\xff\xfeok", "\ufffd\ufffdok"},
	} {
		if got := luceneQuery(tc.in); got != tc.want {
			t.Errorf("luceneQuery(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLuceneQueryBounded: inputs that are few words but many terms to the analyzer stay within
// the term bound, and long ones within the byte bound.
func TestLuceneQueryBounded(t *testing.T) {
	var words []string
	for i := range 1000 {
		words = append(words, "w"+strconv.Itoa(i))
	}
	for _, tc := range []struct {
		name, in string
	}{
		{"distinct words", strings.Join(words, " ")},
		{"comma-separated letters", strings.Repeat("x,", 5000)},
		{"ideographs", strings.Repeat("東", 5000)},
		{"alternating scripts", strings.Repeat("aタ", 3000)},
		{"emoji", strings.Repeat("🙂", 3000)},
		{"one long word", strings.Repeat("x", 100000)},
		{"colons", strings.Join(words, ":")},
		{"punctuation", "a" + strings.Repeat(`"`, 100000)},
	} {
		q := luceneQuery(tc.in)
		if n := queryTerms(q); n == 0 || n > maxQueryTerms {
			t.Errorf("%s: query has %d terms, want 1 to %d", tc.name, n, maxQueryTerms)
		}
		if len(q) > maxQueryBytes {
			t.Errorf("%s: query has %d bytes, want at most %d", tc.name, len(q), maxQueryBytes)
		}
	}
}

// queryTerms recounts the terms of a query as termCut estimates them.
func queryTerms(q string) int {
	n := 0
	for _, w := range strings.Fields(q) {
		_, c := termCut(w, len(w)+1)
		n += c
	}
	return n
}

func TestTermCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		cut  string
		want int
	}{
		{"river", 10, "river", 1},
		{"o'brien", 10, "o'brien", 2}, // one term in fact: an over-estimate is safe
		{"पुस्तक", 10, "पुस्तक", 1},   // vowel signs and virama are marks inside the word
		{"cafe\u0301", 10, "cafe\u0301", 1},
		{"\u0301x", 10, "\u0301x", 2},
		{"東京", 10, "東京", 2},
		{"タワー", 10, "タワー", 1},
		{"abcタワー123", 10, "abcタワー123", 3},
		{"서울abc", 10, "서울abc", 2},
		{"ไทย", 10, "ไทย", 3},
		{"🙂🙂", 10, "🙂🙂", 2},
		{strings.Repeat("x", 450), 10, strings.Repeat("x", 450), 3},
		{strings.Repeat("𝑥", 150), 10, strings.Repeat("𝑥", 150), 2}, // 300 UTF-16 units
		{"a,b,c", 2, "a,b,", 2},
		{"東京タワー", 2, "東京", 2},
		{"(((", 10, "(((", 0},
	} {
		cut, n := termCut(tc.in, tc.max)
		if cut != tc.cut || n != tc.want {
			t.Errorf("termCut(%.20q, %d) = %.20q, %d; want %.20q, %d", tc.in, tc.max, cut, n, tc.cut, tc.want)
		}
	}
}

func TestCutEscaped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{`ab\:c`, 3, `ab`},
		{`ab\:c`, 4, `ab\:`},
		{"aé", 2, "a"},
		{"aé", 3, "aé"},
		{`\\`, 1, ""},
	} {
		if got := cutEscaped(tc.in, tc.max); got != tc.want {
			t.Errorf("cutEscaped(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// FuzzLuceneQuery: whatever the text, the query is valid UTF-8, every Lucene syntax character
// in it is escaped (so the parser sees plain terms), it is empty only when the text holds
// nothing to search (Lucene rejects an empty query), and it stays within the term and byte
// bounds.
func FuzzLuceneQuery(f *testing.F) {
	for _, s := range []string{
		`a "b" c`, `\`, `x\`, `&&`, `a:b(c)`, "O'Brien", "U.S.", "3.14", "foo_bar", "AND OR NOT", "\u0915\u093f",
		"🙂 zebra", "title:", ":::", "a\u3000b", "\xff", strings.Repeat("x,", 600), strings.Repeat("東", 600),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := luceneQuery(text)
		if !utf8.ValidString(q) {
			t.Fatalf("luceneQuery(%q) = %q is not UTF-8", text, q)
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
		if (q == "") != !strings.ContainsFunc(text, searchable) {
			t.Fatalf("luceneQuery(%q) = %q", text, q)
		}
		if q != "" && strings.TrimSpace(q) != q {
			t.Fatalf("luceneQuery(%q) = %q has white space at its ends", text, q)
		}
		if n := queryTerms(q); n > maxQueryTerms || len(q) > maxQueryBytes {
			t.Fatalf("luceneQuery(%.40q): %d terms, %d bytes", text, n, len(q))
		}
	})
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

// TestTextWindowMatchesStatement: textWindow is the window search_text.cypher asks Lucene for;
// if they disagree, TextSearch cannot tell when ties go on past the window.
func TestTextWindowMatchesStatement(t *testing.T) {
	qs, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\{limit: (\d+) \* \$k \+ (\d+)\}`).FindStringSubmatch(qs[qSearchText].text)
	if m == nil {
		t.Fatalf("no {limit: a * $k + b} in %s", qSearchText)
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	for _, k := range []int{1, 10, 1000} {
		if got, want := textWindow(k), a*k+b; got != want {
			t.Errorf("textWindow(%d) = %d, the statement asks for %d", k, got, want)
		}
	}
}

// TestTextSearchTies: Lucene keeps, among equal scores, the nodes it indexed first; TextSearch
// keeps those first by id, searching again with a wider window while the tie fills it.
func TestTextSearchTies(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	// 40 nodes of one score, indexed in the reverse order of their ids.
	const n = 40
	f.answer = func(name string, params map[string]any) ([]map[string]any, error) {
		if name != qSearchText {
			return nil, nil
		}
		limit := textWindow(int(params["k"].(int64)))
		var rows []map[string]any
		for i := n - 1; i >= 0 && len(rows) < limit; i-- {
			rows = append(rows, map[string]any{"id": fmt.Sprintf("n%02d", i), "score": 1.0})
		}
		// The statement orders by score, then id.
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
		return rows, nil
	}
	hits, err := s.TextSearch(t.Context(), graph.ChunkText, "tide", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitsString(hits); got != "n00:1.000 n01:1.000" {
		t.Errorf("hits = %s, want n00 n01", got)
	}
	var ks []int64
	for _, c := range f.only(qSearchText) {
		ks = append(ks, c.params["k"].(int64))
	}
	// Windows of 14 and 38 nodes are all tied; the third, 86, holds every match.
	if fmt.Sprint(ks) != "[2 14 38]" {
		t.Errorf("searched with k = %v, want [2 14 38]", ks)
	}
}

// TestTextSearchOnServer: on a real server, no user text can make Lucene fail (parse errors,
// too many clauses), on either index; words the analyzer keeps whole find their chunk; the k
// best are chosen by id among equal scores, as the embedded store chooses them.
func TestTextSearchOnServer(t *testing.T) {
	_, cfg := emptyServer(t)
	s := openTestStore(t, cfg)
	ctx := t.Context()

	texts := []struct{ id, text string }{
		{"apostrophe", "Captain O'Brien sailed at dawn."},
		{"dots", "The U.S. envoy arrived late."},
		{"decimal", "Pi is about 3.14 in the ledger."},
		{"underscore", "The field foo_bar holds the tally."},
		{"devanagari", "पुस्तक मेज़ पर है।"},
		{"emoji", "The keeper smiled 🙂 at the harbour."},
		{"zebra", "A zebra crossed the causeway."},
		{"plain", "Nothing special happens here."},
	}
	b := graph.Batch{Documents: []graph.Document{{ID: "d", Metadata: "{}"}}}
	for i, c := range texts {
		b.Chunks = append(b.Chunks, graph.Chunk{ID: c.id, DocumentID: "d", Seq: i, Text: c.text})
	}
	// Equal scores: the same text, written in the reverse order of the ids.
	for i := 29; i >= 0; i-- {
		b.Chunks = append(b.Chunks, graph.Chunk{ID: fmt.Sprintf("tie-%02d", i), DocumentID: "d", Seq: 100 + i, Text: "tidewater"})
	}
	b.Entities = []graph.Entity{{ID: "MAREN QUILL", Name: "Maren Quill", Type: "person", Description: "An engineer of tides."}}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	emb, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if err := emb.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	stores := []struct {
		name  string
		store graph.Searcher
	}{{"neo4j", s}, {"embedded", emb}}

	for _, tc := range []struct {
		query, want string
		neo4jOnly   bool // the embedded store's tokenizer does not index it
	}{
		{"O'Brien", "apostrophe", false},
		{"U.S.", "dots", false},
		{"3.14", "decimal", false},
		{"foo_bar", "underscore", false},
		{"पुस्तक", "devanagari", false},
		{"title:zebra", "zebra", false},
		{"(zebra) AND", "zebra", false},
		{"🙂", "emoji", true},
	} {
		for _, st := range stores {
			if tc.neo4jOnly && st.name != "neo4j" {
				continue
			}
			hits, err := st.store.TextSearch(ctx, graph.ChunkText, tc.query, 3)
			if err != nil || len(hits) == 0 || hits[0].ID != tc.want {
				t.Errorf("%s: TextSearch(%q) = %v, %v; want %s first", st.name, tc.query, hits, err, tc.want)
			}
		}
	}

	for _, k := range []int{3, 25} {
		want := make([]string, k)
		for i := range want {
			want[i] = fmt.Sprintf("tie-%02d", i)
		}
		for _, st := range stores {
			hits, err := st.store.TextSearch(ctx, graph.ChunkText, "tidewater", k)
			var got []string
			for _, h := range hits {
				got = append(got, h.ID)
			}
			if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: TextSearch(tidewater, %d) = %v, %v; want %v (ties by id)", st.name, k, got, err, want)
			}
		}
	}

	var distinct []string
	for i := range 5000 {
		distinct = append(distinct, "w"+strconv.Itoa(i))
	}
	nasty := []string{
		`"unbalanced`, `back\slash`, `trailing\`, `\`, `&&`, `||`, `a && b || c`, `title:plain`, `:`, `(plain`,
		`plain)`, `(`, `)`, `AND`, `OR`, `NOT`, `AND OR NOT`, `plain AND`, `NOT plain`, `[a TO z]`, `{x}`,
		`plain^3`, `plain~2`, `/regex.*/`, `*`, `?`, `!plain`, `-`, `+`, `"`, `'`, `''`, "🙂", "🙂 plain",
		"👩\u200d👩\u200d👧", "\u0000plain", "\u3000", "tab\tAND", "ı İ ß", "\xff\xfe bad utf8", "",
		strings.Repeat("plain ", 2000), strings.Repeat("x", 10000), strings.Repeat("x,", 5000),
		strings.Repeat("東", 5000), strings.Repeat("aタ", 3000), strings.Repeat("🙂", 3000),
		strings.Repeat("ไทย", 2000), strings.Repeat(`\"`, 5000), strings.Join(distinct, " "),
		strings.Join(distinct, ":"), strings.Repeat("a:", 3000), strings.Repeat("서울a", 2000),
	}
	for _, q := range nasty {
		for _, index := range []graph.TextIndex{graph.ChunkText, graph.EntityText} {
			if _, err := s.TextSearch(ctx, index, q, 5); err != nil {
				t.Errorf("TextSearch(%s, %.40q): %v", index, q, err)
			}
		}
	}
}
