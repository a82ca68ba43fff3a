package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// CommunityID returns the id of the community with the given level and Leiden community id.
func CommunityID(level int, communityID int64) string {
	return fmt.Sprintf("%d-%d", level, communityID)
}

// ErrLocked is returned by a backend when another writer holds the store.
var ErrLocked = errors.New("store is locked by another writer")

// Batch is one atomic unit of writes: a backend applies all of it or none of it. Every item is an
// upsert keyed by its id (relations by RelationKey, mentions and summary links by their endpoints),
// so applying the same batch twice leaves the store as applying it once. Upserts replace the stored
// properties; merging with what is already stored is the caller's job (see pipeline/resolve).
// Apply never writes Entity.ComponentID and Entity.Degree: new entities start at -1 and 0 and
// updates keep the values ComputeComponents set. A batch fails as a whole when it refers to a node
// that is neither stored nor in the batch, or when an embedding's dimension differs from its
// index's.
type Batch struct {
	Documents    []Document
	Chunks       []Chunk // also maintains PART_OF and NEXT (by Seq within a document)
	Entities     []Entity
	Relations    []Relation
	Mentions     []Mention
	SummaryLinks []SummaryLink
	// Communities updates the report properties (Title, Summary, Report, Rating, Embedding) of
	// communities created by ComputeCommunities; unknown ids are an error.
	Communities []Community
	Meta        map[string]string // an empty value removes the key
	// The deletions run before the upserts of the same batch; unknown ids are ignored.
	//
	// DeleteChunks removes chunks with their PART_OF, NEXT and HAS_ENTITY relationships (NEXT
	// chains are relinked) and their relation evidence (evidence reads never return evidence of
	// a chunk that is gone). The relations themselves keep their description, weight and
	// ChunkIDs: the caller rewrites what the chunks supported (pipeline/resolve).
	DeleteChunks []string
	// DeleteDocuments removes documents with all their chunks, as DeleteChunks does.
	DeleteDocuments []string
	// DeleteMentions removes HAS_ENTITY relationships.
	DeleteMentions []MentionKey
	// DeleteRelations removes RELATED relationships.
	DeleteRelations []RelationKey
	// DeleteEntities removes entities with every relationship they have.
	DeleteEntities []string
	// ClearSummaries removes every summary entity (layer >= 1) with all its relationships
	// (SUMMARIZED_BY, RELATED, IN_COMMUNITY) before the upserts of the same batch: the
	// hierarchical index is rebuilt as a whole, so a rebuild must not leave summaries of an older
	// graph behind.
	ClearSummaries bool
}

// Empty reports whether the batch holds nothing to write.
func (b *Batch) Empty() bool {
	return len(b.Documents)+len(b.Chunks)+len(b.Entities)+len(b.Relations)+len(b.Mentions)+
		len(b.SummaryLinks)+len(b.Communities)+len(b.Meta)+len(b.DeleteChunks)+len(b.DeleteDocuments)+
		len(b.DeleteMentions)+len(b.DeleteRelations)+len(b.DeleteEntities) == 0 && !b.ClearSummaries
}

// VectorIndex names a vector index.
type VectorIndex string

// The vector indexes; names are the Neo4j index names.
const (
	ChunkEmbedding     VectorIndex = "chunk_embedding"
	EntityEmbedding    VectorIndex = "entity_embedding"
	CommunityEmbedding VectorIndex = "community_embedding"
)

// TextIndex names a full-text index.
type TextIndex string

// The full-text indexes; names are the Neo4j index names.
const (
	ChunkText  TextIndex = "chunk_text"
	EntityText TextIndex = "entity_text"
)

// Hit is one search result: the id of a node and its score, higher is better. Vector scores are
// cosine similarities mapped to [0,1] as (1+cos)/2, the scale Neo4j vector indexes return.
type Hit struct {
	ID    string
	Score float64
}

// LocalOptions caps what ExpandLocal returns. Zero means "none of that kind".
type LocalOptions struct {
	TopChunks      int
	TopCommunities int
	TopInsideRels  int
	TopOutsideRels int
	// DistinctCommunities keeps, of communities that contain the same seeds, only the best
	// ranked: nested levels often do, and a caller that wants different ones would otherwise
	// read several times TopCommunities whole communities to find them.
	DistinctCommunities bool
}

// LocalContext is the neighbourhood of a set of seed entities (GraphRAG local search).
type LocalContext struct {
	// Entities are the seed entities that exist, in the order they were asked for.
	Entities []Entity
	// Chunks mentioning seed entities, ranked by the number of seed entities they mention (Score),
	// then by chunk id.
	Chunks []ScoredChunk
	// Communities containing seed entities, ranked by the number of seeds they contain (Score),
	// then rating, then id. Every level is included.
	Communities []ScoredCommunity
	// InsideRelations join two seed entities; OutsideRelations join a seed to a non-seed entity.
	// Both are ranked by weight descending, then key.
	InsideRelations  []Relation
	OutsideRelations []Relation
}

