package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/layers"
)

// ErrSettingsChanged is returned when a run's settings differ from the ones the store was built
// with and the run cannot simply apply them; the message says what to do.
var ErrSettingsChanged = errors.New("settings differ from the store's")

// evidenceVersion is the graph.MetaEvidence value of the evidence this strata keeps.
const evidenceVersion = "1"

// tokenizerName is the tokenizer chunks are counted in (internal/tokenizer has one).
const tokenizerName = "cl100k_base"

// chunkingSetting is the MetaChunking value of chunk options.
func chunkingSetting(o chunk.Options) string {
	return fmt.Sprintf("%s size=%d overlap=%d", tokenizerName, o.Size, o.Overlap)
}

// layersSetting is the MetaLayers value of the index a run builds: the options that shape it, or
// "max=0" when it builds none.
func (in *Ingester) layersSetting() string {
	o := in.Options.Layers
	if in.LayerSummarizer == nil || o.MaxLayers == 0 {
		return "max=0"
	}
	s := layersString(o)
	if in.Options.Aggregate {
		// Only with the aggregation on, so that a store built without it keeps its setting.
		s += fmt.Sprintf(" aggregate=%g", o.AggregateK)
	}
	return s
}

func layersString(o layers.Options) string {
	// Concurrency is left out: it changes how fast the index is built, not what it holds.
	return fmt.Sprintf("max=%d dims=%d components=%d threshold=%g cluster=%d maxcluster=%d",
		o.MaxLayers, o.Dims, o.MaxComponents, o.Threshold, o.ClusterSize, o.MaxClusterSize)
}

// settingsPlan is what a run does about the settings the store records, decided before anything
// is written.
type settingsPlan struct {
	// checkChunks: every document's stored chunks are compared with the chunks this run cuts,
	// not only its text, and documents whose chunks differ are re-chunked.
	checkChunks bool
	// now is written before the documents (after every refusal); first is written with the
	// first document (a new store).
	now, first map[string]string
	// clearSummaries removes the summary entities of an index this run does not build.
	clearSummaries bool
	// wipe removes every document and entity first: the store is rebuilt from this run's
	// documents (a store without evidence, with Options.Rebuild).
	wipe bool
	// structure is the MetaLayers and MetaSeed values written once the structure is done.
	structure map[string]string
}

