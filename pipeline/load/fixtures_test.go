package load

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// The files under testdata/inputs are written by TestWriteFixtures:
//
//	go test ./pipeline/load -run TestWriteFixtures -update-fixtures
//
// and committed, so the tests read fixed bytes; the generator says what each file holds.
var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/inputs")

const fixtureDir = "testdata/inputs"

// fixtureTime is the creation date written into generated documents.
var fixtureTime = time.Date(2024, 3, 5, 9, 30, 0, 0, time.UTC)

func TestWriteFixtures(t *testing.T) {
	if !*updateFixtures {
		t.Skip("run with -update-fixtures to rewrite testdata/inputs")
	}
	files := map[string][]byte{
		"good/report.pdf":        reportPDF(t, ""),
		"good/no-info-title.pdf": untitledPDF(t),
		"good/page.html":         []byte(pageHTML),
		"good/latin1.htm":        latin1HTML(),
		"good/articles.html":     []byte(articlesHTML),
		"good/report.docx":       docx(t, reportDOCXBody, coreXML),
		"good/heading.docx":      docx(t, headingDOCXBody, ""),
		"bad/encrypted.pdf":      reportPDF(t, "secret"),
		"bad/scanned.pdf":        scannedPDF(t),
		"bad/truncated.pdf":      truncate(reportPDF(t, "")),
		"bad/not-a-pdf.pdf":      []byte("Just some text saved with the wrong extension.\n"),
		"bad/panic.pdf":          rawPDF("/Filter /NoSuchFilter", "BT /F1 12 Tf (x) Tj ET"),
		"bad/not-a-zip.docx":     []byte("PK\x03\x04 but nothing after it"),
		"bad/no-body.docx":       docx(t, "", coreXML),
		"bad/encrypted.docx":     append(append([]byte{}, oleMagic...), make([]byte, 504)...),
		"bad/undeclared.html":    []byte("<html><body><p>Caf\xe9 cr\xe8me</p></body></html>"),
		"bad/only-nav.html":      []byte(`<html><head><title>Menu</title></head><body><nav><a href="/">Home</a></nav></body></html>`),
	}
	for name, data := range files {
		p := filepath.Join(fixtureDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// reportParagraphs are the body of report.pdf, as lines of each paragraph, per page. Page 1's
// last paragraph runs on to page 2, and "know-" / "ledge" is hyphenated at a line end.
var reportParagraphs = [][][]string{
	{
		{"The harbor of Port Avel opens at dawn, when the keepers", "record the tides in the harbor log."},
		{"Merchants unload grain and salt along the north pier, and", "the know-", "ledge of the currents passes from one pilot to the next."},
		{"Every winter the storms reshape the sandbanks, and the", "surveyors draw the charts again before the ships"},
	},
	{
		{"return in spring with timber from the northern forests."},
		{"The lighthouse on Gull Point was rebuilt in 1102 after", "the great fire destroyed the old tower."},
	},
	{
		{"Ferries leave for Saltmere twice a day in summer."},
	},
}

// reportPDF writes a three-page report with a running header and a "Page N of 3" footer,
// encrypted with a user password when password is not empty.
func reportPDF(t *testing.T, password string) []byte {
	pdf := fpdf.New("P", "mm", "A5", "")
	pdf.SetCreationDate(fixtureTime)
	pdf.SetModificationDate(fixtureTime)
	pdf.SetCatalogSort(true)
	pdf.SetTitle("Port Avel Harbor Report", true)
	pdf.SetAuthor("Mira Olsen", true)
	if password != "" {
		pdf.SetProtection(fpdf.CnProtectPrint, password, "owner-"+password)
	}
	pdf.SetHeaderFunc(func() {
		pdf.SetFont("Helvetica", "I", 8)
		pdf.Text(15, 12, "Port Avel Harbor Report - Gazette Archive")
	})
	pdf.SetFooterFunc(func() {
		pdf.SetFont("Helvetica", "I", 8)
		pdf.Text(60, 200, fmt.Sprintf("Page %d of 3", pdf.PageNo()))
	})
	for i, page := range reportParagraphs {
		pdf.AddPage()
		y := 30.0
		if i == 0 {
			pdf.SetFont("Helvetica", "B", 16)
			pdf.Text(15, y, "Harbor Report")
			y += 12
		}
		pdf.SetFont("Helvetica", "", 10)
		for _, para := range page {
			for _, line := range para {
				pdf.Text(15, y, line)
				y += 5
			}
			y += 5 // paragraph spacing
		}
	}
	return output(t, pdf)
}

// untitledPDF has no Info title: its title is its largest first-page line.
func untitledPDF(t *testing.T) []byte {
	pdf := fpdf.New("P", "mm", "A5", "")
	pdf.SetCreationDate(fixtureTime)
	pdf.SetModificationDate(fixtureTime)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 18)
	pdf.Text(15, 25, "Tide Tables of Saltmere")
	pdf.SetFont("Helvetica", "", 10)
	pdf.Text(15, 40, "High water at Saltmere comes an hour after Port Avel.")
	return output(t, pdf)
}

// scannedPDF holds an image and no text, as a scan without OCR does.
func scannedPDF(t *testing.T) []byte {
	img := image.NewGray(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.SetGray(x, 10, color.Gray{Y: 0})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pdf := fpdf.New("P", "mm", "A5", "")
	pdf.SetCreationDate(fixtureTime)
	pdf.SetModificationDate(fixtureTime)
	pdf.AddPage()
	opt := fpdf.ImageOptions{ImageType: "PNG"}
	pdf.RegisterImageOptionsReader("scan", opt, &buf)
	pdf.ImageOptions("scan", 10, 10, 100, 50, false, opt, 0, "")
	return output(t, pdf)
}

func output(t *testing.T, pdf *fpdf.Fpdf) []byte {
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func truncate(data []byte) []byte { return data[:len(data)/2] }

// rawPDF writes a one-page PDF by hand whose content stream has the given extra dictionary
// entries, for inputs a PDF library would not write.
func rawPDF(streamDict, content string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(content), streamDict, content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
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

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Harbor Report | Port Avel Gazette</title>
<meta property="og:title" content="Harbor Report">
<meta name="author" content="Mira Olsen">
<meta property="article:published_time" content="2024-03-05T09:30:00Z">
<link rel="canonical" href="https://gazette.example/harbor-report">
<style>body { font-family: serif }</style>
<script>var tracking = "do not ingest";</script>
</head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<header><p>Port Avel Gazette</p></header>
<main>
<h1>Harbor Report</h1>
<p>The harbor of Port Avel   opens at dawn,
when the keepers record the tides.</p>
<p>Merchants unload <b>grain</b> and <i>salt</i>.<br>Pilots pass on their know&shy;ledge.</p>
<table><tr><th>Pier</th><th>Depth</th></tr><tr><td>North</td><td>12 m</td></tr></table>
<ul><li>Ferries</li><li>Fishing boats</li></ul>
<form><input name="q"><button>Search</button></form>
<aside>Related: ferry times</aside>
<pre>tide  06:10
tide  18:32</pre>
</main>
<footer>© 2024 Gazette</footer>
<noscript>Enable scripts</noscript>
</body></html>
`

const articlesHTML = `<html><head><title>Letters to the Editor</title></head><body>
<div class="menu">Subscribe</div>
<article><p>Short note.</p></article>
<article><h2>On the new pier</h2><p>The new pier at Gull Point will shelter the fishing boats from the western storms.</p></article>
</body></html>
`

// latin1HTML declares ISO-8859-1 and is written in it.
func latin1HTML() []byte {
	return []byte("<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9 du Port</title></head><body><p>Cr\xe8me br\xfbl\xe9e at the harbor caf\xe9.</p></body></html>")
}

const coreXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<dc:title>Harbor Minutes</dc:title><dc:creator>Jon Avel</dc:creator>
<dcterms:created xsi:type="dcterms:W3CDTF">2024-03-05T09:30:00Z</dcterms:created>
</cp:coreProperties>`

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

const reportDOCXBody = `<w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Minutes of the Harbor Board</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">The board met at the </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>light</w:t></w:r><w:r><w:t>house on Gull Point.</w:t></w:r></w:p>
<w:p><w:r><w:t>Old text</w:t></w:r><w:del><w:r><w:delText>removed words</w:delText></w:r></w:del><w:r><w:fldChar w:fldCharType="begin"/><w:instrText> PAGE </w:instrText></w:r><w:r><w:tab/><w:t>after a tab</w:t><w:br/><w:t>after a break</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Pier</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Depth</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>North</w:t></w:r></w:p><w:p><w:r><w:t>side</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>12 m</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><w:t>Adjourned.</w:t></w:r></w:p>
</w:body>`

const headingDOCXBody = `<w:body>
<w:p><w:r><w:t>Draft</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Ferry</w:t></w:r><w:r><w:t xml:space="preserve"> Timetable</w:t></w:r></w:p>
<w:p><w:r><w:t>Ferries leave twice a day.</w:t></w:r></w:p>
</w:body>`

// docx writes a minimal Word document: word/document.xml with body (left out when body is
// empty) and docProps/core.xml when core is not empty.
func docx(t *testing.T, body, core string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, content string) {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: fixtureTime}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	add("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`)
	if body != "" {
		add("word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n<w:document "+wordNS+">"+strings.TrimSpace(body)+"</w:document>")
	}
	if core != "" {
		add("docProps/core.xml", core)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
