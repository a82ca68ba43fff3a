package load

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/go-pdf/fpdf"
)

func TestGlyphText(t *testing.T) {
	tests := []struct{ name, want string }{
		{"A", "A"},
		{"fi", "\ufb01"},
		{"f_i", "fi"},
		{"f_f_i", "ffi"},
		{"Q_u", "Qu"},
		{"T_h", "Th"},
		{"one.oldstyle", "1"},
		{"a.sc", "a"},
		{"uni00660069", "fi"},
		{"uni0041", "A"},
		{"u1F600", "😀"},
		{"uniD800", ""},
		{"quoteright", "’"},
		{"dotlessj", "ȷ"},
		{"g42", ""},
		{".notdef", ""},
		{"f_g42", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := glyphText(tc.name); got != tc.want {
			t.Errorf("glyphText(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCleanGlyphText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "a"},
		{"\ufb01", "fi"},
		{"\ufb03", "ffi"},
		{"\x1b", ""},
		{"\x00", ""},
		{"\t", " "},
		{"\u0085", ""},
		{"\ufffd", ""},
		{"\ufffe", ""},
		{"é", "é"},
	}
	for _, tc := range tests {
		if got := cleanGlyphText(tc.in); got != tc.want {
			t.Errorf("cleanGlyphText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPDFFontText draws one line with a font whose encoding and ToUnicode map are given, and
// checks its text: each way a code gets its text, and glyphs with none dropped and counted.
func TestPDFFontText(t *testing.T) {
	widths := "/FirstChar 0 /LastChar 255 /Widths [" + strings.Repeat("500 ", 256) + "]"
	spaced := "/FirstChar 32 /LastChar 126 /Widths [250 " + strings.Repeat("500 ", 94) + "]" // a quarter-em space
	tests := []struct {
		name      string
		font      string
		toUnicode string // CMap body, between begincmap and endcmap
		content   string
		want      string
		unmapped  int
	}{
		{
			name:     "Differences with AGL names",
			font:     "/Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [1 /f_i /Q_u /uni00660066 /fl /g42] >> " + widths,
			content:  "BT /F1 10 Tf 10 100 Td (sig\\001 ni\\002 ck\\003 \\004y\\005) Tj ET",
			want:     "sigfi niQu ckff fly",
			unmapped: 1,
		},
		{
			name:    "TJ offsets as word breaks, kerning kept inside words",
			font:    "/Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding " + widths,
			content: "BT /F1 10 Tf 10 100 Td [(inaccurate)-250(or)-333(hal)27(lu)-40(cinated)-180(infor)8(mation)] TJ ET",
			want:    "inaccurate or hallucinated information",
		},
		{
			name:    "position jumps as word breaks",
			font:    "/Subtype /Type1 /BaseFont /Helvetica " + widths,
			content: "BT /F1 10 Tf 10 100 Td (to) Tj 12 0 Td (post) Tj 21.5 0 Td (on) Tj ET",
			want:    "to post on",
		},
		{
			name:    "character spacing as the gap between words",
			font:    "/Subtype /Type1 /BaseFont /Times-Roman " + spaced,
			content: "BT /F1 10 Tf 10 100 Td (ove) Tj 2.5 Tc (rt) Tj 0 Tc 27.5 0 Td (he current) Tj ET",
			want:    "over the current",
		},
		{
			name:    "a space glyph narrowed inside a word",
			font:    "/Subtype /Type1 /BaseFont /Times-Roman " + spaced,
			content: "BT /F1 10 Tf 10 100 Td -0.9 Tc -1.07 Tw (PA TTERNS) Tj 0 Tc 0 Tw ( and FILES) Tj ET",
			want:    "PATTERNS and FILES",
		},
		{
			name:    "Type 3 font with its own glyph units",
			font:    "/Subtype /Type3 /FontMatrix [0.01 0 0 0.01 0 0] /FontBBox [0 -20 100 80] /CharProcs << >> /Resources << >> /Encoding << /Differences [97 /a /b /c] >> /FirstChar 97 /LastChar 99 /Widths [50 50 50]",
			content: "BT /F1 10 Tf 10 100 Td (abc) Tj 20 0 Td (cab) Tj 0 -12 Td (bca) Tj ET",
			want:    "abc cab bca",
		},
		{
			name:    "text turned a quarter turn",
			font:    "/Subtype /Type1 /BaseFont /Times-Roman " + spaced,
			content: "BT /F1 10 Tf 0 1 -1 0 100 20 Tm (tide) Tj ( tables) Tj 0 -12 Td (for) Tj ( Saltmere) Tj ET",
			want:    "tide tables for Saltmere",
		},
		{
			name:    "standard Courier without widths",
			font:    "/Subtype /Type1 /BaseFont /Courier",
			content: "BT /F1 10 Tf 10 100 Td (data) Tj 24 0 Td (base) Tj 30 0 Td (of) Tj 18 0 Td (tides) Tj ET",
			want:    "database of tides",
		},
		{
			name:      "ToUnicode before the encoding",
			font:      "/Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [27 /ff /fi] >> " + widths,
			toUnicode: "1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <1B> <00660066> <1C> <FB01> endbfchar 1 beginbfrange <41> <43> <0061> endbfrange",
			content:   "BT /F1 10 Tf 10 100 Td (o\\033ABC\\034) Tj ET",
			want:      "offabcfi",
		},
		{
			name:      "ToUnicode mapping to control characters",
			font:      "/Subtype /Type1 /BaseFont /Helvetica " + widths,
			toUnicode: "1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <01> <001B> <02> <0000> endbfchar 1 beginbfrange <61> <7A> <0061> endbfrange",
			content:   "BT /F1 10 Tf 10 100 Td (a\\001b\\002c) Tj ET",
			want:      "abc",
			unmapped:  2,
		},
		{
			name:      "composite font with two-byte codes",
			font:      "/Subtype /Type0 /BaseFont /Noto /Encoding /Identity-H /DescendantFonts [<< /Subtype /CIDFontType2 /DW 1000 /W [1 [500 500 500]] >>]",
			toUnicode: "1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0001> <0003> [<6E2F> <53E3> <0066006C>] endbfrange",
			content:   "BT /F1 10 Tf 10 100 Td <000100020003> Tj ET",
			want:      "港口fl",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := safeExtract(extractPDF, fontPDF(tc.font, tc.toUnicode, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Text != tc.want {
				t.Errorf("text = %q, want %q", doc.Text, tc.want)
			}
			if doc.Unmapped != tc.unmapped {
				t.Errorf("unmapped = %d, want %d", doc.Unmapped, tc.unmapped)
			}
		})
	}
}

// fontPDF writes a one-page PDF whose font F1 has the given dictionary entries and, when
// toUnicode is set, a ToUnicode CMap with that body.
func fontPDF(font, toUnicode, content string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	if toUnicode != "" {
		cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap " + toUnicode + " endcmap CMapName currentdict /CMap defineresource pop end end"
		objs = append(objs, "<< /Type /Font "+font+" /ToUnicode 6 0 R >>",
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap))
	} else {
		objs = append(objs, "<< /Type /Font "+font+" >>")
	}
	return assemble(objs)
}

// assemble writes objects 1… into a PDF with its cross-reference table.
func assemble(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// TestPDFOnlyRunningLines: a log whose every page holds one line differing in its digits keeps
// those lines, and a PDF whose text has no mapping is not sent to OCR.
func TestPDFOnlyRunningLines(t *testing.T) {
	pdf := fpdf.New("P", "mm", "A5", "")
	pdf.SetFont("Helvetica", "", 11)
	for i := range 6 {
		pdf.AddPage()
		pdf.Text(20, 30, fmt.Sprintf("Page %d of the ferry log", i+1))
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := safeExtract(extractPDF, buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if want := fmt.Sprintf("Page %d of the ferry log", i+1); !strings.Contains(doc.Text, want) {
			t.Errorf("text lacks %q: %q", want, doc.Text)
		}
	}

	font := "/Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [1 /g1 /g2] >>"
	_, err = safeExtract(extractPDF, fontPDF(font, "", "BT /F1 10 Tf 10 100 Td (\\001\\002) Tj ET"))
	if err == nil || errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "2 glyphs with no Unicode mapping") {
		t.Errorf("unmapped glyphs only: err = %v, want one that counts them and does not ask for OCR", err)
	}
}

// FuzzPDFContent draws arbitrary content streams with a ToUnicode font: no input may panic or
// put a control character into the text.
func FuzzPDFContent(f *testing.F) {
	for _, seed := range []string{
		"BT /F1 10 Tf 10 100 Td [(a)-250(b)] TJ ET",
		"BT /F1 10 Tf (x) ' 1 2 (y) \" T* (z) Tj ET",
		"q 1 0 0 1 5 5 cm BT /F1 12 Tf <0102> Tj ET Q BI /W 1 /H 1 ID \x00\xffEI EI",
		"/P << /MCID 0 /Alt (a) >> BDC BT /F1 10 Tf (\\101\\n\\\r) Tj ET EMC",
		"BT /F1 10 Tf [(unclosed <4 -.5.5 --3 ] TJ (a) Tj",
		"% comment\nBT /F1 1e3 Tf 10 100 Td (\x1b\x00) Tj ET",
	} {
		f.Add(seed)
	}
	font := "/Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [1 /f_i /g2] >>"
	tu := "1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <1B> <001B> endbfchar 1 beginbfrange <61> <7A> <0061> endbfrange"
	f.Fuzz(func(t *testing.T, content string) {
		doc, err := safeExtract(extractPDF, fontPDF(font, tu, content))
		if err != nil {
			return
		}
		for _, r := range doc.Text {
			if r != '\n' && unicode.IsControl(r) {
				t.Fatalf("control character %U in %q", r, doc.Text)
			}
		}
	})
}

// TestPDFWeakEncryption: a PDF protected by 40-bit RC4 with an owner password only opens, but
// its parser cannot decrypt it: it is reported as encrypted, not as corrupt.
func TestPDFWeakEncryption(t *testing.T) {
	pdf := fpdf.New("P", "mm", "A5", "")
	pdf.SetProtection(fpdf.CnProtectPrint, "", "owner")
	pdf.AddPage()
	pdf.SetFont("Helvetica", "", 11)
	pdf.Text(20, 30, "Ferries leave twice a day")
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	_, err := safeExtract(extractPDF, buf.Bytes())
	if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "40-bit RC4") {
		t.Errorf("err = %v, want ErrEncrypted naming 40-bit RC4", err)
	}
}
