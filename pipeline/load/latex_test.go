package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestLaTeXFixtures reads the PDFs pdfTeX wrote from testdata/latex (see the README there): the
// words come out whole, ligatures as their letters, words apart where TeX moved the text
// position instead of drawing a space, and no control character anywhere.
func TestLaTeXFixtures(t *testing.T) {
	has := []string{
		"Harbor Office Report",
		"a significant archive of tide tables",
		"A Query over this archive must not return inaccurate or hallucinated information, particularly in open-domain questions",
		"The first efficient index was built by the affluent merchants",
		"not made to republish, to post on servers or to redistribute to lists, and that the baffled clerks",
		"The officers reflect on difficult shuffles of the staff",
		"the fluffy clouds",
		"Efficiency of the ferry service rose in the fifth year",
		"office affirms that the waffle stall on the pier made a profit. Flawless crossings",
	}
	for _, name := range []string{"cm.pdf", "lm.pdf", "tounicode.pdf"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "latex", name))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := safeExtract(extractPDF, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range has {
				if !strings.Contains(doc.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, doc.Text)
				}
			}
			if doc.Title != "Harbor Office Report" {
				t.Errorf("title = %q", doc.Title)
			}
			if doc.Unmapped != 0 {
				t.Errorf("%d glyphs unmapped", doc.Unmapped)
			}
			assertPrintable(t, doc.Text)
		})
	}
}

// assertPrintable fails on control characters other than the line breaks between paragraphs,
// and on U+FFFD.
func assertPrintable(t *testing.T, s string) {
	t.Helper()
	for i, r := range s {
		if r != '\n' && unicode.IsControl(r) || r == '\ufffd' {
			t.Errorf("character %U at byte %d: %q", r, i, s[max(0, i-20):min(len(s), i+20)])
			return
		}
	}
}
