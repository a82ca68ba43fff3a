package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDocumentFormats loads each good fixture (see fixtures_test.go) and checks its title,
// metadata, pages and text: whole for the small ones, by what must and must not be in it for
// the pages with furniture to drop.
func TestDocumentFormats(t *testing.T) {
	tests := []struct {
		file     string
		title    string
		metadata map[string]any
		pages    []int
		text     string   // the whole text, when set
		has      []string // substrings the text must hold
		hasNot   []string // substrings it must not hold
	}{
		{
			file:     "report.pdf",
			title:    "Port Avel Harbor Report",
			metadata: map[string]any{"author": "Mira Olsen", "created": "2024-03-05T09:30:00Z", "pages": 3},
			pages:    []int{0, 336, 488},
			text: "Harbor Report\n\n" +
				"The harbor of Port Avel opens at dawn, when the keepers record the tides in the harbor log.\n\n" +
				"Merchants unload grain and salt along the north pier, and the knowledge of the currents passes from one pilot to the next.\n\n" +
				// The paragraph runs on from page 1 to page 2.
				"Every winter the storms reshape the sandbanks, and the surveyors draw the charts again before the ships return in spring with timber from the northern forests. " +
				"The lighthouse on Gull Point was rebuilt in 1102 after the great fire destroyed the old tower.\n\n" +
				"Ferries leave for Saltmere twice a day in summer.",
		},
		{
			file:     "no-info-title.pdf",
			title:    "Tide Tables of Saltmere",
			metadata: map[string]any{"created": "2024-03-05T09:30:00Z", "pages": 1},
			pages:    []int{0},
			text:     "Tide Tables of Saltmere\n\nHigh water at Saltmere comes an hour after Port Avel.",
		},
		{
			file:     "page.html",
			title:    "Harbor Report",
			metadata: map[string]any{"author": "Mira Olsen", "created": "2024-03-05T09:30:00Z", "url": "https://gazette.example/harbor-report"},
			text: "Harbor Report\n\n" +
				"The harbor of Port Avel opens at dawn, when the keepers record the tides.\n\n" +
				"Merchants unload grain and salt.\nPilots pass on their knowledge.\n\n" +
				"Pier | Depth\nNorth | 12 m\n\n" +
				"Ferries\nFishing boats\n\n" +
				"tide  06:10\ntide  18:32",
		},
		{
			file:  "latin1.htm",
			title: "Café du Port",
			text:  "Crème brûlée at the harbor café.",
		},
		{
			file:   "articles.html",
			title:  "Letters to the Editor",
			text:   "On the new pier\n\nThe new pier at Gull Point will shelter the fishing boats from the western storms.",
			hasNot: []string{"Subscribe", "Short note"},
		},
		{
			file:     "report.docx",
			title:    "Harbor Minutes",
			metadata: map[string]any{"author": "Jon Avel", "created": "2024-03-05T09:30:00Z"},
			text: "Minutes of the Harbor Board\n\n" +
				"The board met at the lighthouse on Gull Point.\n\n" +
				"Old text after a tab\nafter a break\n\n" +
				"Pier | Depth\nNorth side | 12 m\n\n" +
				"Adjourned.",
		},
		{
			file:  "heading.docx",
			title: "Ferry Timetable",
			text:  "Draft\n\nFerry Timetable\n\nFerries leave twice a day.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			docs, problems := collect(t, filepath.Join(fixtureDir, "good", tc.file))
			if len(problems) != 0 || len(docs) != 1 {
				t.Fatalf("got %d documents, problems %v", len(docs), problems)
			}
			d := docs[0]
			if d.Title != tc.title {
				t.Errorf("title = %q, want %q", d.Title, tc.title)
			}
			if !reflect.DeepEqual(d.Metadata, tc.metadata) {
				t.Errorf("metadata = %v, want %v", d.Metadata, tc.metadata)
			}
			if !reflect.DeepEqual(d.Pages, tc.pages) {
				t.Errorf("pages = %v, want %v", d.Pages, tc.pages)
			}
			if tc.text != "" && d.Text != tc.text {
				t.Errorf("text =\n%s\nwant\n%s", d.Text, tc.text)
			}
			for _, s := range tc.hasNot {
				if strings.Contains(d.Text, s) {
					t.Errorf("text holds %q", s)
				}
			}
		})
	}
}

// TestPDFPages: the page offsets of report.pdf point at each page's first words.
func TestPDFPages(t *testing.T) {
	docs, _ := collect(t, filepath.Join(fixtureDir, "good", "report.pdf"))
	if len(docs) != 1 {
		t.Fatal("report.pdf did not load")
	}
	d := docs[0]
	for i, want := range []string{"Harbor Report", "return in spring", "Ferries leave"} {
		if !strings.HasPrefix(d.Text[d.Pages[i]:], want) {
			t.Errorf("page %d starts with %.20q, want %q", i+1, d.Text[d.Pages[i]:], want)
		}
	}
	start := strings.Index(d.Text, "surveyors draw")
	end := strings.Index(d.Text, "northern forests")
	if got := PageSpan(d.Pages, start, end); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("a span across the page break is on pages %v, want [1 2]", got)
	}
}

