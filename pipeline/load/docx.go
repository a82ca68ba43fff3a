package load

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDOCXPart bounds the decompressed size of the XML parts read from a DOCX file, so that a
// small archive that inflates to gigabytes (a zip bomb) is refused rather than read.
const maxDOCXPart = 256 << 20

// oleMagic starts an OLE compound file: what Word writes for a password-protected .docx (and
// for the legacy .doc format).
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// extractDOCX reads a Word document: the paragraphs, headings and table cells of its body
// (word/document.xml) in order, a blank line between paragraphs and " | " between the cells of
// a row; the title from docProps/core.xml, else the first Title or Heading paragraph; the author
// and creation date from docProps/core.xml.
func extractDOCX(data []byte) (extracted, error) {
	if bytes.HasPrefix(data, oleMagic) {
		return extracted{}, fmt.Errorf("%w (or a legacy .doc saved as .docx)", ErrEncrypted)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return extracted{}, corrupt("DOCX", err)
	}
	body, err := readZipPart(zr, "word/document.xml")
	if err != nil {
		return extracted{}, corrupt("DOCX", err)
	}
	text, heading, err := docxBody(body)
	if err != nil {
		return extracted{}, corrupt("DOCX", fmt.Errorf("word/document.xml: %w", err))
	}
	var props docxCore
	if core, err := readZipPart(zr, "docProps/core.xml"); err == nil {
		// Document properties are optional; a body without them is still a document.
		_ = xml.Unmarshal(core, &props)
	}
	title := collapseSpace(props.Title)
	if title == "" {
		title = heading
	}
	return extracted{Text: text, Title: title, Metadata: props.metadata()}, nil
}

var errNoPart = errors.New("missing part")

func readZipPart(zr *zip.Reader, name string) ([]byte, error) {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, maxDOCXPart+1))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if len(data) > maxDOCXPart {
			return nil, fmt.Errorf("%s inflates past %d MiB", name, maxDOCXPart>>20)
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w %s (not a Word document)", errNoPart, name)
}

// docxCore is docProps/core.xml, the Dublin Core properties of the document.
type docxCore struct {
	Title   string `xml:"title"`
	Creator string `xml:"creator"`
	Created string `xml:"created"`
}

func (c docxCore) metadata() map[string]any {
	m := map[string]any{}
	if v := collapseSpace(c.Creator); v != "" {
		m["author"] = v
	}
	if v := strings.TrimSpace(c.Created); v != "" {
		m["created"] = v
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// docxBody walks word/document.xml and returns its text and its first heading. It reads the
// WordprocessingML elements that carry text (w:t, w:tab, w:br, w:cr, w:noBreakHyphen) and the
// ones that structure it (w:p, w:tc, w:tr, w:tbl, w:pStyle); deleted revisions (w:delText),
// field codes (w:instrText) and everything else are left out.
func docxBody(data []byte) (text, heading string, err error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var tb textBuilder
	var para strings.Builder // the current paragraph's text, for its heading check
	style := ""              // the current paragraph's style id
	inText := false
	cells := []int{} // per open table row: cells seen so far
	cellDepth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				style = ""
				para.Reset()
				if cellDepth == 0 {
					tb.brk(paragraphBreak)
				} else {
					tb.space = true
				}
			case "pStyle":
				style = xmlAttr(t, "val")
			case "t":
				inText = true
			case "tab":
				tb.text(" ")
			case "br", "cr":
				tb.brk(lineBreak)
			case "noBreakHyphen":
				tb.text("-")
				para.WriteString("-")
			case "tbl":
				tb.brk(paragraphBreak)
			case "tr":
				tb.brk(lineBreak)
				cells = append(cells, 0)
			case "tc":
				cellDepth++
				if n := len(cells); n > 0 {
					if cells[n-1] > 0 {
						tb.separate(" | ")
					}
					cells[n-1]++
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "p":
				if heading == "" && isHeadingStyle(style) {
					heading = collapseSpace(para.String())
				}
			case "t":
				inText = false
			case "tr":
				if n := len(cells); n > 0 {
					cells = cells[:n-1]
				}
				tb.brk(lineBreak)
			case "tc":
				cellDepth--
			case "tbl":
				tb.brk(paragraphBreak)
			}
		case xml.CharData:
			if inText {
				tb.text(string(t))
				para.Write(t)
			}
		}
	}
	return tb.String(), heading, nil
}

func xmlAttr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// isHeadingStyle reports Word's built-in title and heading paragraph styles ("Title",
// "Heading1", …; style ids are not localized).
func isHeadingStyle(style string) bool {
	s := strings.ToLower(style)
	return s == "title" || strings.HasPrefix(s, "heading")
}
