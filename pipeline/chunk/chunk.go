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
	// Start and End are the byte offsets of Text in the document's text: Text is
	// text[Start:End]. They place the window on the document's pages (load.PageSpan).
	Start, End int
}

// Split cuts text into windows of at most opt.Size tokens, consecutive windows sharing opt.Overlap
// tokens. Chunk ids hash the document id with the window text and the number of identical windows
// before it in the document (see ID): re-chunking the same document yields the same ids, a
// passage that moves within a changed document keeps its id, identical passages of two documents
// stay distinct chunks, and so do identical windows of one document (a repeated boilerplate
// paragraph), so every window is stored.
//
// The text is tokenized in segments of about segmentBytes cut where cl100k_base tokenization is
// known to split anyway (see cutPoint), and only the token offsets of the window being cut are
// kept, so a huge document needs memory for its text and its pieces, not for every token of it.
//
// opt must pass Validate. Split does not check it again: options are validated once, where they
// are set (pipeline.Options.Validate), not once per document.
func Split(tok *tokenizer.Tokenizer, documentID, text string, opt Options) ([]Piece, error) {
	return split(tok, documentID, text, opt, segmentBytes)
}

// segmentBytes is the size of the segments Split tokenizes at once: the token offsets of one
// segment (a few hundred thousand) are what Split holds beyond its pieces.
const segmentBytes = 1 << 20

func split(tok *tokenizer.Tokenizer, documentID, text string, opt Options, segment int) ([]Piece, error) {
	var pieces []Piece
	seen := map[string]int{} // window text → windows with that text so far
	step := opt.Size - opt.Overlap
	var ends []int // byte offsets just after tokens base, base+1, …
	base := 0      // the document's token index of ends[0]
	pos := 0       // bytes of text tokenized so far
	for first := 0; ; first += step {
		// Tokenize until the window starting at token first is complete or the text is done.
		for pos < len(text) && base+len(ends) < first+opt.Size {
			cut := cutPoint(text, pos, segment)
			seg, err := tok.Ends(text[pos:cut])
			if err != nil {
				return nil, fmt.Errorf("chunk %s: %w", documentID, err)
			}
			for _, e := range seg {
				ends = append(ends, pos+e)
			}
			pos = cut
		}
		total := base + len(ends) // tokens known; all of them once pos == len(text)
		if first >= total {
			break
		}
		last := min(first+opt.Size, total) // exclusive token index
		start := 0
		if first > 0 {
			start = ends[first-1-base]
		}
		end := ends[last-1-base]
		window := text[start:end]
		repeat := seen[window]
		seen[window] = repeat + 1
		pieces = append(pieces, Piece{
			ID:     ID(documentID, window, repeat),
			Seq:    len(pieces),
			Text:   window,
			Tokens: last - first,
			Start:  start,
			End:    end,
		})
		if last == total && pos == len(text) {
			break
		}
		// The next window starts at token first+step and needs the end of the token before it.
		if drop := first + step - 1 - base; drop > 0 {
			drop = min(drop, len(ends))
			ends = append(ends[:0], ends[drop:]...)
			base += drop
		}
	}
	return pieces, nil
}

// cutPoint returns where the segment of text starting at pos ends: the first space at or after
// pos+size that has an ASCII letter on both sides, or the end of the text. cl100k_base's
// pre-tokenizer never joins a letter with the space after it (letters run up to the space, and
// the space starts the next word's piece), so tokenizing text[pos:cut] and text[cut:] apart
// gives the tokens of tokenizing them together. Text without such a space (no Latin words) is
// tokenized whole.
func cutPoint(text string, pos, size int) int {
	for i := pos + size; i+1 < len(text); i++ {
		if text[i] == ' ' && asciiLetter(text[i-1]) && asciiLetter(text[i+1]) {
			return i
		}
	}
	return len(text)
}

func asciiLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

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
