// Package chunk splits document text into overlapping windows of tokens and gives each window a
// content-hash id.
package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/stratarag/strata/internal/tokenizer"
)

// Options sets the window size and overlap in tokens.
type Options struct {
	Size    int
	Overlap int
}

// DefaultOptions returns GraphRAG's (and HiRAG's) default text units: windows of 1200 tokens
// sharing 100.
func DefaultOptions() Options { return Options{Size: 1200, Overlap: 100} }

// Validate reports options that cannot produce chunks.
func (o Options) Validate() error {
	if o.Size <= 0 {
		return fmt.Errorf("chunk size must be positive, got %d", o.Size)
	}
	if o.Overlap < 0 || o.Overlap >= o.Size {
		return fmt.Errorf("chunk overlap must be in [0, size), got %d with size %d", o.Overlap, o.Size)
	}
	return nil
}

// Piece is one window of a document.
type Piece struct {
	ID     string
	Seq    int
	Text   string
	Tokens int
}

// Split cuts text into windows of at most opt.Size tokens, consecutive windows sharing opt.Overlap
// tokens. Chunk ids hash the document id with the window text and the number of identical windows
// before it in the document (see ID): re-chunking the same document yields the same ids, a
// passage that moves within a changed document keeps its id, identical passages of two documents
// stay distinct chunks, and so do identical windows of one document (a repeated boilerplate
// paragraph), so every window is stored.
//
// opt must pass Validate. Split does not check it again: options are validated once, where they
// are set (pipeline.Options.Validate), not once per document.
func Split(tok *tokenizer.Tokenizer, documentID, text string, opt Options) ([]Piece, error) {
	ends, err := tok.Ends(text)
	if err != nil {
		return nil, fmt.Errorf("chunk %s: %w", documentID, err)
	}
	var pieces []Piece
	seen := map[string]int{} // window text → windows with that text so far
	step := opt.Size - opt.Overlap
	for first := 0; first < len(ends); first += step {
		last := min(first+opt.Size, len(ends)) // exclusive token index
		start := 0
		if first > 0 {
			start = ends[first-1]
		}
		window := text[start:ends[last-1]]
		repeat := seen[window]
		seen[window] = repeat + 1
		pieces = append(pieces, Piece{
			ID:     ID(documentID, window, repeat),
			Seq:    len(pieces),
			Text:   window,
			Tokens: last - first,
		})
		if last == len(ends) {
			break
		}
	}
	return pieces, nil
}

// ID returns the content-hash id of a chunk of a document: the repeat-th window (from 0) of the
// document with this text. The first occurrence hashes only the document id and the text, the
// form ids had before repeats were counted, so stores written then keep their chunk ids.
func ID(documentID, text string, repeat int) string {
	h := sha256.New()
	h.Write([]byte(documentID))
	h.Write([]byte{0})
	h.Write([]byte(text))
	if repeat > 0 {
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(repeat)))
	}
	return "c" + hex.EncodeToString(h.Sum(nil))[:32]
}
