// Package load reads documents from files and folders: plain text, Markdown and JSON Lines.
// Inputs that cannot be used (binary, empty, not UTF-8, unreadable, malformed lines) are reported
// by name and skipped so that one bad file never stops a run.
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
	"unicode/utf8"
)

// Document is a loaded document, before chunking.
type Document struct {
	ID       string
	Title    string
	Source   string // file path, with ":LINE" for JSON Lines records
	Text     string
	Metadata map[string]any // nil when there is none
}

// Problem is an input that was skipped, and why.
type Problem struct {
	Source string
	Err    error
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
	ErrUnsupported = errors.New("unsupported file type (want .txt, .md, .markdown or .jsonl)")
	ErrMalformed   = errors.New("malformed JSON Lines record")
)

// MaxFileSize bounds a single input file; larger files are reported and skipped rather than
// read into memory.
const MaxFileSize = 256 << 20

// Walk loads every document under paths and calls fn for each, in a deterministic order (paths in
// the order given, folder contents sorted by name). Files in folders with unsupported extensions
// and hidden entries are ignored silently; a file named explicitly with an unsupported extension is
// a Problem. Walk stops early only when fn returns an error or ctx is cancelled.
func Walk(ctx context.Context, paths []string, fn func(Document) error) ([]Problem, error) {
	var problems []Problem
	report := func(src string, err error) { problems = append(problems, Problem{Source: src, Err: err}) }
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
			if err := loadFile(ctx, root, filepath.Base(root), fn, report); err != nil {
				return problems, err
			}
			continue
		}
		files, err := listFolder(root, report)
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

func listFolder(root string, report func(string, error)) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			report(path, unwrapPathError(err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && supported(path) {
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
	switch strings.ToLower(filepath.Ext(path)) {
	case ".txt", ".md", ".markdown", ".jsonl":
		return true
	}
	return false
}

// loadFile reads one file; id is the document id for text files (the path relative to the folder
// given, or the base name for a file given directly).
func loadFile(ctx context.Context, path, id string, fn func(Document) error, report func(string, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return loadJSONL(ctx, path, fn, report)
	}
	data, err := readFile(path)
	if err != nil {
		report(path, err)
		return nil
	}
	text, err := cleanText(data)
	if err != nil {
		report(path, err)
		return nil
	}
	return fn(Document{ID: id, Title: titleOf(path, text), Source: path, Text: text})
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file larger than %d MiB", MaxFileSize>>20)
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
	for _, line := range strings.Split(text, "\n") {
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
	r := bufio.NewReaderSize(f, 1<<20)
	records := 0
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, readErr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			src := fmt.Sprintf("%s:%d", path, lineNo)
			doc, err := parseRecord(line, src)
			if err != nil {
				report(src, err)
			} else {
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

func parseRecord(line []byte, src string) (Document, error) {
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
	return Document{ID: *rec.ID, Title: title, Source: src, Text: text, Metadata: rec.Metadata}, nil
}

// unwrapPathError drops the *fs.PathError wrapper: the Problem already names the path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