// ScoredChunk is a chunk with a retrieval score.
type ScoredChunk struct {
	Chunk
	Score float64
}

// ScoredCommunity is a community with a retrieval score.
type ScoredCommunity struct {
	Community
	Score float64
	// Seeds are the ids of the seed entities the community contains (ExpandLocal), sorted.
	Seeds []string
}

// DocumentLink says that a document mentions an entity that one of the chunks a walk started
// from mentions too. ChunkID is the document's first chunk (lowest Seq) mentioning the entity;
// Documents is the number of documents mentioning the entity, which tells a rare, specific link
// from a common one.
type DocumentLink struct {
	EntityID   string
	DocumentID string
	ChunkID    string
	Documents  int
}

// PathRequest asks for a shortest path between two entities.
type PathRequest struct{ Source, Target string }

// PathStep is one relationship along a path, oriented in walking direction.
type PathStep struct {
	From, To    string
	Type        string // "RELATED" or "SUMMARIZED_BY"
	Description string
	Weight      float64
}

// Path is a shortest path between two entities over RELATED and SUMMARIZED_BY, undirected.
type Path struct {
	Source, Target string
	Nodes          []string // entity ids from Source to Target
	Steps          []PathStep
}

// LeidenParams configures community detection. Start from DefaultLeidenParams: every backend
// checks the parameters with Validate and then uses each as it is (GDS's meaning: Gamma the
// modularity resolution, Theta the refinement's randomness, Tolerance the least modularity gain
// of another level, at most MaxLevels levels).
type LeidenParams struct {
	Gamma     float64
	Theta     float64
	Tolerance float64
	MaxLevels int
	Seed      int64
}

// DefaultLeidenParams returns the parameters both backends use: GraphRAG's gamma 1.0, theta
// 0.01, tolerance 1e-4, at most 10 levels, and a fixed seed so that runs repeat.
func DefaultLeidenParams() LeidenParams {
	return LeidenParams{Gamma: 1.0, Theta: 0.01, Tolerance: 1e-4, MaxLevels: 10, Seed: 42}
}

// ErrInvalidParams is wrapped by the errors of parameters no backend can run an algorithm with,
// so that both backends refuse the same parameters the same way, before reading the graph.
var ErrInvalidParams = errors.New("invalid parameters")

// Validate reports the first parameter no backend can run Leiden with, wrapping
// ErrInvalidParams. Any seed is valid.
func (p LeidenParams) Validate() error {
	switch {
	case !positive(p.Gamma):
		return fmt.Errorf("%w: leiden gamma must be positive, got %g", ErrInvalidParams, p.Gamma)
	case !positive(p.Theta):
		return fmt.Errorf("%w: leiden theta must be positive, got %g", ErrInvalidParams, p.Theta)
	case p.Tolerance != 0 && !positive(p.Tolerance):
		return fmt.Errorf("%w: leiden tolerance must not be negative, got %g", ErrInvalidParams, p.Tolerance)
	case p.MaxLevels < 1:
		return fmt.Errorf("%w: leiden max levels must be at least 1, got %d", ErrInvalidParams, p.MaxLevels)
	}
	return nil
}

// positive reports whether x is a finite number above 0.
func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// Members is what a community contains: its member entities (by id, without their embeddings:
// a community can hold most of the graph, and reports never need them), the heaviest of the
// relations among them, how many there are and their total weight, and its child communities
// (one level finer, by community id). An unknown community has no members.
type Members struct {
	Entities []Entity
	// Relations are the relations among the entities by weight, heaviest first, then by key
	// (source, then target): all of them or as many as were asked for. The relations of a
	// community grow with the square of its size where its members grow with it, so a reader
	// of the largest communities of a huge graph asks for the few it uses.
	Relations []Relation
	// RelationCount and RelationWeight are the number and the total weight of all the relations
	// among the entities, those left out of Relations included.
	RelationCount  int
	RelationWeight float64
	Children       []Community
}

// Stats counts nodes per label and relationships per type.
type Stats struct {
	Nodes         map[string]int64 // Document, Chunk, Entity, Summary, Community
	Relationships map[string]int64 // PART_OF, NEXT, HAS_ENTITY, RELATED, SUMMARIZED_BY, IN_COMMUNITY, CHILD_OF
}

