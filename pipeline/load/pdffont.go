package load

import (
	"bytes"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// pdfFont is what drawing text needs of a font: how to cut a string into codes, and each code's
// text and advance width.
//
// A code's text is, in this order (PDF 32000-1 §9.10.2): the font's ToUnicode map; for a simple
// font, the glyph name its encoding gives the code (the Differences, else the base encoding,
// else for an embedded Type 1 font the encoding built into the font program) read by the Adobe
// Glyph List's rules; for a composite font whose CMap is UCS-2, the code itself. Text is cleaned
// (cleanGlyphText): ligatures become letters and control characters are never returned; a code
// left with no text is drawn (it still advances) but has none.
type pdfFont struct {
	composite bool
	spaces    []codeRange // composite: the codespace; none means two-byte codes
	ucs2      bool        // composite: the code is the character
	toUnicode *cmapTable

	simple [256]string // simple fonts: each code's text

	cidText   map[uint32]string // composite: texts found so far
	cidWidths map[uint32]float64
	simpleW   []float64
	first     int
	defaultW  float64
	hasWidths bool
	monospace bool    // a standard Courier: every glyph 600 units wide, widths given or not
	scale     float64 // width units to text space units: 1/1000, or a Type 3 font's matrix
	vscale    float64 // the em against the font size: 1, or from a Type 3 font's box and matrix
}

// codeRange is a codespace range of n-byte codes.
type codeRange struct {
	n      int
	lo, hi uint32
}

func newPDFFont(v pdf.Value) *pdfFont {
	f := &pdfFont{defaultW: 1000, scale: 0.001, vscale: 1}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.toUnicode = parseCMap(streamBytes(tu))
	}
	subtype := v.Key("Subtype").Name()
	if subtype == "Type0" {
		f.initComposite(v)
		return f
	}
	if subtype == "Type3" {
		if m := v.Key("FontMatrix"); m.Len() == 6 && m.Index(0).Float64() != 0 {
			f.scale = m.Index(0).Float64()
			// A Type 3 font's glyph units per em are its own: its bounding box's height, taken
			// to text space by its matrix, stands for the em.
			bb := v.Key("FontBBox")
			if h := math.Abs((bb.Index(3).Float64() - bb.Index(1).Float64()) * m.Index(3).Float64()); h > 0.01 && h < 100 {
				f.vscale = h
			}
		}
	}
	f.monospace = strings.HasPrefix(v.Key("BaseFont").Name(), "Courier")
	if ws := v.Key("Widths"); ws.Len() > 0 {
		f.first = int(v.Key("FirstChar").Int64())
		f.simpleW = make([]float64, ws.Len())
		for i := range f.simpleW {
			f.simpleW[i] = ws.Index(i).Float64()
		}
		f.hasWidths = true
	}
	names, base := simpleEncoding(v, subtype)
	for c := range 256 {
		var t string
		if f.toUnicode != nil {
			t, _ = f.toUnicode.lookup(uint32(c))
		}
		if t == "" && names[c] != "" {
			t = cleanGlyphText(glyphText(names[c]))
		}
		if t == "" && names[c] == "" {
			t = cleanGlyphText(base.text(byte(c)))
		}
		f.simple[c] = t
	}
	return f
}

// simpleEncoding returns a simple font's glyph names by code (where its encoding names them) and
// the base encoding for the other codes.
func simpleEncoding(v pdf.Value, subtype string) (names [256]string, base baseEncoding) {
	base = standardEncoding
	if subtype == "TrueType" {
		base = winAnsiEncoding
	}
	switch v.Key("BaseFont").Name() {
	case "Symbol":
		base = symbolEncoding
	}
	enc := v.Key("Encoding")
	builtin := enc.Kind() != pdf.Name && enc.Key("BaseEncoding").Kind() != pdf.Name
	if builtin && subtype != "TrueType" {
		// Without a base encoding of its own, an embedded Type 1 font's codes are those of its
		// program (TeX's Computer Modern: 12 is "fi").
		if ff := v.Key("FontDescriptor").Key("FontFile"); ff.Kind() == pdf.Stream {
			names = type1Encoding(ff)
		}
	}
	switch enc.Kind() {
	case pdf.Name:
		if b, ok := encodingByName(enc.Name()); ok {
			base = b
		}
	case pdf.Dict:
		if b, ok := encodingByName(enc.Key("BaseEncoding").Name()); ok {
			base = b
		}
		diffs := enc.Key("Differences")
		code := -1
		for i := range diffs.Len() {
			d := diffs.Index(i)
			switch d.Kind() {
			case pdf.Integer:
				code = int(d.Int64())
			case pdf.Name:
				if code >= 0 && code < 256 {
					names[code] = d.Name()
				}
				code++
			}
		}
	}
	return names, base
}

