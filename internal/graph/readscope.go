package graph

import (
	"context"
	"sync"
)

// A read scope marks the store calls of one unit of work (one query) as a whole. A store that
// keeps copies of its data in memory, each valid for one generation of what it copies, checks
// those generations once per scope instead of once per call: on Neo4j every check is a round
// trip, and a hi query makes a dozen calls. Within a scope the copies are as current as the
// generations read at its first check; a write committed later is seen by the next scope.
// Stores without such copies ignore scopes.

type readScopeKey struct{}

// ReadScope memoizes what a store reads once per scope. The zero value is ready to use.
type ReadScope struct {
	once sync.Once
	vals map[string]string
	err  error
}

// WithReadScope returns ctx carrying a new read scope.
func WithReadScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, readScopeKey{}, &ReadScope{})
}

// ReadScopeOf returns the read scope ctx carries, or nil.
func ReadScopeOf(ctx context.Context) *ReadScope {
	s, _ := ctx.Value(readScopeKey{}).(*ReadScope)
	return s
}

// Values returns what read returned at the scope's first call, calling it then; every later
// call, concurrent ones included, gets the same values and error.
func (s *ReadScope) Values(read func() (map[string]string, error)) (map[string]string, error) {
	s.once.Do(func() { s.vals, s.err = read() })
	return s.vals, s.err
}