// planSettings compares the settings of this run with the ones the store records (see the Meta
// keys in internal/graph) and decides what the run must redo:
//   - no per-chunk evidence (a store an older strata built): refused without Options.Rebuild;
//     with it, every document and entity is removed first and the store rebuilt from the run's
//     documents;
//   - another extractor: refused, since two extractors' findings would mix in one graph;
//   - other chunk settings: refused without Options.Rebuild; with it every document of the run
//     is re-chunked, and MetaChunkingPending stays "true" until every stored document has been;
//   - other layers, seed or attributed-community options (Options.Arch): the structure is
//     recomputed (and summaries of an index this run no longer builds are removed).
//
// A store from before the settings were recorded has its documents' chunks checked and its
// structure recomputed once.
func (in *Ingester) planSettings(ctx context.Context) (settingsPlan, error) {
	stored, err := graph.MetaValues(ctx, in.Store, graph.MetaExtractor, graph.MetaChunking, graph.MetaChunkingPending, graph.MetaLayers, graph.MetaSeed, graph.MetaEvidence, graph.MetaArch, graph.MetaStructureStale)
	if err != nil {
		return settingsPlan{}, err
	}
	st, err := in.Store.Stats(ctx)
	if err != nil {
		return settingsPlan{}, fmt.Errorf("read store counts: %w", err)
	}
	hasDocs := st.Nodes["Document"] > 0
	plan := settingsPlan{now: map[string]string{}, first: map[string]string{}}

	switch {
	case !hasDocs:
		plan.first[graph.MetaEvidence] = evidenceVersion
	case stored[graph.MetaEvidence] != evidenceVersion && !in.Options.Rebuild:
		return plan, fmt.Errorf("%w: the store was built by an older strata that kept no per-chunk evidence, so what its "+
			"entities and relations say cannot be updated exactly: pass --rebuild to rebuild it from the documents "+
			"this run names (the others are removed; extractions already made come from the model cache), or ingest "+
			"into a new store (another --data-dir or database)", ErrSettingsChanged)
	case stored[graph.MetaEvidence] != evidenceVersion:
		in.Log.Info().Msg("--rebuild: the store keeps no per-chunk evidence (an older strata built it): rebuilding it from this run's documents")
		plan.wipe = true
		hasDocs = false // what follows sees the empty store the wipe leaves
		plan.first[graph.MetaEvidence] = evidenceVersion
	}

	if x := in.Extractor.Name(); stored[graph.MetaExtractor] != "" && stored[graph.MetaExtractor] != x && hasDocs {
		return plan, fmt.Errorf("%w: the store was built with extractor %q but this run uses %q, and the two would mix "+
			"in one graph: use the store's extraction settings (--offline, --llm-model, --extract-mode, --gleaning), "+
			"or ingest into a new store (another --data-dir or database)", ErrSettingsChanged, stored[graph.MetaExtractor], x)
	}

	chunking := chunkingSetting(in.Options.Chunk)
	switch was := stored[graph.MetaChunking]; {
	case !hasDocs:
		plan.first[graph.MetaChunking] = chunking
	case was == "":
		in.Log.Info().Str("chunking", chunking).Msg("the store does not record how it was chunked (an older strata built it): checking every document's chunks")
		plan.checkChunks = true
		plan.now[graph.MetaChunking], plan.now[graph.MetaChunkingPending] = chunking, "true"
	case was != chunking && !in.Options.Rebuild:
		return plan, fmt.Errorf("%w: the store is chunked with %s but this run asks for %s: pass --rebuild to re-chunk "+
			"(and extract again) every document this run ingests, or use --chunk-size %s --chunk-overlap %s, "+
			"or ingest into a new store (another --data-dir or database)", ErrSettingsChanged, was, chunking,
			field(was, "size"), field(was, "overlap"))
	case was != chunking:
		in.Log.Info().Str("stored", was).Str("chunking", chunking).Msg("--rebuild: re-chunking every document of this run")
		plan.checkChunks = true
		plan.now[graph.MetaChunking], plan.now[graph.MetaChunkingPending] = chunking, "true"
	case stored[graph.MetaChunkingPending] == "true":
		in.Log.Info().Str("chunking", chunking).Msg("an earlier re-chunk has not covered every document yet: checking every document's chunks")
		plan.checkChunks = true
	}

	structure := map[string]string{graph.MetaLayers: in.layersSetting(), graph.MetaSeed: strconv.FormatInt(in.Options.Seed, 10),
		graph.MetaArch: in.Options.Arch.String()}
	plan.structure = structure
	if stored[graph.MetaArch] == "" {
		stored[graph.MetaArch] = "off" // a store from before the option has no hierarchy
	}
	layersChanged := stored[graph.MetaLayers] != structure[graph.MetaLayers] || stored[graph.MetaSeed] != structure[graph.MetaSeed]
	if hasDocs && (layersChanged || stored[graph.MetaArch] != structure[graph.MetaArch]) {
		in.Log.Info().Str("stored_layers", stored[graph.MetaLayers]).Str("layers", structure[graph.MetaLayers]).
			Str("stored_seed", stored[graph.MetaSeed]).Str("seed", structure[graph.MetaSeed]).
			Str("stored_arch", stored[graph.MetaArch]).Str("arch", structure[graph.MetaArch]).
			Msg("structure settings changed: recomputing the hierarchical index, communities and reports")
		switch {
		case layersChanged:
			plan.now[graph.MetaStructureStale] = "true"
		case !graph.StructurePending(stored[graph.MetaStructureStale]):
			// The summary layers were built with these settings (they and the seed are
			// recorded with them); the stages after them are redone.
			plan.now[graph.MetaStructureStale] = graph.StructureLayersBuilt
		}
		plan.clearSummaries = structure[graph.MetaLayers] == "max=0" && stored[graph.MetaLayers] != "max=0"
	}
	return plan, nil
}

