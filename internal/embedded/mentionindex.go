package embedded

import (
	"context"
	"database/sql"
	"sync"

	"github.com/stratarag/strata/internal/mentionindex"
)

// genMentions counts writes to chunks and HAS_ENTITY mentions (schema version 6 on): what
// DocumentLinks reads.
const genMentions = "mentions"

// mentionsVersion is the first schema version whose generations table counts genMentions.
const mentionsVersion = 6

// ratingIndexVersion is the first schema version with the index communities_rating.
const ratingIndexVersion = 6

// version6Migration is the 5 → 6 upgrade: the mentions generation, so that a long-lived reader
// can keep the mentions in memory (mentionIndex) and notice when a write changes them; and
// communities_rating, which ranks communities without reading their rows
// (expandCommunitiesSQL).
func version6Migration() []string {
	return []string{
		`INSERT INTO generations (name, gen) VALUES ('` + genMentions + `', 0)`,
		`CREATE INDEX communities_rating ON communities (id, rating)`,
	}
}

// mentionCache keeps the mention index (see package mentionindex) of a Resident store between
// calls, with the generation of the mentions it was read at. Only a Resident store builds it:
// loading it reads every mention, which costs a fresh query process more than the SQL it
// replaces.
type mentionCache struct {
	mu  sync.Mutex
	gen int64
	ix  *mentionindex.Index
}

// mentionIndex returns the mention index of tx's snapshot, loading it when the cached one is of
// another generation; nil (and no error) when the store's schema predates the mentions
// generation, in which case callers read SQLite.
func (s *Store) mentionIndex(ctx context.Context, tx *sql.Tx) (*mentionindex.Index, error) {
	if s.version < mentionsVersion {
		return nil, nil
	}
	s.mentions.mu.Lock()
	defer s.mentions.mu.Unlock()
	gen, err := generation(ctx, tx, genMentions)
	if err != nil {
		return nil, err
	}
	if s.mentions.ix != nil && s.mentions.gen == gen {
		return s.mentions.ix, nil
	}
	ix, err := loadMentionIndex(ctx, tx)
	if err != nil {
		return nil, err
	}
	s.mentions.gen, s.mentions.ix = gen, ix
	return ix, nil
}

func loadMentionIndex(ctx context.Context, tx *sql.Tx) (*mentionindex.Index, error) {
	b := mentionindex.NewBuilder()
	rows, err := tx.QueryContext(ctx, `SELECT id, document_id, seq FROM chunks ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, doc string
		var seq int64
		if err := rows.Scan(&id, &doc, &seq); err != nil {
			return nil, err
		}
		b.AddChunk(id, doc, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, `SELECT chunk_id, entity_id FROM mentions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var chunkID, entityID string
		if err := rows.Scan(&chunkID, &entityID); err != nil {
			return nil, err
		}
		b.AddMention(chunkID, entityID)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return b.Index(), nil
}
