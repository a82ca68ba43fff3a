package load

import (
	"math"

	"github.com/ledongthuc/pdf"
)

// glyph is one character drawn on a page, in page space: its baseline origin, advance width and
// font size.
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

// pdfFont is what drawing text needs of a font: how to cut a string into codes, each code's
// text and width (in thousandths of an em).
type pdfFont struct {
	enc       pdf.TextEncoding
	twoByte   bool
	widths    map[int]float64
	first     int
	simple    []float64
	defaultW  float64
	hasWidths bool
}

func newPDFFont(v pdf.Value) *pdfFont {
	f := &pdfFont{enc: pdf.Font{V: v}.Encoder(), defaultW: 1000}
	if v.Key("Subtype").Name() == "Type0" {
		f.twoByte = true
		d := v.Key("DescendantFonts").Index(0)
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.defaultW = dw.Float64()
		}
		f.widths = cidWidths(d.Key("W"))
		f.hasWidths = true
		return f
	}
	ws := v.Key("Widths")
	if n := ws.Len(); n > 0 {
		f.first = int(v.Key("FirstChar").Int64())
		f.simple = make([]float64, n)
		for i := range n {
			f.simple[i] = ws.Index(i).Float64()
		}
		f.hasWidths = true
	}
	return f
}

// cidWidths reads a CIDFont's W array: "c [w1 w2 …]" gives codes c, c+1, … their widths, and
// "c1 c2 w" gives codes c1 to c2 one width.
func cidWidths(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i+1 < w.Len(); {
		c := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := range next.Len() {
				out[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		last, width := int(next.Int64()), w.Index(i+2).Float64()
		for code := c; code <= last && code-c < 1<<16; code++ {
			out[code] = width
		}
		i += 3
	}
	return out
}

// width returns a code's advance in thousandths of an em and whether the font gives it.
func (f *pdfFont) width(code int) (float64, bool) {
	if f.twoByte {
		if w, ok := f.widths[code]; ok {
			return w, true
		}
		return f.defaultW, true
	}
	if i := code - f.first; f.hasWidths && i >= 0 && i < len(f.simple) {
		return f.simple[i], true
	}
	// Standard fonts come without widths; half an em is their usual average.
	return 500, false
}

// pageWalker draws a page's text into glyphs.
type pageWalker struct {
	glyphs []glyph
	forms  int // form XObjects entered, to bound nesting
}

// maxForms bounds the form XObjects one page may draw, so a form that draws itself ends.
const maxForms = 200

// walkPage returns a page's glyphs in content-stream order.
func walkPage(p pdf.Page) []glyph {
	w := &pageWalker{}
	w.walk(p.V.Key("Contents"), p.Resources(), identity)
	return w.glyphs
}

// walk interprets one content stream (or array of streams) drawn with resources res under ctm.
func (w *pageWalker) walk(strm, res pdf.Value, ctm matrix) {
	if strm.IsNull() {
		return
	}
	g := textState{ctm: ctm, scale: 1}
	// Fonts by resource name: reading one parses its ToUnicode map, so each is read once.
	fonts := map[string]*pdfFont{}
	font := func(name string) *pdfFont {
		f := fonts[name]
		if f == nil {
			f = newPDFFont(res.Key("Font").Key(name))
			fonts[name] = f
		}
		return f
	}
	var stack []textState
	var tm, tlm matrix
	show := func(s string) {
		if g.font == nil {
			return
		}
		step := 1
		if g.font.twoByte {
			step = 2
		}
		for i := 0; i+step <= len(s); i += step {
			raw := s[i : i+step]
			code := int(raw[0])
			if step == 2 {
				code = code<<8 | int(raw[1])
			}
			w0, known := g.font.width(code)
			trm := matrix{g.size * g.scale, 0, 0, g.size, 0, g.rise}.mul(tm).mul(g.ctm)
			tx := (w0/1000*g.size + g.charSpace) * g.scale
			if step == 1 && code == ' ' {
				tx += g.wordSpace * g.scale
			}
			next := matrix{1, 0, 0, 1, tx, 0}.mul(tm)
			end := matrix{g.size * g.scale, 0, 0, g.size, 0, g.rise}.mul(next).mul(g.ctm)
			w.glyphs = append(w.glyphs, glyph{
				s: g.font.enc.Decode(raw), x: trm[4], y: trm[5], w: end[4] - trm[4],
				size: math.Hypot(trm[2], trm[3]), unadvanced: !known,
			})
			tm = next
		}
	}
	num := func(args []pdf.Value, i int) float64 { return args[i].Float64() }
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		want := func(k int) bool { return len(args) >= k }
		switch op {
		case "q":
			stack = append(stack, g)
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if want(6) {
				g.ctm = matrix{num(args, 0), num(args, 1), num(args, 2), num(args, 3), num(args, 4), num(args, 5)}.mul(g.ctm)
			}
		case "BT":
			tm, tlm = identity, identity
		case "Tf":
			if want(2) {
				g.font = font(args[0].Name())
				g.size = num(args, 1)
			}
		case "Tc":
			if want(1) {
				g.charSpace = num(args, 0)
			}
		case "Tw":
			if want(1) {
				g.wordSpace = num(args, 0)
			}
		case "Tz":
			if want(1) {
				g.scale = num(args, 0) / 100
			}
		case "TL":
			if want(1) {
				g.leading = num(args, 0)
			}
		case "Ts":
			if want(1) {
				g.rise = num(args, 0)
			}
		case "Td", "TD":
			if want(2) {
				if op == "TD" {
					g.leading = -num(args, 1)
				}
				tlm = matrix{1, 0, 0, 1, num(args, 0), num(args, 1)}.mul(tlm)
				tm = tlm
			}
		case "Tm":
			if want(6) {
				tlm = matrix{num(args, 0), num(args, 1), num(args, 2), num(args, 3), num(args, 4), num(args, 5)}
				tm = tlm
			}
		case "T*":
			tlm = matrix{1, 0, 0, 1, 0, -g.leading}.mul(tlm)
			tm = tlm
		case "Tj":
			if want(1) {
				show(args[0].RawString())
			}
		case "'", "\"":
			if op == "\"" && want(3) {
				g.wordSpace, g.charSpace = num(args, 0), num(args, 1)
				args = args[2:]
			}
			tlm = matrix{1, 0, 0, 1, 0, -g.leading}.mul(tlm)
			tm = tlm
			if len(args) >= 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if !want(1) {
				return
			}
			a := args[0]
			for i := range a.Len() {
				x := a.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
					continue
				}
				tx := -x.Float64() / 1000 * g.size * g.scale
				tm = matrix{1, 0, 0, 1, tx, 0}.mul(tm)
			}
		case "Do":
			if want(1) {
				w.form(res.Key("XObject").Key(args[0].Name()), res, g.ctm)
			}
		}
	})
}

// form draws a form XObject: its own content with its resources (else the caller's) under its
// matrix.
func (w *pageWalker) form(x, res pdf.Value, ctm matrix) {
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
	w.walk(x, res, m.mul(ctm))
}