// TestDocumentFormatProblems: each bad fixture is skipped with its reason, named, not ignored.
func TestDocumentFormatProblems(t *testing.T) {
	tests := []struct {
		file string
		err  error
		msg  string
	}{
		{"encrypted.pdf", ErrEncrypted, ""},
		{"scanned.pdf", ErrNoText, "run OCR first"},
		{"truncated.pdf", ErrCorrupt, "%%EOF"},
		{"not-a-pdf.pdf", ErrCorrupt, "not a PDF"},
		{"panic.pdf", ErrCorrupt, "parser failed"},
		{"not-a-zip.docx", ErrCorrupt, "zip"},
		{"no-body.docx", ErrCorrupt, "word/document.xml"},
		{"encrypted.docx", ErrEncrypted, ""},
		{"undeclared.html", ErrNotUTF8, "declares no charset"},
		{"only-nav.html", ErrEmpty, ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			docs, problems := collect(t, filepath.Join(fixtureDir, "bad", tc.file))
			if len(docs) != 0 || len(problems) != 1 {
				t.Fatalf("got %d documents and problems %v, want one problem", len(docs), problems)
			}
			p := problems[0]
			if !errors.Is(p.Err, tc.err) || !strings.Contains(p.Err.Error(), tc.msg) || p.Ignored {
				t.Errorf("problem %v (ignored %v), want %v with %q", p, p.Ignored, tc.err, tc.msg)
			}
		})
	}
}

// TestDocumentFolder: a folder walk loads the new formats beside text files, in name order, and
// reports the bad ones without stopping.
func TestDocumentFolder(t *testing.T) {
	docs, problems := collect(t, fixtureDir)
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	want := []string{"good/articles.html", "good/heading.docx", "good/latin1.htm", "good/no-info-title.pdf", "good/page.html", "good/report.docx", "good/report.pdf"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	if len(problems) != 10 {
		t.Errorf("got %d problems, want the 10 bad fixtures: %v", len(problems), problems)
	}
}

func TestDocumentTooLarge(t *testing.T) {
	p := write(t, t.TempDir(), "big.pdf", []byte("%PDF-1.4\n"+strings.Repeat("x", 100)))
	if _, err := readFile(p, 50); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("readFile over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}

func TestHyphenJoin(t *testing.T) {
	tests := []struct{ para, line, want string }{
		{"the know-", "ledge of", "the knowledge of"},
		{"a well-", "Known name", "a well- Known name"},
		{"pages 10-", "12 are", "pages 10- 12 are"},
		{"soft know\u00ad", "ledge", "soft knowledge"},
		{"", "first", "first"},
		{"one", "two", "one two"},
	}
	for _, tc := range tests {
		if got := joinLines(tc.para, tc.line); got != tc.want {
			t.Errorf("joinLines(%q, %q) = %q, want %q", tc.para, tc.line, got, tc.want)
		}
	}
}

func TestDropRunningLines(t *testing.T) {
	page := func(n string, body ...string) []pdfLine {
		lines := []pdfLine{{text: "Annual Report 2024", y: 800}}
		for i, b := range body {
			lines = append(lines, pdfLine{text: b, y: 700 - float64(i)*12})
		}
		return append(lines, pdfLine{text: "Page " + n, y: 40})
	}
	pages := [][]pdfLine{page("1", "Intro", "Annual Report 2024 was good"), page("2", "Body"), page("3", "End")}
	dropRunningLines(pages)
	for i, lines := range pages {
		for _, l := range lines {
			running := l.text == "Annual Report 2024" || strings.HasPrefix(l.text, "Page ")
			if l.drop != running {
				t.Errorf("page %d line %q: drop = %v, want %v", i+1, l.text, l.drop, running)
			}
		}
	}
	// Pages holding only a line that differs in its digits: that line is the text.
	logPages := make([][]pdfLine, 5)
	for i := range logPages {
		logPages[i] = []pdfLine{{text: fmt.Sprintf("Page %d of the ferry log", i+1), y: 700}}
	}
	dropRunningLines(logPages)
	for i, lines := range logPages {
		if lines[0].drop {
			t.Errorf("ferry log page %d: its only line dropped", i+1)
		}
	}
	// One page alone has nothing to repeat.
	single := [][]pdfLine{page("1", "Only")}
	dropRunningLines(single)
	for _, l := range single[0] {
		if l.drop {
			t.Errorf("single page: %q dropped", l.text)
		}
	}
}

func TestPDFDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"D:20240305093000Z", "2024-03-05T09:30:00Z"},
		{"D:20240305093000+01'00'", "2024-03-05T09:30:00+01:00"},
		{"D:20240305", "2024-03-05"},
		{"2024", "2024-01-01"},
		{"yesterday", ""},
		{"D:20241305", ""},
	}
	for _, tc := range tests {
		if got, _ := pdfDate(tc.in); got != tc.want {
			t.Errorf("pdfDate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPageSpan(t *testing.T) {
	pages := []int{0, 100, 250}
	tests := []struct {
		start, end int
		want       []int
	}{
		{0, 50, []int{1}},
		{90, 110, []int{1, 2}},
		{100, 250, []int{2}},
		{240, 900, []int{2, 3}},
		{5, 5, nil},
	}
	for _, tc := range tests {
		if got := PageSpan(pages, tc.start, tc.end); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PageSpan(%d, %d) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
	if got := PageSpan(nil, 0, 10); got != nil {
		t.Errorf("no pages: %v", got)
	}
}
