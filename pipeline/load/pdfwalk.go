package load

import (
	"bytes"
	"math"

	"github.com/ledongthuc/pdf"
)

// glyph is one character drawn on a page, in page space: its text, baseline origin, width (its
// advance without character and word spacing) and font size.
type glyph struct {
	s          string
	x, y, w    float64
	size       float64
	unadvanced bool // width unknown (a glyph the font gives no width for)
}

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: m applied first, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// textState is the part of the graphics state text drawing reads (PDF 32000-1 §9.3).
type textState struct {
	ctm                  matrix
	font                 *pdfFont
	size                 float64 // Tfs
	charSpace, wordSpace float64 // Tc, Tw
	scale, leading, rise float64 // Th (1 = 100%), TL, Ts
}

// pdfWalker draws the pages of one document into glyphs. It keeps the fonts it has read, by
// their dictionary, so a font shared by many pages is read once, and reuses its buffers from
// page to page.
type pdfWalker struct {
	fonts    map[string]*pdfFont
	glyphs   []glyph
	forms    int // form XObjects entered on this page, to bound nesting
	levels   []*walkLevel
	unmapped int // glyphs drawn that have no text
}

// walkLevel holds the buffers of one content stream being read: the page's, or a form's
// inside it.
type walkLevel struct {
	data []byte
	scan contentScanner
}

// maxForms bounds the form XObjects one page may draw, so a form that draws itself ends.
const maxForms = 200

func newPDFWalker() *pdfWalker { return &pdfWalker{fonts: map[string]*pdfFont{}} }

// page returns a page's glyphs in content-stream order; they are valid until the next call.
func (w *pdfWalker) page(p pdfPage) []glyph {
	w.glyphs, w.forms = w.glyphs[:0], 0
	w.walk(p.v.Key("Contents"), p.resources(), identity, 0)
	return w.glyphs
}

// font returns the font of a resource dictionary entry.
func (w *pdfWalker) font(v pdf.Value) *pdfFont {
	if v.Kind() != pdf.Dict {
		return nil
	}
	key := v.String()
	f := w.fonts[key]
	if f == nil {
		f = newPDFFont(v)
		w.fonts[key] = f
	}
	return f
}

// read decodes a content stream, or the streams of an array joined, into the level's buffer.
func (l *walkLevel) read(strm pdf.Value) {
	buf := bytes.NewBuffer(l.data[:0])
	if strm.Kind() == pdf.Array {
		for i := range strm.Len() {
			buf.ReadFrom(strm.Index(i).Reader())
			buf.WriteByte('\n')
		}
	} else {
		buf.ReadFrom(strm.Reader())
	}
	l.data = buf.Bytes()
}

