package load

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// extractPDF reads a PDF's text layer page by page: glyphs grouped into lines by their baseline,
// lines into paragraphs by the vertical gaps and indents between them, lines repeated at the top
// or bottom of most pages (running headers, footers, page numbers) dropped, words hyphenated at
// a line end joined (pdfwalk.go draws the glyphs). The title is the Info dictionary's, else the largest line of the first
// page when it stands out; author, creation date and page count go into the metadata, and
// Pages records where each page's text starts.
//
// Reading order is the order of the page's content stream, which is the writing order for the
// producers seen (word processors, browsers, TeX), multi-column layouts included.
func extractPDF(data []byte) (extracted, error) {
	data, err := normalizePDF(data)
	if err != nil {
		return extracted{}, err
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || bytes.Contains(data, []byte("/Encrypt")) {
			return extracted{}, fmt.Errorf("%w (PDF: %v)", ErrEncrypted, err)
		}
		return extracted{}, corrupt("PDF", err)
	}
	if enc := r.Trailer().Key("Encrypt"); !enc.IsNull() && enc.Key("V").Int64() < 4 && enc.Key("Length").Int64() < 128 {
		// RC4 with a key under 128 bits, opened without a password (permissions only): the
		// parser derives each object's key wrongly for it and every stream reads as garbage.
		return extracted{}, fmt.Errorf("%w (PDF: %d-bit RC4, which this reader cannot decrypt)", ErrEncrypted, max(enc.Key("Length").Int64(), 40))
	}
	list := pdfPages(r)
	n := len(list)
	pages := make([][]pdfLine, n)
	w := newPDFWalker()
	drawn := false // some page draws text
	for i, p := range list {
		pages[i] = pageLines(w.page(p))
		drawn = drawn || len(pages[i]) > 0
	}
	dropRunningLines(pages)
	doc := assemblePDF(pages)
	if strings.TrimSpace(doc.Text) == "" {
		if n == 0 {
			return extracted{}, fmt.Errorf("%w: PDF has no pages", ErrEmpty)
		}
		if drawn || w.unmapped > 0 {
			// Text is drawn but none of it reads as characters: OCR would not be the remedy.
			return extracted{}, fmt.Errorf("%w: PDF draws %d glyphs with no Unicode mapping and no other text", ErrEmpty, w.unmapped)
		}
		return extracted{}, ErrNoText
	}
	doc.Unmapped = w.unmapped
	info := r.Trailer().Key("Info")
	doc.Title = pdfTitle(info.Key("Title").Text())
	if doc.Title == "" {
		doc.Title = largestLine(pages)
	}
	doc.Metadata = map[string]any{"pages": n}
	if a := collapseSpace(info.Key("Author").Text()); a != "" {
		doc.Metadata["author"] = a
	}
	if c, ok := pdfDate(info.Key("CreationDate").Text()); ok {
		doc.Metadata["created"] = c
	}
	return doc, nil
}

// normalizePDF checks the header and prepares the bytes the reader accepts: it wants "%PDF-1.x"
// and a line end at the very start and "%%EOF" at the very end, which PDF 2.0 files, headers
// followed by a comment, and files with bytes after the last "%%EOF" do not have. The changes
// keep every byte offset; a file that needs none is not copied.
func normalizePDF(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte("%PDF-")) || len(data) < 16 {
		return nil, fmt.Errorf("%w: not a PDF file (no %%PDF- header)", ErrCorrupt)
	}
	end := bytes.LastIndex(data, []byte("%%EOF"))
	if end < 0 {
		return nil, fmt.Errorf("%w: PDF truncated (no %%%%EOF)", ErrCorrupt)
	}
	out := data[:end+len("%%EOF")]
	if out[5] == '1' && out[6] == '.' && out[7] >= '0' && out[7] <= '7' && (out[8] == '\r' || out[8] == '\n') {
		return out, nil // as the reader wants it: no copy of a file that may be large
	}
	out = slices.Clone(out)
	if out[5] != '1' || out[6] != '.' || out[7] < '0' || out[7] > '7' {
		copy(out[5:8], "1.7")
	}
	if out[8] != '\r' && out[8] != '\n' {
		out[8] = '\n'
	}
	return out, nil
}

