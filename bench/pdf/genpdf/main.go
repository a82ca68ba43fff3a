// Command genpdf writes a large PDF for the memory bench: PAGES pages (500), each with 40 lines
// of text and a noise image sized so that the file comes to about MB megabytes (20), as a
// scanned-and-OCRed report or a paper with figures is.
//
//	go run ./bench/pdf/genpdf -pages 500 -mb 20 -out /tmp/big.pdf
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/go-pdf/fpdf"
)

func main() {
	pages := flag.Int("pages", 500, "pages")
	mb := flag.Float64("mb", 20, "file size to reach, in MiB")
	out := flag.String("out", "big.pdf", "output file")
	flag.Parse()
	if err := write(*out, *pages, *mb); err != nil {
		fmt.Fprintln(os.Stderr, "genpdf:", err)
		os.Exit(1)
	}
}

var words = strings.Fields(`harbor ferry pilot tide grain salt timber merchant quay lighthouse
survey sandbank storm winter spring keeper ledger crossing captain cargo north south pier
channel beacon current anchor schooner dock warehouse customs toll berth`)

func write(path string, pages int, mb float64) error {
	rng := rand.New(rand.NewPCG(7, 53))
	// Each page's image carries what the text does not of the size asked for; noise does not
	// compress, so its pixels are its bytes.
	side := int(math.Sqrt(max(mb*(1<<20)/float64(pages)-3000, 1024)))
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCompression(true)
	for p := range pages {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "", 9)
		for l := range 40 {
			var b strings.Builder
			fmt.Fprintf(&b, "%d.%d", p+1, l+1)
			for b.Len() < 90 {
				b.WriteString(" " + words[rng.IntN(len(words))])
			}
			pdf.Text(15, 20+float64(l)*5, b.String())
		}
		img := image.NewGray(image.Rect(0, 0, side, side))
		for i := range img.Pix {
			img.Pix[i] = uint8(rng.UintN(256))
		}
		img.SetGray(0, 0, color.Gray{})
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return fmt.Errorf("page %d image: %w", p+1, err)
		}
		name := fmt.Sprintf("img%d", p)
		opt := fpdf.ImageOptions{ImageType: "PNG"}
		pdf.RegisterImageOptionsReader(name, opt, &buf)
		pdf.ImageOptions(name, 15, 225, 60, 60, false, opt, 0, "")
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := pdf.Output(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
