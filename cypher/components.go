package cypher

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// UpdateComponents implements graph.Store (see graph.Analyzer.UpdateComponents) without GDS:
// graph.PlanComponents reads around the change one search level per statement
// (components_expand.cypher), which on an update of one document is a few small reads where
// projecting the whole RELATED graph for gds.wcc read every relationship. The renaming and the
// changed rows are written in one transaction; one scan of the entities before reads the
// largest id and the count, which the plan moves on.
func (s *Store) UpdateComponents(ctx context.Context, changed []string) (int, error) {
	if err := s.checkLease(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.updateComponents(ctx, changed)
	if err != nil {
		return 0, fmt.Errorf("cypher: update components: %w", err)
	}
	return n, nil
}

func (s *Store) updateComponents(ctx context.Context, changed []string) (int, error) {
	state := func() (maxID, components int64, err error) {
		rows, err := s.readRows(ctx, qComponentsState, nil)
		if err != nil {
			return 0, 0, err
		}
		if len(rows) == 0 {
			return 0, 0, fmt.Errorf("%s: no result", qComponentsState)
		}
		f := fields{m: rows[0]}
		maxID, components = f.int("maxId"), f.int("components")
		return maxID, components, f.err
	}
	maxID, before, err := state()
	if err != nil {
		return 0, err
	}
	expand := func(ctx context.Context, ids []string) (map[string]graph.ComponentNode, error) {
		out := make(map[string]graph.ComponentNode, len(ids))
		for _, part := range chunked(ids, s.batchSize) {
			rows, err := s.readRows(ctx, qComponentsExpand, map[string]any{"ids": part})
			if err != nil {
				return nil, err
			}
			for _, row := range rows {
				f := fields{m: row}
				id := f.str("id")
				cn := graph.ComponentNode{
					Component: f.int("componentId"), Degree: int(f.int("degree")),
					Related: int(f.int("related")), Neighbours: f.strs("neighbours"),
				}
				if f.err != nil {
					return nil, fmt.Errorf("%s: %w", qComponentsExpand, f.err)
				}
				out[id] = cn
			}
		}
		return out, nil
	}
	plan, err := graph.PlanComponents(ctx, changed, maxID+1, expand)
	if err != nil {
		return 0, err
	}
	if len(plan.Relabel) > 0 || len(plan.Writes) > 0 {
		writes := make([]map[string]any, len(plan.Writes))
		for i, w := range plan.Writes {
			writes[i] = map[string]any{"id": w.ID, "componentId": w.Component, "degree": int64(w.Degree)}
		}
		err := s.run.write(ctx, func(t tx) error {
			for _, r := range plan.Relabel {
				if _, err := t.run(ctx, s.q.get(qComponentsRelabel), map[string]any{"from": r.From, "to": r.Keep}); err != nil {
					return err
				}
			}
			return s.unwind(ctx, t, qComponentsWrite, writes)
		})
		if err != nil {
			return 0, err
		}
		// After the writes: an entity record copied while they ran belongs to the state before.
		if err := s.bumpGenerations(ctx, metaComponentGeneration); err != nil {
			return 0, err
		}
	}
	return int(before) + plan.Components - plan.Touched, nil
}