// pdfLine is one line of a page: glyphs sharing a baseline.
type pdfLine struct {
	text string
	x, y float64 // start of the line, baseline
	size float64 // font size of its first glyph
	drop bool    // a running header or footer
}

// pdfPage is a page dictionary and the resources a Pages node above it passes down.
type pdfPage struct {
	v, inherited pdf.Value
}

// resources are the page's own resources, else the inherited ones. They are looked up when the
// page is drawn, not kept: a resources dictionary shared by every page (one XObject per page
// listed in it) would be held once per page, the pages squared.
func (p pdfPage) resources() pdf.Value {
	if r := p.v.Key("Resources"); !r.IsNull() {
		return r
	}
	return p.inherited
}

// maxPageTreeNodes bounds the page tree nodes read, so a tree whose Kids loop back ends.
const maxPageTreeNodes = 1 << 20

// pdfPages lists the pages in order by one walk down the page tree, each node read once, so the
// time is linear in the pages. Resources inherited from a Pages node are passed down rather than
// looked up through each page's Parent, which would read the parent's Kids again for every page.
func pdfPages(r *pdf.Reader) []pdfPage {
	var pages []pdfPage
	nodes := 0
	var visit func(node, res pdf.Value, depth int)
	visit = func(node, res pdf.Value, depth int) {
		kids := node.Key("Kids")
		for i := range kids.Len() {
			if nodes++; nodes > maxPageTreeNodes {
				return
			}
			kid := kids.Index(i)
			switch {
			case kid.Key("Type").Name() == "Pages" || kid.Key("Kids").Kind() == pdf.Array:
				if depth < 64 {
					kres := res
					if r := kid.Key("Resources"); !r.IsNull() {
						kres = r
					}
					visit(kid, kres, depth+1)
				}
			case kid.Kind() == pdf.Dict:
				pages = append(pages, pdfPage{v: kid, inherited: res})
			}
		}
	}
	root := r.Trailer().Key("Root").Key("Pages")
	visit(root, root.Key("Resources"), 0)
	return pages
}

// pageLines groups a page's glyphs into lines in content-stream order. Words are cut where the
// gap between two glyphs is wider than a tenth of the font size, as pdftotext does: TeX and
// justified text place words by moving the text position, with no space glyph between them,
// and a space glyph is a break by the gap it leaves.
func pageLines(glyphs []glyph) []pdfLine {
	var lines []pdfLine
	var b strings.Builder
	var cur pdfLine
	var prevEnd float64 // where the previous glyph ended
	prevUnadvanced := false
	started := false
	end := func() {
		if t := strings.TrimSpace(b.String()); t != "" {
			cur.text = t
			lines = append(lines, cur)
		}
		b.Reset()
		started = false
	}
	for _, g := range glyphs {
		if g.s == "" {
			// A glyph without text (dropped, counted) stands inside its word: the space it
			// takes is no word break.
			if started && math.Abs(g.y-cur.y) <= 0.4*max(g.size, cur.size) {
				prevEnd = g.x + g.w
			}
			continue
		}
		if !g.unadvanced && isSpaceText(g.s) {
			// A space glyph is a word break by the gap it leaves, as any other: producers
			// also draw one narrowed by negative spacing inside a word ("PA T" for "PAT").
			continue
		}
		size := max(g.size, 1)
		if started && math.Abs(g.y-cur.y) > 0.4*max(size, cur.size) {
			end()
		}
		if !started {
			cur = pdfLine{x: g.x, y: g.y, size: size}
			started = true
		} else {
			gap := g.x - prevEnd
			wordGap := 0.1 * size
			if prevUnadvanced || g.unadvanced {
				// Widths guessed: only a clear gap is a word break.
				wordGap = 0.3 * size
			}
			if (gap > wordGap || gap < -2*size) && !endsWithSpace(&b) && !isSpaceText(g.s) {
				// A word gap, or a jump back along the same baseline (text drawn out of order).
				b.WriteByte(' ')
			}
		}
		prevEnd, prevUnadvanced = g.x+g.w, g.unadvanced
		b.WriteString(g.s)
	}
	end()
	return lines
}

func endsWithSpace(b *strings.Builder) bool {
	s := b.String()
	return s == "" || strings.HasSuffix(s, " ")
}

func isSpaceText(s string) bool { return strings.TrimSpace(s) == "" }

