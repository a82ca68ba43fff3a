package graph

import (
	"context"
	"fmt"
	"strconv"
)

// Meta keys: the settings a store records with Batch.Meta, read back by every run and backend.
const (
	// MetaEmbeddingModel names the model every vector in the store comes from.
	MetaEmbeddingModel = "embedding.model"
	// MetaEmbeddingDims is their dimension; the Neo4j backend creates its vector indexes with it.
	MetaEmbeddingDims = "embedding.dims"
	// MetaExtractor names the extractor that built the graph.
	MetaExtractor = "extractor"
	// MetaStructureStale is "true" from the moment a document changes the graph until the
	// summary layers, components, communities and reports have been rebuilt, so a run killed
	// in between finishes the job next time; StructureLayersBuilt once only the summary layers
	// are, so that it does not build them again; StructureChanged when a complete structure
	// needs only the changes listed in MetaStructureChanged; "false" (or unset) when all is done.
	MetaStructureStale = "structure.stale"
	// MetaStructureChanged lists, one per line, the entities changed since the structure was
	// complete (extracted entities written or removed, and the summaries that lost a member),
	// and MetaStructureChangedEnds the ends of the relations written or removed since: what an
	// update of the structure reads (the summary layers the first, communities both).
	MetaStructureChanged     = "structure.changed"
	MetaStructureChangedEnds = "structure.changed_ends"
	// MetaStructureDrift counts the changed entities updates have applied since the structure
	// was last built whole, and MetaStructureSize the extracted entities it was built over; past
	// a share of those the next run builds it whole again.
	MetaStructureDrift = "structure.drift"
	MetaStructureSize  = "structure.size"
	// MetaChunking records how the chunks were cut, as "TOKENIZER size=N overlap=M".
	MetaChunking = "chunking"
	// MetaChunkingPending is "true" while some stored documents may still hold chunks cut
	// with other settings than MetaChunking (a re-chunk not yet run over every document, or a
	// store from before MetaChunking was recorded); runs then check each document's chunks.
	MetaChunkingPending = "chunking.pending"
	// MetaLayers records the hierarchical index options the structure was built with
	// ("max=0" for no index), and MetaSeed the seed of the index and of Leiden: a run with
	// other values recomputes the structure.
	// MetaEvidence is the version of the per-chunk evidence the store holds ("1"), recorded with
	// the first document; a store without it was built by a strata that kept none.
	MetaEvidence = "evidence"
	MetaLayers   = "layers"
	MetaSeed     = "seed"
	// MetaSourcePrefix prefixes one key per stored text file: MetaSourcePrefix + the file's
	// absolute path holds the id of its document ("" once another input took the id over), so
	// that a file keeps its id however a later run reaches it.
	MetaSourcePrefix = "source:"
	// MetaIngestState is "started" from the moment an ingest run has documents to look at and
	// "finished" once it has completed every stage, so a run that was killed or failed shows.
	MetaIngestState = "ingest.state"
	// MetaIngestStarted and MetaIngestFinished are the times (RFC 3339, UTC) the last run
	// started and last finished.
	MetaIngestStarted  = "ingest.started"
	MetaIngestFinished = "ingest.finished"
	// MetaIngestFailed is the number of documents whose extraction failed in the last finished
	// run; they are not in the store until a re-run retries them.
	MetaIngestFailed = "ingest.failed"
	// MetaDescriptionsDeferred lists, one per line, the entities whose descriptions an ingest
	// condensed extractively until it merges them with the model at the end of its documents
	// stage, and MetaDescriptionsDeferredRelations the relations ("SOURCE\tTARGET"): a run
	// killed in between merges them next time.
	MetaDescriptionsDeferred          = "descriptions.deferred"
	MetaDescriptionsDeferredRelations = "descriptions.deferred_relations"
)

// Values of MetaIngestState.
const (
	IngestStarted  = "started"
	IngestFinished = "finished"
)

// MetaReader is the part of a store that reads Batch.Meta values.
type MetaReader interface {
	// Meta returns a value written with Batch.Meta.
	Meta(ctx context.Context, key string) (string, bool, error)
}

// MetaBatchReader is implemented by stores that read several Batch.Meta values in one round
// trip (Neo4j: one statement instead of one per key).
type MetaBatchReader interface {
	// MetaValues returns the values of keys that are set; missing keys are absent.
	MetaValues(ctx context.Context, keys []string) (map[string]string, error)
}

// MetaValues reads several Batch.Meta values, in one call when store is a MetaBatchReader; a
// missing key reads as "".
func MetaValues(ctx context.Context, store MetaReader, keys ...string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if b, ok := store.(MetaBatchReader); ok {
		vals, err := b.MetaValues(ctx, keys)
		if err != nil {
			return nil, wrapMeta(err)
		}
		for _, k := range keys {
			out[k] = vals[k]
		}
		return out, nil
	}
	for _, k := range keys {
		v, _, err := store.Meta(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("read store metadata %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// CheckEmbeddingModel compares the embedding model a store was built with to the one a run uses
// (dims <= 0: not known yet): vectors of two models are not comparable, so a mismatch is an
// error that says what to change. It reports whether the store records a model at all (a new
// store does not).
func CheckEmbeddingModel(ctx context.Context, store MetaReader, model string, dims int) (bool, error) {
	vals, err := MetaValues(ctx, store, MetaEmbeddingModel, MetaEmbeddingDims)
	if err != nil {
		return false, err
	}
	return CompareEmbeddingModel(vals, model, dims)
}

// CompareEmbeddingModel is CheckEmbeddingModel over the MetaEmbeddingModel and
// MetaEmbeddingDims values of vals, read already.
func CompareEmbeddingModel(vals map[string]string, model string, dims int) (bool, error) {
	stored, storedDims := vals[MetaEmbeddingModel], vals[MetaEmbeddingDims]
	if stored == "" {
		return false, nil
	}
	have := "unknown"
	if dims > 0 {
		have = strconv.Itoa(dims)
	}
	if stored != model || (storedDims != have && dims > 0) {
		return true, fmt.Errorf("the store was built with embedding model %q (%s dimensions) but this run uses %q (%s dimensions): "+
			"use the same --embedding-model and LLM settings (or --offline if it was built offline), or another --data-dir / database",
			stored, storedDims, model, have)
	}
	return true, nil
}

func wrapMeta(err error) error {
	if err != nil {
		return fmt.Errorf("read store metadata: %w", err)
	}
	return nil
}

// StructureLayersBuilt is MetaStructureStale while the summary layers are rebuilt and the stages
// after them are not.
const StructureLayersBuilt = "layers"

// StructureChanged is MetaStructureStale when the structure is complete but for the changes
// listed in MetaStructureChanged.
const StructureChanged = "changed"

// StructurePending reports whether a value of MetaStructureStale leaves structure stages to run.
func StructurePending(stale string) bool {
	return stale == "true" || stale == StructureLayersBuilt || stale == StructureChanged
}