// field returns the value of "name=value" in a setting string, "?" when absent.
func field(setting, name string) string {
	for _, f := range strings.Fields(setting) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return "?"
}

// applyPlan writes what the plan decided before the documents: new settings, a stale structure,
// the removal of summaries of an index no longer built.
func (in *Ingester) applyPlan(ctx context.Context, plan settingsPlan) error {
	if plan.wipe {
		if err := in.wipe(ctx); err != nil {
			return err
		}
	}
	if len(plan.now) == 0 && !plan.clearSummaries {
		return nil
	}
	if err := in.Store.Apply(ctx, graph.Batch{Meta: plan.now, ClearSummaries: plan.clearSummaries}); err != nil {
		return fmt.Errorf("record the run's settings: %w", err)
	}
	return nil
}

// finishChunking clears MetaChunkingPending once every stored document has chunks of this run's
// settings, or says how many do not.
func (in *Ingester) finishChunking(ctx context.Context, plan settingsPlan, rep *Report) error {
	if !plan.checkChunks {
		return nil
	}
	st, err := in.Store.Stats(ctx)
	if err != nil {
		return fmt.Errorf("read store counts: %w", err)
	}
	checked := int64(rep.Documents + rep.Unchanged)
	if rest := st.Nodes["Document"] - checked; rest > 0 || rep.Failed > 0 {
		in.Log.Warn().Int64("documents", rest+int64(rep.Failed)).
			Msg("stored documents this run did not ingest (or that failed) may still hold chunks cut with other settings: " +
				"ingest them again to re-chunk them")
		return nil
	}
	if err := in.Store.Apply(ctx, graph.Batch{Meta: map[string]string{graph.MetaChunkingPending: "false"}}); err != nil {
		return fmt.Errorf("record the finished re-chunk: %w", err)
	}
	return nil
}

// recordStructure records the structure settings once the structure is built with them.
func (in *Ingester) recordStructure(ctx context.Context, plan settingsPlan) error {
	stored, err := graph.MetaValues(ctx, in.Store, graph.MetaLayers, graph.MetaSeed, graph.MetaArch)
	if err != nil {
		return err
	}
	if stored[graph.MetaLayers] == plan.structure[graph.MetaLayers] && stored[graph.MetaSeed] == plan.structure[graph.MetaSeed] &&
		stored[graph.MetaArch] == plan.structure[graph.MetaArch] {
		return nil
	}
	if err := in.Store.Apply(ctx, graph.Batch{Meta: plan.structure}); err != nil {
		return fmt.Errorf("record the structure settings: %w", err)
	}
	return nil
}

// wipe removes every document (with its chunks) and every entity (with its relationships) in
// one transaction, and marks the structure stale; communities are replaced when the structure
// is computed again. The files of this run keep the ids the store gave them (they were read
// before), the others' are released.
func (in *Ingester) wipe(ctx context.Context) error {
	docs, err := in.Store.AllDocuments(ctx)
	if err != nil {
		return fmt.Errorf("list documents to remove: %w", err)
	}
	entities, err := in.Store.EntitiesByLayer(ctx, 0)
	if err != nil {
		return fmt.Errorf("list entities to remove: %w", err)
	}
	b := graph.Batch{ClearSummaries: true, Meta: map[string]string{graph.MetaStructureStale: "true"}}
	for _, d := range docs {
		b.DeleteDocuments = append(b.DeleteDocuments, d.ID)
		b.Meta[graph.MetaSourcePrefix+d.Source] = "" // written again for the files this run ingests
	}
	for _, e := range entities {
		b.DeleteEntities = append(b.DeleteEntities, e.ID)
	}
	if err := in.Store.Apply(ctx, b); err != nil {
		return fmt.Errorf("remove the store's documents and entities: %w", err)
	}
	return nil
}