// The store contract is a few small interfaces, each one job, composed into Store. Consumers
// take only what they use: retrieval reads and searches (ReadSearcher), the layer and report
// stages read and write (ReadWriter), only the ingest pipeline runs the graph algorithms.
// Implementations: the Neo4j backend in cypher/ and the embedded store in internal/embedded;
// package storetest holds the suite both pass. Methods are safe for concurrent use; writes from
// several goroutines are serialized by the backend.

// Writer writes batches.
type Writer interface {
	// Apply writes the batch atomically.
	Apply(ctx context.Context, b Batch) error
}

// Reader looks items up. Lookups by id return the items that exist, in the order of ids;
// missing ids are skipped.
type Reader interface {
	MetaReader
	EvidenceReader
	HierarchyReader
	Documents(ctx context.Context, ids []string) ([]Document, error)
	Chunks(ctx context.Context, ids []string) ([]Chunk, error)
	Entities(ctx context.Context, ids []string) ([]Entity, error)
	Relations(ctx context.Context, keys []RelationKey) ([]Relation, error)
	Communities(ctx context.Context, ids []string) ([]Community, error)
	// AllDocuments returns every document, ordered by id.
	AllDocuments(ctx context.Context) ([]Document, error)
	// DocumentChunks returns the chunks of a document in Seq order.
	DocumentChunks(ctx context.Context, documentID string) ([]Chunk, error)
	// EntitiesByLayer returns all entities of one layer, ordered by id.
	EntitiesByLayer(ctx context.Context, layer int) ([]Entity, error)
	// CommunitiesByLevel returns all communities of a level (all levels when level < 0), ordered by
	// level then community id.
	CommunitiesByLevel(ctx context.Context, level int) ([]Community, error)
	// CommunityMembers returns the members of one community with at most maxRelations of the
	// relations among them (all when maxRelations < 0; see Members.Relations).
	CommunityMembers(ctx context.Context, communityID string, maxRelations int) (Members, error)
	// CommunityEntities returns the member entities of several communities in one round trip,
	// by community id: each community's ordered by id and without embeddings, as
	// CommunityMembers' Entities, but without the relations among them (which cost more to read
	// than the members). Unknown communities are left out.
	CommunityEntities(ctx context.Context, communityIDs []string) (map[string][]Entity, error)
	Stats(ctx context.Context) (Stats, error)
}

// EntityPager reads the entities of a layer a page at a time, so that a stage that visits every
// entity (embedding them, for one) holds a page in memory rather than the whole layer.
type EntityPager interface {
	// EntitiesAfter returns at most limit entities of one layer whose ids sort after after,
	// ordered by id, with everything EntitiesByLayer returns; after "" starts at the first. A
	// page shorter than limit is the last. limit must be positive.
	EntitiesAfter(ctx context.Context, layer int, after string, limit int) ([]Entity, error)
}

// EntityScanner pages through a layer reading only what a pass over it uses: the ids of the
// entities with an embedding (the members a layer is clustered from), or the entities still to
// embed. On Neo4j an embedding is most of an entity's row (a list of floats, each one boxed by
// the driver), so a pass that reads whole entities to keep a few of their fields costs several
// times what it uses.
type EntityScanner interface {
	// EmbeddedIDsAfter returns at most limit ids of the entities of one layer that have an
	// embedding, sorting after after, in order; after "" starts at the first. A page shorter
	// than limit is the last. limit must be positive.
	EmbeddedIDsAfter(ctx context.Context, layer int, after string, limit int) ([]string, error)
	// UnembeddedAfter returns, as EntityPager.EntitiesAfter does, at most limit entities of one
	// layer that have no embedding, whose ids sort after after.
	UnembeddedAfter(ctx context.Context, layer int, after string, limit int) ([]Entity, error)
}

// EntityTextReader looks entities up for what they say, not for their vectors.
type EntityTextReader interface {
	// EntityTexts returns the entities of ids as Reader.Entities does, without their
	// embeddings (Embedding nil).
	EntityTexts(ctx context.Context, ids []string) ([]Entity, error)
}

// EvidenceReader reads the per-chunk evidence that entities and relations are derived from.
// Evidence comes ordered by entity id (relation key), then document id, Seq and chunk id: the
// order in which it is merged, whatever the order documents were ingested in.
type EvidenceReader interface {
	// EntityEvidence returns every mention of the entities.
	EntityEvidence(ctx context.Context, entityIDs []string) ([]Mention, error)
	// RelationEvidence returns the evidence of the relations.
	RelationEvidence(ctx context.Context, keys []RelationKey) ([]RelationEvidence, error)
	// ChunkEvidence returns what the chunks hold: their mentions and the relation evidence they
	// are the chunk of.
	ChunkEvidence(ctx context.Context, chunkIDs []string) ([]Mention, []RelationEvidence, error)
	// Unsupported counts the layer-0 entities without a mention other than Subject ones and the
	// relations between layer-0 entities without evidence: what a graph derived from evidence
	// never holds.
	Unsupported(ctx context.Context) (entities, relations int64, err error)
}

