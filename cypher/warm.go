package cypher

import "time"

// copyLoaded logs at debug level that an in-memory copy was (re)loaded from statement: rows read
// and the time from sending the statement to the copy being built, so that a slow first query
// shows which copies it waited for.
func (s *Store) copyLoaded(statement string, rows int, start time.Time) {
	s.log.Debug().Str("copy", statement).Int("rows", rows).Dur("took", time.Since(start)).Msg("copy loaded")
}