// walk interprets one content stream (or array of streams) drawn with resources res under ctm,
// depth forms deep.
func (w *pdfWalker) walk(strm, res pdf.Value, ctm matrix, depth int) {
	if strm.IsNull() {
		return
	}
	for len(w.levels) <= depth {
		w.levels = append(w.levels, &walkLevel{})
	}
	lv := w.levels[depth]
	lv.read(strm)
	g := textState{ctm: ctm, scale: 1}
	fonts := map[string]*pdfFont{} // by resource name
	var xobjects pdf.Value         // res's XObject dictionary, read at the first Do
	var stack []textState
	var tm, tlm matrix
	show := func(s []byte) {
		f := g.font
		if f == nil {
			return
		}
		for len(s) > 0 {
			code, n := f.next(s)
			s = s[n:]
			w0, known := f.width(code)
			trm := matrix{g.size * g.scale, 0, 0, g.size, 0, g.rise}.mul(tm).mul(g.ctm)
			// The glyph's extent is its width alone: character and word spacing are part of
			// the gap after it, where they separate words as a space does (as in pdftotext).
			ink := w0 * g.size * g.scale
			tx := ink + g.charSpace*g.scale
			if n == 1 && code == ' ' {
				tx += g.wordSpace * g.scale
			}
			next := matrix{1, 0, 0, 1, tx, 0}.mul(tm)
			end := matrix{g.size * g.scale, 0, 0, g.size, 0, g.rise}.mul(matrix{1, 0, 0, 1, ink, 0}.mul(tm)).mul(g.ctm)
			t := f.text(code)
			if t == "" {
				w.unmapped++
			}
			// Positions are taken in the frame of the text's direction, so that text turned a
			// quarter or half turn (a landscape table in a portrait page) runs along x too.
			x, y := turn(trm, trm[4], trm[5])
			endX, _ := turn(trm, end[4], end[5])
			w.glyphs = append(w.glyphs, glyph{
				s: t, x: x, y: y, w: endX - x,
				size: math.Hypot(trm[2], trm[3]) * f.vscale, unadvanced: !known,
			})
			tm = next
		}
	}
	lv.scan.scan(lv.data, func(op []byte, args []operand) {
		num := func(i int) float64 { return args[i].num }
		want := func(k int) bool {
			if len(args) < k {
				return false
			}
			for _, a := range args[len(args)-k:] {
				if a.kind != opNumber {
					return false
				}
			}
			return true
		}
		if len(args) > 6 {
			args = args[len(args)-6:]
		}
		switch string(op) {
		case "q":
			stack = append(stack, g)
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if want(6) {
				a := args[len(args)-6:]
				g.ctm = matrix{a[0].num, a[1].num, a[2].num, a[3].num, a[4].num, a[5].num}.mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if len(args) >= 2 && args[len(args)-2].kind == opName {
				name := args[len(args)-2].bytes
				f, ok := fonts[string(name)]
				if !ok {
					f = w.font(res.Key("Font").Key(string(name)))
					fonts[string(name)] = f
				}
				g.font = f
				g.size = args[len(args)-1].num
			}
		case "Tc":
			if want(1) {
				g.charSpace = num(len(args) - 1)
			}
		case "Tw":
			if want(1) {
				g.wordSpace = num(len(args) - 1)
			}
		case "Tz":
			if want(1) {
				g.scale = num(len(args)-1) / 100
			}
		case "TL":
			if want(1) {
				g.leading = num(len(args) - 1)
			}
		case "Ts":
			if want(1) {
				g.rise = num(len(args) - 1)
			}
		case "Td", "TD":
			if want(2) {
				tx, ty := num(len(args)-2), num(len(args)-1)
				if op[1] == 'D' {
					g.leading = -ty
				}
				tlm = matrix{1, 0, 0, 1, tx, ty}.mul(tlm)
				tm = tlm
			}
		case "Tm":
			if want(6) {
				a := args[len(args)-6:]
				tlm = matrix{a[0].num, a[1].num, a[2].num, a[3].num, a[4].num, a[5].num}
				tm = tlm
			}
		case "T*":
			tlm = matrix{1, 0, 0, 1, 0, -g.leading}.mul(tlm)
			tm = tlm
		case "Tj":
			if len(args) >= 1 && args[len(args)-1].kind == opString {
				show(args[len(args)-1].bytes)
			}
		case "'", "\"":
			if op[0] == '"' && len(args) >= 3 {
				g.wordSpace, g.charSpace = args[len(args)-3].num, args[len(args)-2].num
			}
			tlm = matrix{1, 0, 0, 1, 0, -g.leading}.mul(tlm)
			tm = tlm
			if len(args) >= 1 && args[len(args)-1].kind == opString {
				show(args[len(args)-1].bytes)
			}
		case "TJ":
			if len(args) < 1 || args[len(args)-1].kind != opArray {
				return
			}
			a := args[len(args)-1]
			for _, e := range lv.scan.elems[a.lo:a.hi] {
				switch e.kind {
				case opString:
					show(e.bytes)
				case opNumber:
					tx := -e.num / 1000 * g.size * g.scale
					tm = matrix{1, 0, 0, 1, tx, 0}.mul(tm)
				}
			}
		case "Do":
			if len(args) >= 1 && args[len(args)-1].kind == opName {
				if xobjects.IsNull() {
					xobjects = res.Key("XObject")
				}
				w.form(xobjects.Key(string(args[len(args)-1].bytes)), res, g.ctm, depth)
			}
		}
	})
}

// turn maps page point (x, y) into the frame of the text drawn with rendering matrix trm, its
// direction rounded to a quarter turn: the text runs along x there, lines descend along y.
func turn(trm matrix, x, y float64) (float64, float64) {
	dx, dy := trm[0], trm[1]
	switch {
	case math.Abs(dx) >= math.Abs(dy) && dx >= 0:
		return x, y
	case math.Abs(dx) >= math.Abs(dy):
		return -x, -y
	case dy > 0: // reading upwards
		return y, -x
	default: // reading downwards
		return -y, x
	}
}

// form draws a form XObject: its own content with its resources (else the caller's) under its
// matrix.
func (w *pdfWalker) form(x, res pdf.Value, ctm matrix, depth int) {
	if x.Key("Subtype").Name() != "Form" || w.forms >= maxForms {
		return
	}
	w.forms++
	m := identity
	if fm := x.Key("Matrix"); fm.Len() == 6 {
		for i := range 6 {
			m[i] = fm.Index(i).Float64()
		}
	}
	if r := x.Key("Resources"); !r.IsNull() {
		res = r
	}
	w.walk(x, res, m.mul(ctm), depth+1)
}
