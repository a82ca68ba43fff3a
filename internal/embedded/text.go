package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"

	"github.com/stratarag/strata/internal/graph"
)

// maxQueryTerms bounds the FTS5 expression built from one query; a pasted document must not turn
// into a query with thousands of terms.
const maxQueryTerms = 64

// textQuery returns the FTS5 query of a full-text index. bm25() is lower for better matches,
// so the score is its negation.
func textQuery(index graph.TextIndex) (string, bool) {
	switch index {
	case graph.ChunkText:
		return `SELECT c.id, -bm25(chunk_text) AS score FROM chunk_text JOIN chunks c ON c.rid = chunk_text.rowid
			WHERE chunk_text MATCH ? ORDER BY score DESC, c.id LIMIT ?`, true
	case graph.EntityText:
		return `SELECT e.id, -bm25(entity_text) AS score FROM entity_text JOIN entities e ON e.rid = entity_text.rowid
			WHERE entity_text MATCH ? ORDER BY score DESC, e.id LIMIT ?`, true
	}
	return "", false
}

// TextSearch returns the k best nodes of a full-text index for a free-text query, scored by BM25
// (higher is better). Any word of the query may match; the query is never FTS5 syntax.
func (s *Store) TextSearch(ctx context.Context, index graph.TextIndex, query string, k int) ([]graph.Hit, error) {
	what := fmt.Sprintf("text search %s", index)
	q, ok := textQuery(index)
	if !ok {
		return nil, fmt.Errorf("%s: no such text index", what)
	}
	match := ftsMatch(query)
	if match == "" || k <= 0 {
		return nil, ctxErr(ctx, what)
	}
	var hits []graph.Hit
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		hits, err = queryAll(ctx, tx, func(sc scanner, _ ...any) (graph.Hit, error) {
			var h graph.Hit
			err := sc.Scan(&h.ID, &h.Score)
			return h, err
		}, q, match, k)
		return err
	})
	return hits, err
}

// ftsMatch turns free text into an FTS5 expression that matches any of its words: every word
// becomes a quoted string (in which FTS5 gives no character a meaning except the quote, and words
// hold no quotes) and the strings are joined with OR. Words are runs of letters, digits and marks,
// which is what the unicode61 tokenizer indexes, so nothing the user types is ever parsed as FTS5
// syntax. It returns "" when the query holds no word.
func ftsMatch(query string) string {
	words := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
	seen := make(map[string]bool, len(words))
	var terms []string
	for _, w := range words {
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return strings.Join(terms, " OR ")
}
