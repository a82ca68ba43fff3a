// Package load reads documents from files and folders: plain text, Markdown, JSON Lines, and the
// text of PDF, HTML and DOCX files (pdf.go, html.go, docx.go). Inputs that cannot be used
// (binary, empty, not UTF-8, unreadable, malformed lines, corrupt or encrypted documents, PDFs
// without a text layer) and entries a folder walk leaves out (hidden, symbolic links, unsupported
// types) are reported by name and skipped, so that one bad file never stops a run and nothing is
// dropped unseen.
package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Document is a loaded document, before chunking.
type Document struct {
	ID    string
	Title string
	// Source is the absolute path of the file, symbolic links resolved, with ":LINE" for JSON
	// Lines records: the same file reached through two paths has one Source, which is how a run
	// and the store tell one input from another.
	Source   string
	File     string // Source without the line: the file alone
	Line     int    // line of a JSON Lines record, from 1; 0 for a text file
	Text     string
	Metadata map[string]any // nil when there is none
	// Pages holds, for a paged document (PDF), the byte offset in Text where each page starts:
	// Pages[i] is where page i+1 begins, so a span of Text maps to its pages (PageSpan). Nil
	// for documents without pages.
	Pages []int
	// Unmapped counts the glyphs of a PDF left out of Text because its fonts give them no
	// character (no ToUnicode entry, no glyph name that reads as one): each is a character the
	// reader sees and the text lacks.
	Unmapped int
}

// Problem is an input that was skipped, and why.
type Problem struct {
	Source string
	Err    error
	// Ignored marks an entry a folder walk leaves out by rule (hidden, a symbolic link, not a
	// regular file, an unsupported type) rather than an input that is broken: it is listed so
	// that nothing is dropped unseen, but there is nothing to fix.
	Ignored bool
}

func (p Problem) String() string { return p.Source + ": " + p.Err.Error() }

// MarshalText writes the problem as String does, so that JSON reports list skipped inputs as
// lines a reader can act on.
func (p Problem) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Errors a Problem wraps, so callers and tests can tell them apart.
var (
	ErrEmpty       = errors.New("empty document")
	ErrBinary      = errors.New("binary content (NUL bytes)")
	ErrNotUTF8     = errors.New("not valid UTF-8 text")
	ErrUnsupported = errors.New("unsupported file type (want .txt, .md, .markdown, .jsonl, .pdf, .html, .htm or .docx)")
	ErrMalformed   = errors.New("malformed JSON Lines record")
	ErrTooLarge    = errors.New("file larger than the limit")
	ErrCorrupt     = errors.New("corrupt or unreadable document")
	ErrEncrypted   = errors.New("encrypted document (save an unprotected copy to ingest it)")
	ErrNoText      = errors.New("no text layer: run OCR first")
	ErrControlName = errors.New("file name holds a control character (rename the file: its id could not be named to delete)")
	// The inputs a folder walk leaves out by rule; naming such a file directly loads it.
	ErrHidden     = errors.New("hidden (name starts with a dot; name it directly to ingest it)")
	ErrSymlink    = errors.New("symbolic link, not followed (name its target to ingest it)")
	ErrNotRegular = errors.New("not a regular file")
)

// MaxFileSize bounds a single text or JSON Lines input file; larger files are reported and
// skipped rather than read into memory.
const MaxFileSize = 256 << 20

// MaxDocumentFileSize bounds a PDF, HTML or DOCX file. Their parsers hold the whole file and
// its decoded structure in memory, several times its size, so the bound is lower than for text.
const MaxDocumentFileSize = 100 << 20

// Walk loads every document under paths and calls fn for each, in a deterministic order (paths in
// the order given, folder contents sorted by name).
//
// Document ids: a file found in a folder is identified by its path relative to that folder
// ("sub/notes.txt" for FOLDER/sub/notes.txt); a file named directly by its path relative to the
// current directory ("a/notes.txt"), or its absolute path when it lies outside; a JSON Lines
// record by its "id" field. Ids use forward slashes on every system.
//
// Every input Walk does not load is a Problem, never silently dropped: broken inputs, and the
// entries a folder walk leaves out by rule (hidden files and folders, symbolic links, other
// non-regular files, unsupported extensions; Problem.Ignored). A file named directly with an
// unsupported extension is a Problem the user can fix, not an ignored one. Walk stops early only
// when fn returns an error or ctx is cancelled.
func Walk(ctx context.Context, paths []string, fn func(Document) error) ([]Problem, error) {
	var problems []Problem
	report := func(src string, err error) { problems = append(problems, Problem{Source: src, Err: err}) }
	ignore := func(src string, err error) {
		problems = append(problems, Problem{Source: src, Err: err, Ignored: true})
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "" // ids of files named directly are then absolute paths
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			report(root, unwrapPathError(err))
			continue
		}
		if !info.IsDir() {
			if !supported(root) {
				report(root, ErrUnsupported)
				continue
			}
			if err := loadFile(ctx, root, directID(cwd, root), fn, report); err != nil {
				return problems, err
			}
			continue
		}
		files, err := listFolder(root, report, ignore)
		if err != nil {
			return problems, err
		}
		for _, f := range files {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				rel = f
			}
			if err := loadFile(ctx, f, filepath.ToSlash(rel), fn, report); err != nil {
				return problems, err
			}
		}
	}
	return problems, nil
}

