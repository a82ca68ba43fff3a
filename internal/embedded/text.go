package embedded

import (
	"context"
	"database/sql"
	"errors"
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
//
// The node ids are looked up for the best k matches only, not for every match: a question's
// words match a few thousand entity descriptions, and looking each one up cost a third of the
// search. hits holds every match's score (MATERIALIZED: bm25 runs once per match); cut is the
// k-th best score, and every match scoring at least that much is kept, so that the order of
// equal scores (by id) and the result are exactly those of sorting all matches by score, then id.
func textQuery(index graph.TextIndex) (string, bool) {
	var fts, table string
	switch index {
	case graph.ChunkText:
		fts, table = "chunk_text", "chunks"
	case graph.EntityText:
		fts, table = "entity_text", "entities"
	default:
		return "", false
	}
	// fts and table come from the switch above, never from the caller.
	return `WITH hits AS MATERIALIZED (
			SELECT rowid AS rid, -bm25(` + fts + `) AS score FROM ` + fts + ` WHERE ` + fts + ` MATCH ?1),
		cut AS (SELECT score FROM hits ORDER BY score DESC LIMIT 1 OFFSET ?2 - 1)
		SELECT n.id, h.score FROM hits h JOIN ` + table + ` n ON n.rid = h.rid
		WHERE h.score >= coalesce((SELECT score FROM cut), -1e308)
		ORDER BY h.score DESC, n.id LIMIT ?2`, true
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
		if s.resident {
			// The in-memory copy when it is current (else FTS5, below, while it loads), unless
			// a word of the query is a phrase of several tokens to FTS5 (then FTS5 too).
			ti, err := s.textIndex(ctx, tx, index)
			if err != nil {
				return err
			}
			if ti != nil {
				terms, err := queryTerms(ctx, query, ftsTokens)
				if err == nil {
					hits, err = ti.Search(ctx, sqliteLn(tx), terms, k)
					return err
				}
				if !errors.Is(err, errNotOneToken) {
					return err
				}
			}
		}
		var err error
		hits, err = queryAll(ctx, s.cached(tx), func(sc scanner, _ ...any) (graph.Hit, error) {
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
	words := matchWords(query)
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = `"` + w + `"`
	}
	return strings.Join(terms, " OR ")
}

// matchWords returns the words of ftsMatch's expression, in order: lower-cased, each once, at
// most maxQueryTerms.
func matchWords(query string) []string {
	words := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
	seen := make(map[string]bool, len(words))
	var out []string
	for _, w := range words {
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}
