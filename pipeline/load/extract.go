package load

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// extracted is what a format's reader gets out of a file: the text in reading order, paragraphs
// separated by a blank line, and what the file says about itself.
type extracted struct {
	Text     string
	Title    string         // the document's own title; "" when it has none
	Metadata map[string]any // author, created, pages, url: only the ones present
	Pages    []int          // see Document.Pages
	Unmapped int            // see Document.Unmapped
}

// extractor reads one format from the whole file's bytes.
type extractor func(data []byte) (extracted, error)

func extractorFor(ext string) extractor {
	switch ext {
	case ".pdf":
		return extractPDF
	case ".html", ".htm":
		return extractHTML
	case ".docx":
		return extractDOCX
	}
	return nil
}

// loadExtracted reads a PDF, HTML or DOCX file and hands fn its document, or reports why it
// cannot.
func loadExtracted(path, id string, x extractor, fn func(Document) error, report func(string, error)) error {
	data, err := readFile(path, MaxDocumentFileSize)
	if err != nil {
		report(path, err)
		return nil
	}
	doc, err := safeExtract(x, data)
	if err != nil {
		report(path, err)
		return nil
	}
	if strings.TrimSpace(doc.Text) == "" {
		report(path, ErrEmpty)
		return nil
	}
	title := doc.Title
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	src := SourcePath(path)
	return fn(Document{ID: id, Title: title, Source: src, File: src, Text: doc.Text, Metadata: doc.Metadata, Pages: doc.Pages, Unmapped: doc.Unmapped})
}

// safeExtract runs x and turns a panic inside it, where a parser library met input it did not
// expect, into an error: one malformed file must not stop the run.
func safeExtract(x extractor, data []byte) (doc extracted, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = extracted{}, fmt.Errorf("%w: parser failed: %v", ErrCorrupt, r)
		}
	}()
	doc, err = x(data)
	if err != nil {
		return extracted{}, err
	}
	if !utf8.ValidString(doc.Text) {
		// Decoders map what they cannot read to U+FFFD; invalid bytes left over mean a reader
		// passed raw bytes through.
		doc.Text = strings.ToValidUTF8(doc.Text, "\ufffd")
	}
	if strings.ContainsRune(doc.Text, 0) {
		doc.Text = strings.ReplaceAll(doc.Text, "\x00", "")
	}
	return doc, nil
}

// corrupt wraps a parser's error as ErrCorrupt, keeping its message.
func corrupt(format string, err error) error {
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrEncrypted) || errors.Is(err, ErrNoText) {
		return err
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, format, err)
}

// textBuilder assembles a document from inline text and breaks: whitespace inside text is
// collapsed to single spaces (except in preformatted text), and breaks between pieces keep the
// strongest one asked for, so nested blocks give one blank line, not several.
type textBuilder struct {
	b       strings.Builder
	pending int  // break before the next text: 0 none, 1 line, 2 paragraph
	space   bool // a space is owed before the next text on this line
	sep     string
}

const (
	lineBreak      = 1
	paragraphBreak = 2
)

// brk asks for a line or paragraph break before the next text.
func (t *textBuilder) brk(kind int) {
	t.pending = max(t.pending, kind)
}

// separate asks for sep (a table cell separator) before the next text on this line.
func (t *textBuilder) separate(sep string) { t.sep = sep }

// text appends inline text, collapsing its whitespace.
func (t *textBuilder) text(s string) {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if unicode.IsSpace(r) || r == '\u00a0' {
			t.space = true
			continue
		}
		if r == '\u00ad' {
			continue // a soft hyphen only shows where a word may break
		}
		t.flush()
		t.b.WriteRune(r)
	}
}

// pre appends preformatted text as it is, line breaks included.
func (t *textBuilder) pre(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return
	}
	t.flush()
	t.b.WriteString(s)
}

// flush writes what is owed before new text: a break, a cell separator or a space.
func (t *textBuilder) flush() {
	switch {
	case t.b.Len() == 0:
	case t.pending == paragraphBreak:
		t.b.WriteString("\n\n")
	case t.pending == lineBreak:
		t.b.WriteString("\n")
	case t.sep != "":
		t.b.WriteString(t.sep)
	case t.space:
		t.b.WriteByte(' ')
	}
	t.pending, t.space, t.sep = 0, false, ""
}

// String returns the text with trailing spaces of lines and runs of blank lines removed.
func (t *textBuilder) String() string { return tidyLines(t.b.String()) }

// tidyLines trims trailing spaces from lines and keeps at most one blank line in a row.
func tidyLines(s string) string {
	var out strings.Builder
	out.Grow(len(s))
	blank := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			blank++
			continue
		}
		if out.Len() > 0 {
			out.WriteString("\n")
			if blank > 0 {
				out.WriteString("\n")
			}
		}
		blank = 0
		out.WriteString(line)
	}
	return out.String()
}

// collapseSpace trims s and collapses its whitespace runs to single spaces.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// hasNUL reports binary content in what should be a text format.
func hasNUL(data []byte) bool { return bytes.IndexByte(data, 0) >= 0 }

// PageSpan returns the pages (from 1) that bytes [start, end) of a document's text fall on, given
// its Document.Pages; nil when pages is empty or the span is empty.
func PageSpan(pages []int, start, end int) []int {
	if len(pages) == 0 || end <= start {
		return nil
	}
	var out []int
	for i, p := range pages {
		next := int(^uint(0) >> 1)
		if i+1 < len(pages) {
			next = pages[i+1]
		}
		if p < end && next > start {
			out = append(out, i+1)
		}
	}
	return out
}