// directID is the id of a file named directly: its path relative to the current directory when
// it lies inside it, so "a/notes.txt", "./a/notes.txt" and "$PWD/a/notes.txt" agree, else its
// absolute path.
func directID(cwd, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(path))
	}
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// SourcePath is the absolute path of a file with symbolic links resolved, so that one file has one
// source however it was reached.
func SourcePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// listFolder lists the files a folder walk loads, reporting unreadable entries and ignoring
// (see Problem.Ignored) the ones left out by rule.
func listFolder(root string, report, ignore func(string, error)) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			report(path, unwrapPathError(err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if path == root {
			return nil
		}
		switch {
		case strings.HasPrefix(d.Name(), "."):
			ignore(path, ErrHidden)
			if d.IsDir() {
				return fs.SkipDir
			}
		case d.IsDir():
		case d.Type()&fs.ModeSymlink != 0:
			ignore(path, ErrSymlink)
		case !d.Type().IsRegular():
			ignore(path, ErrNotRegular)
		case !supported(path):
			ignore(path, ErrUnsupported)
		default:
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	sort.Strings(files)
	return files, nil
}

func supported(path string) bool {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".txt", ".md", ".markdown", ".jsonl":
		return true
	default:
		return extractorFor(ext) != nil
	}
}

// loadFile reads one file; id is the document id for text files (see Walk).
func loadFile(ctx context.Context, path, id string, fn func(Document) error, report func(string, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".jsonl" && strings.ContainsFunc(id, unicode.IsControl) {
		report(path, ErrControlName)
		return nil
	}
	if ext == ".jsonl" {
		return loadJSONL(ctx, path, fn, report)
	}
	if x := extractorFor(ext); x != nil {
		return loadExtracted(path, id, x, fn, report)
	}
	data, err := readFile(path, MaxFileSize)
	if err != nil {
		report(path, err)
		return nil
	}
	text, err := cleanText(data)
	if err != nil {
		report(path, err)
		return nil
	}
	src := SourcePath(path)
	return fn(Document{ID: id, Title: titleOf(path, text), Source: src, File: src, Text: text})
}

// readFile reads a whole file of at most limit bytes.
func readFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	// Read into a buffer of the file's size and one byte more (to see the end), as os.ReadFile
	// does: io.ReadAll grows its buffer by doubling, which for a huge file held about twice its
	// size at the last copy.
	capacity := 512
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() <= limit {
		capacity = int(info.Size()) + 1
	}
	data := make([]byte, 0, capacity)
	r := io.LimitReader(f, limit+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, unwrapPathError(err)
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew since Stat: let append grow it
		}
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (%d MiB)", ErrTooLarge, limit>>20)
	}
	return data, nil
}

// cleanText validates raw bytes as a text document and normalizes line endings and the BOM.
func cleanText(data []byte) (string, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return "", ErrBinary
	}
	if !utf8.Valid(data) {
		return "", ErrNotUTF8
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return "", ErrEmpty
	}
	return text, nil
}

// titleOf picks a caption for a text file: the first Markdown heading, else the first line when it
// is short, else the file name.
func titleOf(path, text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			return strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
		if len(line) <= 100 && !strings.HasSuffix(line, ".") {
			return line
		}
		break
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

type jsonRecord struct {
	ID       *string        `json:"id"`
	Title    string         `json:"title"`
	Text     *string        `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

func loadJSONL(ctx context.Context, path string, fn func(Document) error, report func(string, error)) error {
	f, err := os.Open(path)
	if err != nil {
		report(path, unwrapPathError(err))
		return nil
	}
	defer f.Close()
	file := SourcePath(path)
	r := bufio.NewReaderSize(f, 1<<20)
	records := 0
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, readErr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			doc, err := parseRecord(line)
			if err != nil {
				report(fmt.Sprintf("%s:%d", path, lineNo), err)
			} else {
				doc.Source, doc.File, doc.Line = fmt.Sprintf("%s:%d", file, lineNo), file, lineNo
				records++
				if err := fn(doc); err != nil {
					return err
				}
			}
		}
		if readErr == io.EOF {
			break
		}
		if readErr != nil {
			report(path, fmt.Errorf("read after line %d: %w", lineNo, readErr))
			break
		}
	}
	if records == 0 {
		report(path, fmt.Errorf("%w: no usable records", ErrEmpty))
	}
	return nil
}

// parseRecord reads one JSON Lines record: "id" and "text" are required, "title" and "metadata"
// (an object) optional; other fields are ignored.
func parseRecord(line []byte) (Document, error) {
	if bytes.IndexByte(line, 0) >= 0 {
		return Document{}, ErrBinary
	}
	if !utf8.Valid(line) {
		return Document{}, ErrNotUTF8
	}
	var rec jsonRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return Document{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if rec.ID == nil || strings.TrimSpace(*rec.ID) == "" {
		return Document{}, fmt.Errorf("%w: missing \"id\"", ErrMalformed)
	}
	if i := strings.IndexFunc(*rec.ID, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString((*rec.ID)[i:])
		return Document{}, fmt.Errorf("%w: \"id\" holds the control character %U (an id must be printable, to be named to delete)", ErrMalformed, r)
	}
	if rec.Text == nil {
		return Document{}, fmt.Errorf("%w: missing \"text\"", ErrMalformed)
	}
	text := strings.ReplaceAll(*rec.Text, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return Document{}, ErrEmpty
	}
	title := strings.TrimSpace(rec.Title)
	if title == "" {
		title = *rec.ID
	}
	return Document{ID: *rec.ID, Title: title, Text: text, Metadata: rec.Metadata}, nil
}

// unwrapPathError drops the *fs.PathError wrapper: the Problem already names the path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
