package cypher

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// StatementStat is what the statements of one name (a .cypher file) cost in a store's lifetime:
// how many ran, the records they returned and the time they took, from sending to the last
// record (a statement inside a transaction that is retried counts once per attempt).
type StatementStat struct {
	Name    string
	Calls   int
	Rows    int
	Elapsed time.Duration
}

// statements accounts for every statement a runner sends and logs each at debug level, so that a
// slow Neo4j run shows where its time goes: a statement that runs thousands of times for a few
// rows each is a round trip to cut.
type statements struct {
	log zerolog.Logger
	mu  sync.Mutex
	by  map[string]*StatementStat
}

func (s *statements) record(name string, rows int, elapsed time.Duration) {
	s.log.Debug().Str("statement", name).Int("rows", rows).Dur("took", elapsed).Msg("cypher")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[string]*StatementStat{}
	}
	st := s.by[name]
	if st == nil {
		st = &StatementStat{Name: name}
		s.by[name] = st
	}
	st.Calls++
	st.Rows += rows
	st.Elapsed += elapsed
}

// stats returns the statements run so far, the most time first (then by name).
func (s *statements) stats() []StatementStat {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]StatementStat, 0, len(s.by))
	for _, st := range s.by {
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b StatementStat) int {
		return cmp.Or(cmp.Compare(b.Elapsed, a.Elapsed), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// StatementTotal returns how many statements this store sent to Neo4j so far and their time
// summed; 0 for stores not opened by Open (tests).
func (s *Store) StatementTotal() (int, time.Duration) {
	calls, elapsed := 0, time.Duration(0)
	for _, st := range s.StatementStats() {
		calls += st.Calls
		elapsed += st.Elapsed
	}
	return calls, elapsed
}

// StatementStats returns what the statements this store sent to Neo4j cost so far, the most time
// first (see StatementStat). Stores not opened by Open (tests) have none.
func (s *Store) StatementStats() []StatementStat {
	if r, ok := s.run.(*driverRunner); ok {
		return r.stmts.stats()
	}
	return nil
}
