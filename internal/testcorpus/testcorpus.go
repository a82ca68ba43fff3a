// Package testcorpus locates the repository's test corpus (testdata/: the invented Corrin
// Archipelago, with questions and the facts an extractor must find) for tests in any package.
package testcorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// root is the repository's testdata folder, found from this file's location so that tests of
// every package reach it whatever their working directory.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// Dir is the folder of the corpus documents.
func Dir() string { return filepath.Join(root(), "corpus") }

// Questions is the questions file ({"id","question","answer","gold"} per line) for eval.
func Questions() string { return filepath.Join(root(), "questions.jsonl") }

// Expected is testdata/expected.json: entities with the documents that name them, and relations
// with the document that states them.
type Expected struct {
	Entities []struct {
		Name      string   `json:"name"`
		Documents []string `json:"documents"`
	} `json:"entities"`
	Relations []struct {
		Source   string `json:"source"`
		Target   string `json:"target"`
		Document string `json:"document"`
	} `json:"relations"`
}

// ReadExpected reads testdata/expected.json.
func ReadExpected() (Expected, error) {
	var e Expected
	path := filepath.Join(root(), "expected.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("parse %s: %w", path, err)
	}
	return e, nil
}
