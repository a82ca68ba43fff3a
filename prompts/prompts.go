// Package prompts holds what strata's model tasks (the packages of internal/llmtask) share: the
// data fences, the record and answer formats and their parsers, the record format rules and
// examples every task's templates may use (templates/extract_shared.tmpl), and the template
// helpers a task package renders its own prompt with (Templates, RenderPair, Digest).
//
// Templates are text/template files embedded with go:embed. Every prompt is a Prompt: a system
// message that stays the same across calls of one kind (so providers that cache prompt prefixes
// can reuse it) and a user message carrying the data. Document text is always fenced between
// marker lines and the model is told to treat it as data, never as instructions.
//
// Parsers never fail on malformed model output: bad records are dropped and counted.
package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"text/template"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// Prompt is a rendered prompt: one system and one user message.
type Prompt struct {
	System string
	User   string
}

// ErrUnreadable is wrapped by the error of a model task (the packages of internal/llmtask) when
// the model's answer, after any retry the task makes, holds nothing the task's parser can use
// (extraction salvages every answer instead). It is the one failure a caller may absorb with a
// model-free stand-in (an extractive report or summary entity, a map batch without points);
// other errors (the API, cancellation) should stop the work. It is defined here, beside the
// answer formats, so that a package that never calls a model itself, such as retrieval, can
// test for it.
var ErrUnreadable = errors.New("unreadable answer")

// Digest is a short digest of a task's template files (those of fsys matching patterns) and of
// the shared templates they may use, by path and content. A task whose prompts decide what a
// store holds (extraction) puts it in the name it records, so that a store refuses to mix what
// two prompts found and a changed prompt is visible in the store and in logs. A file missing
// makes it "unknown".
func Digest(fsys fs.FS, patterns ...string) string {
	files := map[string][]byte{}
	b, err := templateFS.ReadFile(sharedTemplates)
	if err != nil {
		return "unknown"
	}
	files[sharedTemplates] = b
	for _, pat := range patterns {
		names, err := fs.Glob(fsys, pat)
		if err != nil || len(names) == 0 {
			return "unknown"
		}
		for _, n := range names {
			b, err := fs.ReadFile(fsys, n)
			if err != nil {
				return "unknown"
			}
			files[n] = b
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// newTemplate is an empty template set with the functions every prompt may use.
func newTemplate() *template.Template {
	return template.New("prompts").Funcs(template.FuncMap{"join": strings.Join})
}

// sharedTemplates are the parts of prompts that tasks share (the record format rules and
// examples), which every task's templates may use.
const sharedTemplates = "templates/extract_shared.tmpl"

// Templates parses the templates of one model task (a package of internal/llmtask that holds
// its prompt beside the code that sends it), with the functions every prompt may use. The files
// are embedded in the task's binary and covered by its tests, so a parse failure is a
// programming error and Templates panics, like template.Must.
func Templates(fsys fs.FS, pattern string) *template.Template {
	t, err := newTemplate().ParseFS(templateFS, sharedTemplates)
	if err == nil {
		t, err = t.ParseFS(fsys, pattern)
	}
	if err != nil {
		panic(fmt.Sprintf("prompts: parse embedded templates %s: %v", pattern, err))
	}
	return t
}

// RenderPair renders the "<base>.system" and "<base>.user" templates of t into a Prompt, each
// trimmed of surrounding blank space.
func RenderPair(t *template.Template, base string, data any) (Prompt, error) {
	sys, err := Render(t, base+".system", data)
	if err != nil {
		return Prompt{}, err
	}
	user, err := Render(t, base+".user", data)
	if err != nil {
		return Prompt{}, err
	}
	return Prompt{System: sys, User: user}, nil
}

// Render executes the template name of t, trimmed of surrounding blank space.
func Render(t *template.Template, name string, data any) (string, error) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}
