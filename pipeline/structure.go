package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/layers"
)

// StructureReport says how a run brought the structure up to date.
type StructureReport struct {
	// Mode is "update" (only what the run changed: see docs/ARCHITECTURE.md, Updates), "build"
	// (everything from scratch) or "" (the structure was up to date).
	Mode string
	// Reason says why a run that could have updated built instead.
	Reason string
	// Changed is the number of changed entities an update applied.
	Changed int
	// Layers is what an update did to each summary layer.
	Layers []layers.LayerUpdate
	// Communities is what UpdateCommunities kept (a build reports every community).
	Communities graph.CommunityUpdate
}

// structure brings the graph-wide stages up to date when the graph changed since they last
// completed: the hierarchical index, WCC, Leiden, reports. A store whose structure was complete
// before the run is updated with what the run changed (update); otherwise, on --restructure, or
// past the drift bound (updateShare), everything is built again (build).
func (in *Ingester) structure(ctx context.Context, rep *Report) error {
	stale, c, err := readChanges(ctx, in.Store)
	if err != nil {
		return err
	}
	if !graph.StructurePending(stale) && !in.Options.Restructure {
		in.Log.Info().Msg("graph unchanged; communities are up to date")
		return nil
	}
	if stale == graph.StructureChanged && !in.Options.Restructure {
		within, err := withinUpdateBound(ctx, in.Store, c.drift+c.size())
		if err != nil {
			return err
		}
		if within {
			err := in.updateStructure(ctx, rep, c)
			if !errors.Is(err, layers.ErrNeedsBuild) {
				return err
			}
			rep.Structure.Reason = "the graph has grown big enough for summary layers"
		} else {
			rep.Structure.Reason = fmt.Sprintf("more than %.0f %% of the graph changed since the structure was last built (%d entities)", 100*updateShare, c.drift+c.size())
		}
	} else if in.Options.Restructure {
		rep.Structure.Reason = "--restructure"
	} else if in.changes != nil {
		rep.Structure.Reason = in.changes.reason
	}
	return in.buildStructure(ctx, rep, stale)
}

// buildStructure builds every structure stage from scratch. Each is a function of the stored
// graph and Options.Seed alone (the index counts degrees from the relations rather than reading
// those the previous components stage wrote), so a run resumed after an interruption, or one
// that added documents, builds what a clean run over the same documents builds; model-written
// summaries and reports come from the response cache.
func (in *Ingester) buildStructure(ctx context.Context, rep *Report, stale string) error {
	rep.Structure.Mode = "build"
	in.Log.Info().Str("reason", rep.Structure.Reason).Msg("building the structure from scratch")
	t := time.Now()
	var err error
	if stale == graph.StructureLayersBuilt && !in.Options.Restructure {
		in.Log.Info().Msg("summary layers already rebuilt by an interrupted run; resuming after them")
	} else if b := in.layerBuilder(); b != nil {
		end := in.Memory.Stage("layers")
		rep.Layers, err = b.Build(ctx)
		end()
		if err != nil {
			return fmt.Errorf("hierarchical index: %w", err)
		}
		// A run killed from here on resumes after the layers: the graph has not changed since
		// (any change sets the flag to "true" again), and the settings they were built with
		// are recorded with the flag.
		meta := map[string]string{graph.MetaStructureStale: graph.StructureLayersBuilt,
			graph.MetaLayers: in.layersSetting(), graph.MetaSeed: strconv.FormatInt(in.Options.Seed, 10)}
		if err := in.Store.Apply(ctx, graph.Batch{Meta: meta}); err != nil {
			return fmt.Errorf("record the rebuilt summary layers: %w", err)
		}
		in.stageDone(rep, "layers", t)
		for _, l := range rep.Layers {
			in.Log.Info().Int("layer", l.Layer).Int("members", l.Members).Int("clusters", l.Clusters).
				Int("largest", l.MaxCluster).Int("summaries", l.Summaries).Float64("sparsity", l.Sparsity).
				Int("pairs", l.Aggregate.Pairs).Float64("tau", l.Aggregate.Tau).Int("summary_relations", l.Aggregate.Relations).
				Msg("summary layer built")
		}
		t = time.Now()
	}
	if rep.Components, err = in.Store.ComputeComponents(ctx); err != nil {
		return fmt.Errorf("components: %w", err)
	}
	in.stageDone(rep, "components", t)
	t = time.Now()
	end := in.Memory.Stage("communities")
	communities, err := in.Store.ComputeCommunities(ctx, in.leidenParams())
	end()
	if err != nil {
		return fmt.Errorf("communities: %w", err)
	}
	rep.Communities = len(communities)
	rep.Structure.Communities = graph.CommunityUpdate{Total: len(communities), Report: communities}
	in.stageDone(rep, "communities", t)
	in.Log.Info().Int("components", rep.Components).Int("communities", rep.Communities).Msg("graph structure computed")
	if err := in.reports(ctx, rep, communities); err != nil {
		return err
	}
	if err := in.archHierarchy(ctx, rep); err != nil {
		return err
	}
	st, err := in.Store.Stats(ctx)
	if err != nil {
		return fmt.Errorf("read store counts: %w", err)
	}
	return in.structureDone(ctx, 0, st.Nodes["Entity"])
}

