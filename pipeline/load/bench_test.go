package load

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
)

// BenchmarkExtract measures extraction speed per format on generated documents of about 1 MB of
// text; MB/s is per MB of text extracted (file sizes differ: PDF content streams and DOCX parts
// are compressed, file-MB reports them).
//
//	go test -run '^$' -bench Extract -benchmem ./pipeline/load
func BenchmarkExtract(b *testing.B) {
	sentence := "The harbor of Port Avel opens at dawn when the keepers record the tides and the merchants unload grain. "
	const textBytes = 1 << 20
	paragraphs := textBytes / (len(sentence) * 6)
	para := strings.Repeat(sentence, 6)

	var html strings.Builder
	html.WriteString("<html><head><meta charset=\"utf-8\"><title>Bench</title></head><body><nav>Home</nav><main>")
	var body strings.Builder
	for range paragraphs {
		html.WriteString("<p>" + para + "</p>\n")
		body.WriteString("<w:p><w:r><w:t>" + para + "</w:t></w:r></w:p>")
	}
	html.WriteString("</main></body></html>")

	formats := []struct {
		name string
		x    extractor
		data func(*testing.B) []byte
	}{
		{"pdf", extractPDF, func(b *testing.B) []byte { return benchPDF(b, sentence, textBytes) }},
		{"html", extractHTML, func(*testing.B) []byte { return []byte(html.String()) }},
		{"docx", extractDOCX, func(*testing.B) []byte { return docx(&testing.T{}, body.String(), coreXML) }},
	}
	for _, f := range formats {
		b.Run(f.name, func(b *testing.B) {
			data := f.data(b)
			doc, err := safeExtract(f.x, data)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(doc.Text)))
			for b.Loop() {
				if _, err := safeExtract(f.x, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/(1<<20), "file-MB")
		})
	}
}

// benchPDF writes about textBytes of text on A4 pages, 60 lines of 95 characters each.
func benchPDF(b *testing.B, sentence string, textBytes int) []byte {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetFont("Helvetica", "", 9)
	line := strings.Repeat(sentence, 2)[:95]
	for written := 0; written < textBytes; {
		pdf.AddPage()
		for i := range 60 {
			pdf.Text(10, 15+float64(i)*4.5, line)
			written += len(line)
		}
	}
	var buf strings.Builder
	if err := pdf.Output(&buf); err != nil {
		b.Fatal(fmt.Errorf("bench PDF: %w", err))
	}
	return []byte(buf.String())
}

var (
	ports = []string{"Port Avel", "Saltmere", "Gull Point", "the north quay", "Vell", "Harrow", "Stillwater"}
	cargo = []string{"grain", "salt", "timber", "wool", "iron", "letters", "cattle", "wine", "tar", "rope", "glass"}
)

// BenchmarkPDFPages measures extraction time against the page count of a PDF whose pages are
// all in one /Kids list (as fpdf and many producers write them): time per page should not grow
// with the pages.
//
//	go test -run '^$' -bench PDFPages -benchmem ./pipeline/load
func BenchmarkPDFPages(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			pdf := fpdf.New("P", "mm", "A5", "")
			pdf.SetFont("Helvetica", "", 10)
			for i := range n {
				pdf.AddPage()
				// Words that differ from page to page, so that no line is a running header.
				pdf.Text(15, 30, fmt.Sprintf("Crossing %d left %s at dawn with %s.", i+1, ports[i%len(ports)], cargo[i%len(cargo)]))
			}
			var buf strings.Builder
			if err := pdf.Output(&buf); err != nil {
				b.Fatal(err)
			}
			data := []byte(buf.String())
			for b.Loop() {
				if _, err := safeExtract(extractPDF, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/page")
		})
	}
}
