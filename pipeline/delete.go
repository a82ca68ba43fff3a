package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/resolve"
)

// ErrUnknownDocuments is returned when a deletion names documents the store does not hold.
var ErrUnknownDocuments = errors.New("no such document")

func quoted(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.Quote(id)
	}
	return out
}

// DeleteReport summarizes a deletion.
type DeleteReport struct {
	Deleted []graph.Document // documents deleted (or, in a dry run, that would be)
	Unknown []string         // ids asked for that the store does not hold
	Report                   // chunks, entity and relation updates, structure
	// Estimate is, in a dry run, the model calls of the structure update the deletion would
	// make (estimateStructure); empty when no structure stage calls a model (Offline).
	Estimate llm.Estimate
	Offline  bool
}

// Delete removes the documents with their chunks and what their chunks said: the entities and
// relations they touched are derived again from the evidence left, and those left without any
// are removed. Then the structure (summary layers, components, communities, reports) is
// recomputed with the settings the store records. Each document is deleted in one transaction
// and the structure is marked stale with it, so a run killed at any point leaves a consistent
// store, whose structure the next delete (of the documents still there, or of none) or ingest
// completes. An id the store does not hold fails the run before anything is deleted. With
// dryRun nothing is written: the report says what would go and lists the unknown ids.
func (in *Ingester) Delete(ctx context.Context, ids []string, dryRun bool) (DeleteReport, error) {
	start := time.Now()
	rep := DeleteReport{Report: Report{StageDuration: map[string]time.Duration{}}}
	if err := in.useStoredStructure(ctx); err != nil {
		return rep, err
	}
	resolver := &resolve.Resolver{Store: in.Store, Tokenizer: in.Tokenizer, Summarizer: in.Summarizer}
	if dryRun {
		resolver.Summarizer = nil // a dry run calls no model: descriptions are condensed extractively
	}
	t := time.Now()
	ids = graph.UniqueIDs(ids)
	var docs []graph.Document
	if len(ids) > 0 {
		var err error
		if docs, err = in.Store.Documents(ctx, ids); err != nil {
			return rep, fmt.Errorf("read the documents to delete: %w", err)
		}
	}
	known := make(map[string]bool, len(docs))
	for _, d := range docs {
		known[d.ID] = true
	}
	for _, id := range ids {
		if !known[id] {
			rep.Unknown = append(rep.Unknown, id)
		}
	}
	if len(rep.Unknown) > 0 && !dryRun {
		return rep, fmt.Errorf("%w: %s; nothing was deleted",
			ErrUnknownDocuments, strings.Join(quoted(rep.Unknown), ", "))
	}
	started := false
	predicted := newPredictedChange()
	for _, d := range docs {
		if !dryRun && !started {
			if err := in.markStarted(ctx); err != nil {
				return rep, err
			}
			var err error
			if in.changes, err = in.trackChanges(ctx); err != nil {
				return rep, err
			}
			started = true
		}
		if err := in.deleteDocument(ctx, resolver, d, dryRun, predicted, &rep); err != nil {
			return rep, err
		}
		rep.Deleted = append(rep.Deleted, d)
	}
	in.stageDone(&rep.Report, "delete", t)
	if dryRun && len(docs) > 0 {
		var err error
		if rep.Estimate, err = in.estimateStructure(ctx, predicted); err != nil {
			return rep, err
		}
		rep.Offline = in.structureOffline()
	}
	if !dryRun && !started {
		// Nothing deleted now, but an earlier deletion or ingest may have been interrupted
		// before its structure was rebuilt: this run completes it.
		stale, _, err := in.Store.Meta(ctx, graph.MetaStructureStale)
		if err != nil {
			return rep, fmt.Errorf("read store metadata: %w", err)
		}
		if graph.StructurePending(stale) {
			if err := in.markStarted(ctx); err != nil {
				return rep, err
			}
			started = true
		}
	}
	if dryRun || !started {
		rep.Duration = time.Since(start)
		return rep, nil
	}
	t = time.Now()
	var err error
	if rep.EntityEmbeds, err = in.embedEntities(ctx); err != nil {
		return rep, err
	}
	in.stageDone(&rep.Report, "embed", t)
	if err := in.structure(ctx, &rep.Report); err != nil {
		return rep, err
	}
	if err := in.markFinished(ctx, &rep.Report); err != nil {
		return rep, err
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

func (in *Ingester) deleteDocument(ctx context.Context, resolver *resolve.Resolver, d graph.Document, dryRun bool, predicted *predictedChange, rep *DeleteReport) error {
	ids, err := in.documentChunkIDs(ctx, d.ID)
	if err != nil {
		return err
	}
	out, err := resolver.Resolve(ctx, nil, ids)
	if err != nil {
		return fmt.Errorf("resolve the deletion of %s: %w", d.ID, err)
	}
	rep.DeletedChunks += len(ids)
	rep.Entities += len(out.Entities)
	rep.Relations += len(out.Relations)
	rep.DeletedEntities += len(out.DeleteEntities)
	rep.DeletedRelations += len(out.DeleteRelations)
	if dryRun {
		predicted.add(out)
		return nil
	}
	meta := map[string]string{}
	// The file's id is released with it: ingesting the file again gives it the id of the rule.
	if id, ok, err := in.Store.Meta(ctx, graph.MetaSourcePrefix+d.Source); err != nil {
		return fmt.Errorf("read the stored id of %s: %w", d.Source, err)
	} else if ok && id == d.ID {
		meta[graph.MetaSourcePrefix+d.Source] = ""
	}
	b := graph.Batch{
		DeleteDocuments: []string{d.ID},
		Entities:        out.Entities, Relations: out.Relations,
		DeleteEntities: out.DeleteEntities, DeleteRelations: out.DeleteRelations,
		Meta: meta,
	}
	if err := in.changes.record(ctx, in.Store, &b); err != nil {
		return fmt.Errorf("delete %s: %w", d.ID, err)
	}
	if err := in.Store.Apply(ctx, b); err != nil {
		return fmt.Errorf("delete %s: %w", d.ID, err)
	}
	in.Log.Info().Str("document", d.ID).Int("chunks", len(ids)).Int("entities_removed", len(out.DeleteEntities)).
		Int("relations_removed", len(out.DeleteRelations)).Int("entities_updated", len(out.Entities)).Msg("document deleted")
	return nil
}

// documentChunkIDs returns the ids of a stored document's chunks in Seq order.
func (in *Ingester) documentChunkIDs(ctx context.Context, id string) ([]string, error) {
	chunks, err := in.Store.DocumentChunks(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read chunks of %s: %w", id, err)
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	return ids, nil
}

// useStoredStructure checks that the store can be updated by this Ingester (it holds evidence;
// its extractor is this one, whose summaries and reports the structure is rebuilt with) and
// takes the structure settings (layers, seed, attributed communities) the store records, so that a deletion rebuilds the
// structure the store was built with.
func (in *Ingester) useStoredStructure(ctx context.Context) error {
	stored, err := graph.MetaValues(ctx, in.Store, graph.MetaExtractor, graph.MetaEvidence, graph.MetaLayers, graph.MetaSeed, graph.MetaArch)
	if err != nil {
		return err
	}
	st, err := in.Store.Stats(ctx)
	if err != nil {
		return fmt.Errorf("read store counts: %w", err)
	}
	if st.Nodes["Document"] == 0 {
		return nil
	}
	if stored[graph.MetaEvidence] != evidenceVersion {
		return fmt.Errorf("%w: the store was built by an older strata that kept no per-chunk evidence, so what its "+
			"entities say cannot be taken back: rebuild it with `strata ingest --rebuild` and the documents to keep",
			ErrSettingsChanged)
	}
	if x := in.Extractor.Name(); stored[graph.MetaExtractor] != "" && stored[graph.MetaExtractor] != x {
		return fmt.Errorf("%w: the store was built with extractor %q but this run uses %q, whose summaries and reports "+
			"would mix with the store's: use the store's model settings (--offline, --llm-model, --extract-mode, --gleaning)",
			ErrSettingsChanged, stored[graph.MetaExtractor], x)
	}
	if v := stored[graph.MetaLayers]; v != "" {
		if err := in.useLayersSetting(v); err != nil {
			return fmt.Errorf("read the store's layers setting %q: %w", v, err)
		}
	}
	if in.Options.Arch, err = arch.ParseOptions(stored[graph.MetaArch]); err != nil {
		return err
	}
	if v := stored[graph.MetaSeed]; v != "" {
		seed, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("read the store's seed %q: %w", v, err)
		}
		in.Options.Seed = seed
	}
	return nil
}

// useLayersSetting sets the layer options from a MetaLayers value (layersSetting), and fails
// unless they give that value back.
func (in *Ingester) useLayersSetting(setting string) error {
	o := &in.Options.Layers
	if field(setting, "max") == "0" {
		o.MaxLayers = 0
	} else {
		for name, dst := range map[string]*int{"max": &o.MaxLayers, "dims": &o.Dims, "components": &o.MaxComponents,
			"cluster": &o.ClusterSize, "maxcluster": &o.MaxClusterSize} {
			n, err := strconv.Atoi(field(setting, name))
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			*dst = n
		}
		var err error
		if o.Threshold, err = strconv.ParseFloat(field(setting, "threshold"), 64); err != nil {
			return fmt.Errorf("threshold: %w", err)
		}
		in.Options.Aggregate = field(setting, "aggregate") != "?"
		if in.Options.Aggregate {
			if o.AggregateK, err = strconv.ParseFloat(field(setting, "aggregate"), 64); err != nil {
				return fmt.Errorf("aggregate: %w", err)
			}
		}
	}
	if got := in.layersSetting(); got != setting {
		return fmt.Errorf("read back as %q", got)
	}
	return nil
}

// MissingDocuments returns the stored documents that came from under paths (a file, or a folder
// and everything below it) and that are no longer there: their file is gone, or, for a JSON
// Lines record, its file no longer holds a record with its id. A path that no longer exists
// counts as a folder or file with nothing left in it.
func (in *Ingester) MissingDocuments(ctx context.Context, paths []string) ([]graph.Document, error) {
	var roots []string
	var present []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", p, err)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
			present = append(present, p)
		} else if !os.IsNotExist(err) {
			return nil, fmt.Errorf("resolve %s: %w", p, err)
		}
		roots = append(roots, abs)
	}
	loaded := map[string]bool{} // ids and sources found under the paths now
	if len(present) > 0 {
		docs, problems, _, err := LoadDocuments(ctx, present, in.Log)
		if err != nil {
			return nil, err
		}
		for _, p := range problems {
			// A file that cannot be read now is not known to be gone: it is kept.
			loaded[p.Source] = true
		}
		for _, d := range docs {
			loaded[d.Source] = true
			loaded[d.File] = true
			if d.Line > 0 {
				loaded[d.File+"\x00"+d.ID] = true
			}
		}
	}
	stored, err := in.Store.AllDocuments(ctx)
	if err != nil {
		return nil, fmt.Errorf("list stored documents: %w", err)
	}
	var missing []graph.Document
	for _, d := range stored {
		file := sourceFile(d.Source)
		if !under(file, roots) {
			continue
		}
		gone := !loaded[file]
		if file != d.Source { // a JSON Lines record: its line may have moved, its id must stay
			gone = !loaded[file+"\x00"+d.ID]
		}
		if gone {
			missing = append(missing, d)
		}
	}
	return missing, nil
}

// sourceFile is the file of a document's source: the source itself, or a JSON Lines record's
// source ("FILE:LINE") without the line.
func sourceFile(source string) string {
	if i := strings.LastIndexByte(source, ':'); i > 0 && strings.HasSuffix(source[:i], ".jsonl") {
		if _, err := strconv.Atoi(source[i+1:]); err == nil {
			return source[:i]
		}
	}
	return source
}

// under reports whether path is one of roots or inside one of them.
func under(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