// updateStructure updates the structure with the entities changed since it was complete: the
// summary layers (layers.Builder.Update), then WCC, then communities started from the stored
// ones (graph.Analyzer.UpdateCommunities), and reports for the communities that changed. It
// returns layers.ErrNeedsBuild, having written nothing, when the graph has grown big enough for
// summary layers it does not have.
func (in *Ingester) updateStructure(ctx context.Context, rep *Report, c *changeSet) error {
	rep.Structure.Mode = "update"
	rep.Structure.Changed = c.size()
	in.Log.Info().Int("changed_entities", c.size()).Msg("updating the structure with what changed")
	// The summary layers follow the entities that changed; a relation changes the communities
	// that hold its ends (their reports read it), not the summaries of its ends' clusters.
	changed := slices.Sorted(maps.Keys(c.ids))
	reported := slices.Concat(changed, slices.Sorted(maps.Keys(c.ends)))
	t := time.Now()
	if b := in.layerBuilder(); b != nil {
		end := in.Memory.Stage("layers")
		up, err := b.Update(ctx, changed)
		end()
		if err != nil {
			if errors.Is(err, layers.ErrNeedsBuild) {
				return err
			}
			return fmt.Errorf("hierarchical index: %w", err)
		}
		rep.Structure.Layers, rep.Layers = up.Layers, up.Built
		reported = slices.Concat(reported, up.Changed)
		in.Log.Info().Int("summaries_changed", len(up.Changed)).Int("layers_built", len(up.Built)).Msg("summary layers updated")
		in.stageDone(rep, "layers", t)
		for _, l := range up.Layers {
			in.Log.Info().Int("layer", l.Layer).Int("assigned", l.Assigned).Int("regenerated", l.Regenerated).
				Int("kept", l.Kept).Int("split", l.Split).Int("dissolved", l.Dissolved).Int("written", l.Written).
				Int("removed", l.Removed).Msg("summary layer updated")
		}
		t = time.Now()
	}
	// Components: only around what changed (graph.PlanComponents); reported holds every
	// entity changed or removed, the ends of every relation changed or removed and the
	// summaries and inter-summary relations the layers changed. Layers built on top are
	// new throughout, and cheaper to number with the rest in one pass.
	var err error
	if len(rep.Layers) > 0 {
		rep.Components, err = in.Store.ComputeComponents(ctx)
	} else {
		rep.Components, err = in.Store.UpdateComponents(ctx, reported)
	}
	if err != nil {
		return fmt.Errorf("components: %w", err)
	}
	in.stageDone(rep, "components", t)
	t = time.Now()
	end := in.Memory.Stage("communities")
	cu, err := in.Store.UpdateCommunities(ctx, in.leidenParams(), reported)
	end()
	if err != nil {
		return fmt.Errorf("communities: %w", err)
	}
	rep.Communities = cu.Total
	rep.Structure.Communities = cu
	in.stageDone(rep, "communities", t)
	in.Log.Info().Int("components", rep.Components).Int("communities", cu.Total).Int("kept", cu.Kept).
		Int("to_report", len(cu.Report)).Int("removed", cu.Removed).Bool("fresh", cu.Fresh).Msg("communities updated")
	if err := in.reports(ctx, rep, cu.Report); err != nil {
		return err
	}
	if err := in.archHierarchy(ctx, rep); err != nil {
		return err
	}
	return in.structureDone(ctx, c.drift+c.size(), -1)
}

// layerBuilder is the builder of the summary layers, nil when the run builds none.
func (in *Ingester) layerBuilder() *layers.Builder {
	if in.LayerSummarizer == nil || in.Options.Layers.MaxLayers <= 0 {
		return nil
	}
	b := &layers.Builder{
		Store: in.Store, Embedder: in.Embedder, Summarizer: in.LayerSummarizer, Log: in.Log,
		Options: in.Options.Layers, Seed: in.Options.Seed, Release: in.Memory.Release,
	}
	if in.Options.Aggregate {
		b.Describer = in.RelationDescriber
		if b.Describer == nil {
			b.Describer = layers.ExtractiveRelations{}
		}
	}
	return b
}

func (in *Ingester) leidenParams() graph.LeidenParams {
	p := graph.DefaultLeidenParams()
	p.Seed = in.Options.Seed
	return p
}

// reports writes the reports of communities.
func (in *Ingester) reports(ctx context.Context, rep *Report, communities []graph.Community) error {
	if in.Reporter == nil {
		return nil
	}
	t := time.Now()
	if err := in.Reporter.Reports(ctx, in.Store, communities); err != nil {
		return fmt.Errorf("community reports: %w", err)
	}
	in.stageDone(rep, "reports", t)
	return nil
}

// structureDone records a finished structure: nothing pending, the changes applied by updates
// since the last build and, after a build (size >= 0), the entities it was built over.
func (in *Ingester) structureDone(ctx context.Context, drift int, size int64) error {
	meta := map[string]string{graph.MetaStructureStale: "false", graph.MetaStructureChanged: "",
		graph.MetaStructureChangedEnds: "", graph.MetaStructureDrift: strconv.Itoa(drift)}
	if size >= 0 {
		meta[graph.MetaStructureSize] = strconv.FormatInt(size, 10)
	}
	if err := in.Store.Apply(ctx, graph.Batch{Meta: meta}); err != nil {
		return fmt.Errorf("record the finished structure: %w", err)
	}
	return nil
}

// archHierarchy builds the attributed-community hierarchy when Options.Arch asks for one, and
// otherwise removes any a previous run built. It reads only layer-0 entities and their
// relations, so it can run after the other structure stages.
func (in *Ingester) archHierarchy(ctx context.Context, rep *Report) error {
	t := time.Now()
	summarizer := in.ArchSummarizer
	if summarizer == nil {
		summarizer = arch.Extractive{}
	}
	b := &arch.Builder{Store: in.Store, Embedder: in.Embedder, Summarizer: summarizer, Log: in.Log, Options: in.Options.Arch, Seed: in.Options.Seed}
	var err error
	if rep.Arch, err = b.Build(ctx); err != nil {
		return fmt.Errorf("attributed communities: %w", err)
	}
	if in.Options.Arch.MaxLayers > 0 {
		in.stageDone(rep, "arch", t)
	}
	return nil
}
