package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// workspace is one store the server answers from, under a name.
type workspace struct {
	name string
	open Opener

	mu     sync.Mutex // guards opened; held while opening, so one open runs at a time
	opened *Store
}

// errUnavailable marks a store that cannot be opened (503).
type errUnavailable struct{ error }

func (e errUnavailable) Unwrap() error { return e.error }

// store returns the open store of ws, opening it first when it is not open yet or when the one
// open was replaced on disk. The caller calls release when it no longer reads through the store.
func (s *Server) store(ctx context.Context, ws *workspace) (o *Store, release func(), err error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if old := ws.opened; old != nil && old.Replaced != nil && old.Replaced() {
		s.log.Info().Str("workspace", ws.name).Str("location", old.Location).Msg("the store on disk was replaced: opening it again")
		ws.opened = nil
		s.retiring.Add(1)
		go func() {
			defer s.retiring.Done()
			old.inUse.Wait()
			old.Close()
		}()
	}
	if ws.opened == nil {
		o, err := ws.open(ctx)
		if err != nil {
			return nil, nil, errUnavailable{fmt.Errorf("the store cannot be opened: %w", err)}
		}
		s.log.Info().Str("workspace", ws.name).Str("backend", o.Kind).Str("location", o.Location).Msg("store opened")
		ws.opened = o
		s.metrics.storeGeneration.WithLabelValues(ws.name).Inc()
	}
	ws.opened.inUse.Add(1)
	return ws.opened, ws.opened.inUse.Done, nil
}

// names returns the workspaces' names, sorted.
func (s *Server) names() []string {
	names := make([]string, 0, len(s.workspaces))
	for name := range s.workspaces {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Open opens every workspace's store now rather than at its first request; the error names each
// workspace whose store cannot be opened yet (its requests get 503 until it can).
func (s *Server) Open(ctx context.Context) error {
	var errs []error
	for _, name := range s.names() {
		_, release, err := s.store(ctx, s.workspaces[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("workspace %s: %w", name, err))
			continue
		}
		release()
	}
	return errors.Join(errs...)
}

// Close releases the stores, after the last request.
func (s *Server) Close() {
	for _, ws := range s.workspaces {
		ws.mu.Lock()
		if ws.opened != nil {
			ws.opened.inUse.Wait()
			ws.opened.Close()
			ws.opened = nil
		}
		ws.mu.Unlock()
	}
	s.retiring.Wait()
}
