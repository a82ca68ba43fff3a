// Package tokenizer counts and splits text in cl100k_base tokens using offline BPE tables, so
// chunk sizes and token budgets match what OpenAI-style models see without any download.
package tokenizer

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer is a cl100k_base tokenizer. It is safe for concurrent use.
type Tokenizer struct {
	// loaded is closed once codec or err is set: Load sets them in the background.
	loaded chan struct{}
	codec  tokenizer.Codec
	err    error
}

// New returns a cl100k_base tokenizer.
func New() (*Tokenizer, error) {
	t := Load()
	if err := t.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// Load returns a cl100k_base tokenizer whose tables load in the background, and the first call
// that needs them waits for them. Loading is a noticeable part of a fresh `strata query`
// process, and a query needs the tokenizer only once its context is retrieved, so the two
// overlap.
// Err reports a failed load.
func Load() *Tokenizer {
	t := &Tokenizer{loaded: make(chan struct{})}
	go func() {
		defer close(t.loaded)
		c, err := tokenizer.Get(tokenizer.Cl100kBase)
		if err != nil {
			t.err = fmt.Errorf("load cl100k_base tables: %w", err)
			return
		}
		t.codec = c
	}()
	return t
}

// Err waits for the tables and reports whether they failed to load.
func (t *Tokenizer) Err() error {
	<-t.loaded
	return t.err
}

// Count returns the number of tokens in s.
func (t *Tokenizer) Count(s string) int {
	if t.Err() != nil {
		return (len(s) + 3) / 4 // the estimate below; the load error is reported by Err
	}
	n, err := t.codec.Count(s)
	if err != nil {
		// The codec only fails on text it cannot encode; a byte-based estimate keeps budgets
		// meaningful instead of failing a whole run.
		return (len(s) + 3) / 4
	}
	return n
}

// Ends returns, for each token of s, the byte offset in s just after the token. Offsets never
// split a UTF-8 sequence: a token that ends inside a multi-byte rune is merged with the next one,
// so every s[Ends[i]:Ends[j]] is valid text when s is.
func (t *Tokenizer) Ends(s string) ([]int, error) {
	if err := t.Err(); err != nil {
		return nil, err
	}
	_, pieces, err := t.codec.Encode(s)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	ends := make([]int, 0, len(pieces))
	off := 0
	for _, p := range pieces {
		off += len(p)
		if off > len(s) {
			off = len(s)
		}
		if off < len(s) && !runeStart(s[off]) {
			continue
		}
		ends = append(ends, off)
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(s) {
		if len(s) > 0 {
			ends = append(ends, len(s))
		}
	}
	return ends, nil
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