var type1EncodingRE = regexp.MustCompile(`dup\s+(\d+)\s*/([^\s/\[\]{}()<>]+)\s+put`)

// type1Encoding reads the encoding a Type 1 font program builds in ("dup 12 /fi put"), from its
// clear-text part.
func type1Encoding(ff pdf.Value) (names [256]string) {
	n := ff.Key("Length1").Int64()
	if n <= 0 || n > 1<<20 {
		n = 1 << 16
	}
	data, _ := io.ReadAll(io.LimitReader(ff.Reader(), n))
	if i := bytes.Index(data, []byte("/Encoding")); i >= 0 {
		data = data[i:]
	} else {
		return names
	}
	if end := bytes.Index(data, []byte("readonly def")); end >= 0 {
		data = data[:end]
	}
	for _, m := range type1EncodingRE.FindAllSubmatch(data, -1) {
		if c, err := strconv.Atoi(string(m[1])); err == nil && c < 256 {
			names[c] = string(m[2])
		}
	}
	return names
}

// initComposite reads a Type 0 font's codespace and its descendant's widths.
func (f *pdfFont) initComposite(v pdf.Value) {
	f.composite = true
	f.cidText = map[uint32]string{}
	switch enc := v.Key("Encoding"); enc.Kind() {
	case pdf.Stream:
		f.spaces = parseCMap(streamBytes(enc)).spaces
	case pdf.Name:
		name := enc.Name()
		f.ucs2 = bytes.Contains([]byte(name), []byte("UCS2")) || bytes.Contains([]byte(name), []byte("UTF16"))
		if name != "Identity-H" && name != "Identity-V" && !f.ucs2 && f.toUnicode != nil {
			f.spaces = f.toUnicode.spaces
		}
	}
	d := v.Key("DescendantFonts").Index(0)
	if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.defaultW = dw.Float64()
	}
	f.cidWidths = cidWidths(d.Key("W"))
	f.hasWidths = true
}