// Searcher answers the queries retrieval is made of.
type Searcher interface {
	// VectorSearch returns the k nearest nodes of the index to vec by cosine similarity. Nodes
	// without an embedding are ignored. A vector whose dimension differs from the stored ones is
	// an error.
	VectorSearch(ctx context.Context, index VectorIndex, vec []float32, k int) ([]Hit, error)
	// TextSearch returns the k best nodes of the full-text index for a free-text query (BM25 or the
	// backend's equivalent). The query is plain words, never query syntax.
	TextSearch(ctx context.Context, index TextIndex, query string, k int) ([]Hit, error)
	// ExpandLocal gathers the neighbourhood of the seed entities in one round trip.
	ExpandLocal(ctx context.Context, entityIDs []string, opt LocalOptions) (LocalContext, error)
	// DocumentLinks walks from chunks over HAS_ENTITY to the entities they mention and back to
	// the documents whose chunks mention those entities: one link per entity and document, for
	// the entities mentioned in at most maxDocuments documents (more common ones link too much
	// to tell anything), ordered by entity id, then document id. The starting chunks' own
	// documents are included.
	DocumentLinks(ctx context.Context, chunkIDs []string, maxDocuments int) ([]DocumentLink, error)
	// ShortestPaths finds, for each request, one shortest path of at most maxHops steps over
	// RELATED and SUMMARIZED_BY. Requests without such a path are left out of the result.
	ShortestPaths(ctx context.Context, reqs []PathRequest, maxHops int) ([]Path, error)
}

// Analyzer runs the graph algorithms and writes their results.
type Analyzer interface {
	// ComputeComponents runs WCC over the RELATED relationships of all layers (undirected;
	// SUMMARIZED_BY left out: the hierarchy's top would join everything) and writes
	// Entity.ComponentID and Entity.Degree. It returns the number of components.
	ComputeComponents(ctx context.Context) (int, error)
	// UpdateComponents brings Entity.ComponentID and Entity.Degree up to date after a change
	// to a graph whose components were computed, reading only around the change
	// (PlanComponents): changed lists the entities (any layer) added, rewritten or removed and
	// both ends of every RELATED relationship added or removed since (every entity without a
	// component is among them: it is new since). Untouched components
	// keep their ids, so ids need not be dense afterwards; entities in one component share an
	// id and other components have others, as after ComputeComponents. It returns the number
	// of components.
	UpdateComponents(ctx context.Context, changed []string) (int, error)
	// ComputeCommunities runs hierarchical Leiden over the same graph weighted by weight, replaces
	// every Community node, IN_COMMUNITY (entity to its community at every level) and CHILD_OF,
	// and returns the new communities (without reports), ordered by level then community id.
	ComputeCommunities(ctx context.Context, p LeidenParams) ([]Community, error)
	// UpdateCommunities recomputes the communities starting from the stored ones (see
	// CommunityUpdate), so that an update of the graph re-reports what it changed rather than
	// every community. changed lists the entities (any layer) added, rewritten or removed
	// since the stored communities were reported, and the ends of relations added, rewritten
	// or removed.
	//
	// Leiden starts every level from the stored communities of that level (entities without
	// one alone); the result is stored over the stored communities by MatchCommunities, in
	// one transaction, and nothing is written when it keeps every community with its parent.
	// Drift bound: ComputeCommunities, and every fresh computation here, records the
	// modularity of each level (meta CommunityModularityKey); when a level of the seeded
	// result, compared from the coarsest, falls below 98 % of the recorded modularity of that
	// level (or when none is recorded and it falls below the fresh computation's), Leiden runs
	// from scratch instead, Fresh is set and the new modularities are recorded. The record is
	// left alone after a seeded update, so that drift cannot accumulate over updates.
	UpdateCommunities(ctx context.Context, p LeidenParams, changed []string) (CommunityUpdate, error)
}

// ReadWriter is what a stage that reads the graph and writes to it needs.
type ReadWriter interface {
	Reader
	Writer
}

// ReadSearcher is what retrieval needs: it never writes.
type ReadSearcher interface {
	Reader
	Searcher
}

// Store is the whole contract, what a backend implements.
type Store interface {
	Reader
	EntityPager
	EntityScanner
	EntityTextReader
	Searcher
	Writer
	Analyzer
	ArchIndex
	Close() error
}
