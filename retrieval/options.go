package retrieval

import "fmt"

// Options configures one query. Start from DefaultOptions and check changed fields with
// Validate: Engine.Query uses every field as it is, with no defaults of its own.
type Options struct {
	Mode Mode
	// TopK is the number of source chunks in the context.
	TopK int
	// Entities is the number of seed entities (local and hi modes), of nodes found per layer in
	// arch mode, and of facts whose two entities seed the walk in ppr mode.
	Entities int
	// MaxContextTokens bounds the context text. In global mode it also bounds the reports text of
	// each map call, as in GraphRAG.
	MaxContextTokens int
	// PPRWeight is the weight of hi's personalized PageRank channel in the fusion of its
	// source chunks (0, the default: no channel; the lexical channel weighs 1). The store must
	// rank chunks by PPR (graph.ChunkRanker).
	PPRWeight float64
	// ContextOnly skips answer generation.
	ContextOnly bool
	// archFind replaces arch mode's search in benchmarks that compare others (nil: the
	// default, Engine.archFindFused); a pointer keeps Options comparable.
	archFind *archFinder
}

// DefaultContextTokens is the context budget of every mode, GraphRAG's for local and
// global search (in global mode, also the reports text of each map call, its max_data_tokens).
// hi, arch and lca fill it source chunks first and size the graph sections from what those take, so
// on the measured sets they stay well within it (docs/RETRIEVAL.md).
const DefaultContextTokens = 12000

// Defaults of the local and naive modes, after GraphRAG's local search.
const (
	defaultTopK   = 10
	localEntities = 10
)

// minContextTokens is the smallest context budget Validate accepts: below it a section holds
// little more than its heading.
const minContextTokens = 100

// The largest values Validate accepts. Each option sizes searches and buffers before the store
// is read (a mode asks for several times Entities candidates), so an unbounded value is an
// unbounded allocation, and lca's work grows with its seeds. The bounds sit far above the
// defaults and above what a model's window can use (docs/CLI.md lists them).
const (
	MaxTopK          = 1000
	MaxEntities      = 500
	MaxContextTokens = 1_000_000
	MaxPPRWeight     = 100
)

// DefaultOptions returns the options of a query in mode m: GraphRAG's for local (10 entities)
// and global, HiRAG's 20 entities for the hi modes, 10 nodes per layer in arch, each with
// DefaultContextTokens; lca has 10 seeds. The defaults differ per mode, so the mode comes
// first.
func DefaultOptions(m Mode) Options {
	opt := Options{Mode: m, TopK: defaultTopK, Entities: localEntities, MaxContextTokens: DefaultContextTokens}
	switch m {
	case ModeNaive, ModeLocal:
	case ModeGlobal:
	case ModeLCA:
		opt.Entities = lcaEntities
	case ModeArch:
		opt.Entities = archNodes
	case ModePPR:
		opt.Entities = pprFacts
	default: // ModeHi and its ablations
		opt.Entities = hiEntities
	}
	return opt
}

// Overrides are the settings a caller gives over a mode's defaults, as query's flags and serve's
// request fields do. A zero field keeps the default, but for TopK, which nil keeps.
type Overrides struct {
	TopK             *int
	Entities         int
	MaxContextTokens int
	PPRWeight        float64
	ContextOnly      bool
}

// NewOptions returns mode's defaults (DefaultOptions) with o applied, and the first setting no
// query can use (Validate): the one way query, eval and serve build their options.
func NewOptions(mode Mode, o Overrides) (Options, error) {
	opt := DefaultOptions(mode)
	if o.TopK != nil {
		opt.TopK = *o.TopK
	}
	if o.Entities != 0 {
		opt.Entities = o.Entities
	}
	if o.MaxContextTokens != 0 {
		opt.MaxContextTokens = o.MaxContextTokens
	}
	opt.PPRWeight = o.PPRWeight
	opt.ContextOnly = o.ContextOnly
	return opt, opt.Validate()
}

// Validate reports the first option that no query can use, naming it.
func (o Options) Validate() error {
	switch {
	case o.TopK < 1:
		return fmt.Errorf("top-k must be at least 1, got %d", o.TopK)
	case o.TopK > MaxTopK:
		return fmt.Errorf("top-k must be at most %d, got %d", MaxTopK, o.TopK)
	case o.Entities < 1:
		return fmt.Errorf("entities must be at least 1, got %d", o.Entities)
	case o.Entities > MaxEntities:
		return fmt.Errorf("entities must be at most %d, got %d", MaxEntities, o.Entities)
	case !(o.PPRWeight >= 0):
		return fmt.Errorf("ppr weight must not be negative, got %v", o.PPRWeight)
	case !(o.PPRWeight <= MaxPPRWeight):
		return fmt.Errorf("ppr weight must be at most %d, got %v", MaxPPRWeight, o.PPRWeight)
	case o.MaxContextTokens < minContextTokens:
		return fmt.Errorf("max context tokens must be at least %d, got %d", minContextTokens, o.MaxContextTokens)
	case o.MaxContextTokens > MaxContextTokens:
		return fmt.Errorf("max context tokens must be at most %d, got %d", MaxContextTokens, o.MaxContextTokens)
	}
	return nil
}