// runningKey is a line's text with digits and spacing ignored, so "Page 3 of 9" and
// "Page 4 of 9" compare equal.
func runningKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsDigit(r):
			if !strings.HasSuffix(b.String(), "#") {
				b.WriteByte('#')
			}
		case unicode.IsSpace(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// runningDepth is how many lines at the top and at the bottom of a page can be a running header
// or footer.
const runningDepth = 2

// dropRunningLines marks the lines that repeat, digits aside, among the top or bottom lines of
// more than half of the pages (at least two): running headers, footers and page numbers. When
// that would leave the document no line at all (every page holds only "Page N of the log"),
// those lines are its text and none is dropped.
func dropRunningLines(pages [][]pdfLine) {
	if len(pages) < 2 {
		return
	}
	count := map[string]int{}
	edges := make([][]int, len(pages)) // per page: indexes of its edge lines
	for i, lines := range pages {
		edges[i] = edgeLines(lines)
		seen := map[string]bool{}
		for _, j := range edges[i] {
			k := runningKey(lines[j].text)
			if !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	kept := false
	for i, lines := range pages {
		for _, j := range edges[i] {
			if c := count[runningKey(lines[j].text)]; c >= 2 && 2*c > len(pages) {
				lines[j].drop = true
			}
		}
		for _, l := range lines {
			kept = kept || !l.drop
		}
	}
	if kept {
		return
	}
	for _, lines := range pages {
		for j := range lines {
			lines[j].drop = false
		}
	}
}

// edgeLines returns the indexes of the runningDepth highest and lowest lines of a page.
func edgeLines(lines []pdfLine) []int {
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(lines[b].y, lines[a].y) })
	if len(idx) <= 2*runningDepth {
		return idx
	}
	return append(idx[:runningDepth:runningDepth], idx[len(idx)-runningDepth:]...)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// pageParagraphs joins a page's kept lines into paragraphs.
func pageParagraphs(lines []pdfLine) []string {
	var kept []pdfLine
	for _, l := range lines {
		if !l.drop {
			kept = append(kept, l)
		}
	}
	pitch := linePitch(kept)
	var paras []string
	var cur []byte
	for i, l := range kept {
		if i > 0 && newParagraph(kept[i-1], l, pitch) {
			paras = append(paras, string(cur))
			cur = cur[:0]
		}
		cur = appendLine(cur, l.text)
	}
	if len(cur) > 0 {
		paras = append(paras, string(cur))
	}
	return paras
}

// linePitch is the usual distance between consecutive lines of a page: the median of the
// downward steps.
func linePitch(lines []pdfLine) float64 {
	var steps []float64
	for i := 1; i < len(lines); i++ {
		if d := lines[i-1].y - lines[i].y; d > 0 {
			steps = append(steps, d)
		}
	}
	if len(steps) == 0 {
		return 0
	}
	slices.Sort(steps)
	return steps[len(steps)/2]
}

// newParagraph reports whether line l starts a paragraph after prev: it lies above prev (a new
// column or block) unless it carries on prev's sentence, lies further below than the usual
// pitch, is in another font size, or is indented after a line that ends a sentence.
func newParagraph(prev, l pdfLine, pitch float64) bool {
	d := prev.y - l.y
	switch {
	case d <= 0:
		return !continues(prev.text, l.text) || math.Abs(l.size-prev.size) > 0.1*max(l.size, prev.size)
	case pitch > 0 && d > 1.35*pitch:
		return true
	case math.Abs(l.size-prev.size) > 0.1*max(l.size, prev.size):
		return true
	case l.x > prev.x+0.8*l.size && endsSentence(prev.text):
		return true
	}
	return false
}

func endsSentence(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?:;\"”’)", r)
}

// joinLines appends a line to a paragraph: a word hyphenated at the line end ("know-" then
// "ledge") is joined, other lines are separated by a space.
func joinLines(para, line string) string { return string(appendLine([]byte(para), line)) }

// appendLine is joinLines on a paragraph being built, which it extends in place.
func appendLine(para []byte, line string) []byte {
	if len(para) == 0 {
		return append(para, line...)
	}
	if bytes.HasSuffix(para, []byte("\u00ad")) {
		return append(para[:len(para)-len("\u00ad")], line...)
	}
	if hyphenated(string(para[max(0, len(para)-8):]), line) {
		return append(para[:len(para)-1], line...)
	}
	para = append(para, ' ')
	return append(para, line...)
}

// hyphenated reports a word split at a line end: a letter and a hyphen, then a lowercase letter.
func hyphenated(before, after string) bool {
	if !strings.HasSuffix(before, "-") || len(before) < 2 {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(before[:len(before)-1])
	next, _ := utf8.DecodeRuneInString(after)
	return unicode.IsLetter(prev) && unicode.IsLower(next)
}

// assemblePDF joins the pages' paragraphs with blank lines, recording where each page starts. A
// paragraph that runs on to the next page (no sentence end, the next page starting lowercase)
// stays one paragraph.
func assemblePDF(pages [][]pdfLine) extracted {
	size := 0
	for _, lines := range pages {
		for _, l := range lines {
			size += len(l.text) + 2
		}
	}
	b := make([]byte, 0, size)
	starts := make([]int, len(pages))
	for i, lines := range pages {
		paras := pageParagraphs(lines)
		for j, p := range paras {
			switch {
			case len(b) == 0:
			case j == 0 && continues(string(b[max(0, len(b)-8):]), p):
				tail := string(b[max(0, len(b)-8):])
				if strings.HasSuffix(tail, "\u00ad") || hyphenated(tail, p) {
					b = b[:len(b)-len(lastRune(tail))]
				} else {
					b = append(b, ' ')
				}
			default:
				b = append(b, "\n\n"...)
			}
			if j == 0 {
				starts[i] = len(b)
			}
			b = append(b, p...)
		}
		if len(paras) == 0 {
			starts[i] = len(b)
		}
	}
	return extracted{Text: string(b), Pages: starts}
}

func lastRune(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	return s[len(s)-size:]
}

// continues reports a paragraph cut by a page break: the text so far does not end a sentence and
// the next page starts with a lowercase letter.
func continues(before, next string) bool {
	r, _ := utf8.DecodeRuneInString(next)
	return !endsSentence(before) && unicode.IsLower(r)
}

// pdfTitle cleans an Info Title, dropping the placeholders producers write when the author set
// none.
func pdfTitle(t string) string {
	t = collapseSpace(t)
	switch strings.ToLower(t) {
	case "untitled", "untitled document", "title", "document":
		return ""
	}
	return t
}

// largestLine is the first page's line in the largest font, when that font is larger than the
// page's body size (the size most of its characters have): a title or first heading.
func largestLine(pages [][]pdfLine) string {
	if len(pages) == 0 {
		return ""
	}
	var best *pdfLine
	chars := map[float64]int{} // characters per font size
	for i := range pages[0] {
		l := &pages[0][i]
		if l.drop {
			continue
		}
		chars[l.size] += len(l.text)
		if best == nil || l.size > best.size {
			best = l
		}
	}
	if best == nil {
		return ""
	}
	body, most := 0.0, 0
	for size, n := range chars {
		if n > most || n == most && size < body {
			body, most = size, n
		}
	}
	if best.size <= 1.15*body || len(best.text) > 200 {
		return ""
	}
	return best.text
}

var pdfDateRE = regexp.MustCompile(`^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?`)

// pdfDate turns a PDF date ("D:20240131120000+01'00'") into RFC 3339, or just the date when
// the time is not given.
func pdfDate(s string) (string, bool) {
	m := pdfDateRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	num := func(i, def int) int {
		if m[i] == "" {
			return def
		}
		var v int
		fmt.Sscanf(m[i], "%d", &v)
		return v
	}
	year, month, day := num(1, 0), num(2, 1), num(3, 1)
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return "", false
	}
	if m[4] == "" {
		return fmt.Sprintf("%04d-%02d-%02d", year, month, day), true
	}
	loc := time.UTC
	if z := strings.ReplaceAll(m[7], "'", ""); len(z) == 5 {
		var hh, mm int
		fmt.Sscanf(z[1:], "%02d%02d", &hh, &mm)
		off := (hh*60 + mm) * 60
		if z[0] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	t := time.Date(year, time.Month(month), day, num(4, 0), num(5, 0), num(6, 0), 0, loc)
	return t.Format(time.RFC3339), true
}
