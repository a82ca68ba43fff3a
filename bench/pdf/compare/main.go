// Command compare measures how close strata's PDF text is to poppler's pdftotext: for each PDF
// under the paths given, the word-level F1 of the two texts as bags of words (reading order
// aside), printed as a Markdown table.
//
//	go run ./bench/pdf/compare [-v] PATH...
//
// Both texts are normalized alike before counting: control characters removed, NFKC (ligature
// characters become letters on both sides), words hyphenated at a line end joined, punctuation
// trimmed from the ends of words; Chinese and Japanese characters count as a word each. -v
// lists, per file, the words each side has that the other lacks; -text DIR rates another
// engine's texts (DIR/NAME.pdf.txt) in strata's place.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/stratarag/strata/pipeline/load"
)

func main() {
	verbose := flag.Bool("v", false, "list the words each side lacks")
	flag.StringVar(&otherText, "text", "", "rate the texts in this folder (NAME.pdf.txt, another engine's) instead of strata's")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: compare [-v] PATH...")
		os.Exit(2)
	}
	var files []string
	for _, p := range flag.Args() {
		err := filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".pdf") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
	}
	sort.Strings(files)
	fmt.Println("| file | producer | pages | pdftotext words | strata words | F1 | strata ms | pdftotext ms | note |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---|")
	for _, f := range files {
		row, diff := compare(f)
		fmt.Println(row)
		if *verbose && diff != "" {
			fmt.Println(diff)
		}
	}
}

// otherText is a folder of another engine's texts to rate in strata's place ("" for strata).
var otherText string

func compare(path string) (string, string) {
	name := filepath.Base(path)
	info := pdfinfo(path)
	t0 := time.Now()
	ref, err := exec.Command("pdftotext", "-enc", "UTF-8", path, "-").Output()
	refMS := time.Since(t0).Milliseconds()
	if err != nil {
		return fmt.Sprintf("| %s | %s | %s | | | | | | pdftotext: %v |", name, info["Producer"], info["Pages"], err), ""
	}
	t0 = time.Now()
	var text string
	var unmapped int
	note := ""
	if otherText != "" {
		b, err := os.ReadFile(filepath.Join(otherText, name+".txt"))
		if err != nil {
			note = err.Error()
		}
		text = string(b)
	} else {
		problems, err := load.Walk(context.Background(), []string{path}, func(d load.Document) error {
			text, unmapped = d.Text, d.Unmapped
			return nil
		})
		if err != nil {
			note = err.Error()
		}
		for _, p := range problems {
			note = p.Err.Error()
		}
	}
	ms := time.Since(t0).Milliseconds()
	if unmapped > 0 {
		note = strings.TrimPrefix(note+fmt.Sprintf("; %d unmapped glyphs", unmapped), "; ")
	}
	a, b := words(string(ref)), words(text)
	f1, onlyRef, onlyOurs := score(a, b)
	row := fmt.Sprintf("| %s | %s | %s | %d | %d | %.3f | %d | %d | %s |", name, info["Producer"], info["Pages"], len(a), len(b), f1, ms, refMS, note)
	diff := ""
	if len(onlyRef)+len(onlyOurs) > 0 {
		diff = fmt.Sprintf("\n  only pdftotext: %s\n  only strata: %s\n", sample(onlyRef), sample(onlyOurs))
	}
	return row, diff
}

func pdfinfo(path string) map[string]string {
	out := map[string]string{}
	b, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		return out
	}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			v = strings.TrimSpace(v)
			if len(v) > 40 {
				v = v[:40]
			}
			out[k] = strings.ReplaceAll(v, "|", "/")
		}
	}
	return out
}

var hyphenBreak = regexp.MustCompile(`(\pL)[-\x{00AD}]\s*\n\s*(\p{Ll})`)

// words normalizes a text and cuts it into words.
func words(s string) []string {
	// pdftotext writes a glyph it cannot map as its code, a control character at times
	// (pdfTeX's Type 3 bullets as U+0088): no word, on either side.
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	s = norm.NFKC.String(s)
	s = hyphenBreak.ReplaceAllString(s, "$1$2")
	var out []string
	for _, w := range strings.Fields(s) {
		w = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
		if w == "" {
			continue
		}
		if !strings.ContainsFunc(w, isCJK) {
			out = append(out, w)
			continue
		}
		// Chinese and Japanese put no spaces between words: each character counts as one.
		start := 0
		for i, r := range w {
			if isCJK(r) || unicode.IsPunct(r) {
				if i > start {
					out = append(out, w[start:i])
				}
				if isCJK(r) {
					out = append(out, string(r))
				}
				start = i + len(string(r))
			}
		}
		if start < len(w) {
			out = append(out, w[start:])
		}
	}
	return out
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// score returns the bag-of-words F1 of b against a, and the words each lacks.
func score(a, b []string) (float64, map[string]int, map[string]int) {
	ca, cb := map[string]int{}, map[string]int{}
	for _, w := range a {
		ca[w]++
	}
	for _, w := range b {
		cb[w]++
	}
	common := 0
	onlyA, onlyB := map[string]int{}, map[string]int{}
	for w, n := range ca {
		m := cb[w]
		common += min(n, m)
		if n > m {
			onlyA[w] = n - m
		}
	}
	for w, m := range cb {
		if n := ca[w]; m > n {
			onlyB[w] = m - n
		}
	}
	if len(a) == 0 && len(b) == 0 {
		return 1, onlyA, onlyB
	}
	if common == 0 {
		return 0, onlyA, onlyB
	}
	p, r := float64(common)/float64(len(b)), float64(common)/float64(len(a))
	return 2 * p * r / (p + r), onlyA, onlyB
}

// sample lists up to 30 words with their surplus counts, most frequent first.
func sample(m map[string]int) string {
	type wc struct {
		w string
		n int
	}
	var l []wc
	for w, n := range m {
		l = append(l, wc{w, n})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].n > l[j].n || l[i].n == l[j].n && l[i].w < l[j].w })
	var b bytes.Buffer
	for i, x := range l {
		if i == 30 {
			fmt.Fprintf(&b, "… (%d more)", len(l)-30)
			break
		}
		fmt.Fprintf(&b, "%q×%d ", x.w, x.n)
	}
	return b.String()
}