// cidWidths reads a CIDFont's W array: "c [w1 w2 …]" gives codes c, c+1, … their widths, and
// "c1 c2 w" gives codes c1 to c2 one width.
func cidWidths(w pdf.Value) map[uint32]float64 {
	out := map[uint32]float64{}
	for i := 0; i+1 < w.Len(); {
		c := uint32(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := range next.Len() {
				out[c+uint32(j)] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		last, width := uint32(next.Int64()), w.Index(i+2).Float64()
		for code := c; code <= last && code-c < 1<<16; code++ {
			out[code] = width
		}
		i += 3
	}
	return out
}

// next cuts the first code off s: it returns the code, its byte length (at least 1) and whether
// the font's codespace holds it.
func (f *pdfFont) next(s []byte) (code uint32, n int) {
	if !f.composite {
		return uint32(s[0]), 1
	}
	if len(f.spaces) == 0 {
		if len(s) < 2 {
			return uint32(s[0]), 1
		}
		return uint32(s[0])<<8 | uint32(s[1]), 2
	}
	for n := 1; n <= 4 && n <= len(s); n++ {
		var c uint32
		for _, b := range s[:n] {
			c = c<<8 | uint32(b)
		}
		for _, r := range f.spaces {
			if r.n == n && c >= r.lo && c <= r.hi {
				return c, n
			}
		}
	}
	return uint32(s[0]), 1
}

// text returns a code's text, "" when it has none.
func (f *pdfFont) text(code uint32) string {
	if !f.composite {
		return f.simple[code&0xff]
	}
	if t, ok := f.cidText[code]; ok {
		return t
	}
	var t string
	if f.toUnicode != nil {
		t, _ = f.toUnicode.lookup(code)
	}
	if t == "" && f.ucs2 {
		if r := rune(code); r <= 0xffff && (r < 0xd800 || r > 0xdfff) {
			t = cleanGlyphText(string(r))
		}
	}
	if len(f.cidText) < 1<<16 {
		f.cidText[code] = t
	}
	return t
}

// width returns a code's advance in text space units per unit of font size, and whether the font
// gives it.
func (f *pdfFont) width(code uint32) (float64, bool) {
	if f.composite {
		if w, ok := f.cidWidths[code]; ok {
			return w * f.scale, true
		}
		return f.defaultW * f.scale, true
	}
	if i := int(code) - f.first; f.hasWidths && i >= 0 && i < len(f.simpleW) {
		return f.simpleW[i] * f.scale, true
	}
	if f.monospace {
		return 0.6, true
	}
	// Standard fonts come without widths; half an em is their usual average.
	return 0.5, false
}

// cmapTable is what a CMap stream says: its codespace and, for a ToUnicode map, each code's text.
type cmapTable struct {
	spaces []codeRange
	chars  map[uint32]string
	ranges []cmapRange
}

// cmapRange maps codes lo..hi to text: dst with its last character advanced by code-lo, or, when
// dsts is set, dsts[code-lo].
type cmapRange struct {
	lo, hi uint32
	dst    []rune
	dsts   []string
}

// lookup returns a code's cleaned text and whether the map has the code.
func (m *cmapTable) lookup(code uint32) (string, bool) {
	if t, ok := m.chars[code]; ok {
		return t, true
	}
	for i := range m.ranges {
		r := &m.ranges[i]
		if code < r.lo || code > r.hi {
			continue
		}
		if r.dsts != nil {
			if k := int(code - r.lo); k < len(r.dsts) {
				return r.dsts[k], true
			}
			return "", true
		}
		if len(r.dst) == 0 {
			return "", true
		}
		rs := append([]rune(nil), r.dst...)
		rs[len(rs)-1] += rune(code - r.lo)
		return cleanGlyphText(string(rs)), true
	}
	return "", false
}

// parseCMap reads a CMap's codespace ranges and its bfchar and bfrange mappings (cid mappings
// are not needed: composite fonts' codes are read as their CIDs).
func parseCMap(data []byte) *cmapTable {
	m := &cmapTable{chars: map[uint32]string{}}
	var s contentScanner
	s.scan(data, func(op []byte, args []operand) {
		switch string(op) {
		case "endcodespacerange":
			for i := 0; i+1 < len(args); i += 2 {
				lo, hi := args[i], args[i+1]
				if lo.kind != opString || hi.kind != opString || len(lo.bytes) == 0 || len(lo.bytes) > 4 || len(lo.bytes) != len(hi.bytes) {
					continue
				}
				m.spaces = append(m.spaces, codeRange{n: len(lo.bytes), lo: beUint(lo.bytes), hi: beUint(hi.bytes)})
			}
		case "endbfchar":
			for i := 0; i+1 < len(args); i += 2 {
				src, dst := args[i], args[i+1]
				if src.kind != opString || len(src.bytes) > 4 {
					continue
				}
				m.chars[beUint(src.bytes)] = mappedText(dst)
			}
		case "endbfrange":
			for i := 0; i+2 < len(args); i += 3 {
				lo, hi, dst := args[i], args[i+1], args[i+2]
				if lo.kind != opString || hi.kind != opString || len(lo.bytes) > 4 || len(hi.bytes) > 4 {
					continue
				}
				r := cmapRange{lo: beUint(lo.bytes), hi: beUint(hi.bytes)}
				if r.hi < r.lo {
					continue
				}
				switch dst.kind {
				case opString:
					r.dst = utf16Runes(dst.bytes)
				case opArray:
					for _, e := range s.elems[dst.lo:dst.hi] {
						r.dsts = append(r.dsts, mappedText(e))
					}
				default:
					continue
				}
				m.ranges = append(m.ranges, r)
			}
		}
	})
	return m
}

// mappedText is the cleaned text of a ToUnicode destination: UTF-16BE bytes, or a glyph name.
func mappedText(o operand) string {
	switch o.kind {
	case opString:
		return cleanGlyphText(string(utf16Runes(o.bytes)))
	case opName:
		return cleanGlyphText(glyphText(string(o.bytes)))
	}
	return ""
}

func utf16Runes(b []byte) []rune {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	if len(b)%2 == 1 {
		// One byte where two were due: read as a code unit (some producers write <41>).
		u = append(u, uint16(b[len(b)-1]))
	}
	return utf16.Decode(u)
}

func beUint(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

// streamBytes reads a stream's decoded data.
func streamBytes(v pdf.Value) []byte {
	data, _ := io.ReadAll(v.Reader())
	return data
}
