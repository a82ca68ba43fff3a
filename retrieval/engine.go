package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
)

// Modes lists the query modes, in the order help text shows them. The hi_* modes are the
// ablations of HiRAG's paper: one or two of its three knowledge levels, always with the source
// chunks.
var Modes = []string{"hi", "naive", "local", "global", "hi_local", "hi_global", "hi_bridge", "hi_nobridge"}

// Answerer generates an answer from a question and its context text.
type Answerer interface {
	Answer(ctx context.Context, question, contextText string) (string, error)
}

// Options configures one query. Zero fields take the mode's defaults (DefaultOptions).
type Options struct {
	Mode string
	// TopK is the number of source chunks in the context.
	TopK int
	// Entities is the number of seed entities (local and hi modes).
	Entities int
	// ContextOnly skips answer generation.
	ContextOnly bool
	// MaxContextTokens bounds the context text.
	MaxContextTokens int
}

// DefaultMode is the mode of a query that names none: HiRAG's three-level retrieval.
const DefaultMode = "hi"

// DefaultOptions returns the defaults of a mode: GraphRAG's for local (10 entities, 12 000
// tokens) and global (12 000 tokens of key points, and of reports per map batch), HiRAG's for the
// hi modes (20 entities; 65 000 tokens split 12 500 / 12 500 / 20 000 / 20 000 between
// backgrounds, reasoning paths, entities and sources).
func DefaultOptions(mode string) Options {
	if mode == "" {
		mode = DefaultMode
	}
	opt := Options{Mode: mode, TopK: 10, Entities: 10, MaxContextTokens: 12000}
	switch {
	case isHi(mode):
		opt.Entities, opt.MaxContextTokens = hiEntities, hiContextTokens
	case mode == "global":
		opt.MaxContextTokens = globalContextTokens
	}
	return opt
}

// Engine runs queries against a store.
type Engine struct {
	Store     graph.ReadSearcher
	Embedder  embedding.Embedder
	Tokenizer *tokenizer.Tokenizer
	Answerer  Answerer // nil: no answer is generated
	// Mapper runs the map step of global mode; nil: reports are scored offline by their
	// similarity to the question.
	Mapper Mapper
}

// ErrEmptyQuery is returned for a blank question.
var ErrEmptyQuery = errors.New("the question is empty")

// Query runs one query. Without an answerer the result carries the context and a nil answer.
func (e *Engine) Query(ctx context.Context, question string, opt Options) (*Result, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, ErrEmptyQuery
	}
	def := DefaultOptions(opt.Mode)
	opt.Mode = def.Mode
	if opt.TopK <= 0 {
		opt.TopK = def.TopK
	}
	if opt.Entities <= 0 {
		opt.Entities = def.Entities
	}
	if opt.MaxContextTokens <= 0 {
		opt.MaxContextTokens = def.MaxContextTokens
	}
	res := &Result{Query: question, Mode: opt.Mode, Context: emptyContext(), TimingsMS: map[string]float64{}}
	start := time.Now()
	lap := func(name string, t time.Time) { res.TimingsMS[name] = ms(time.Since(t)) }

	t := time.Now()
	vecs, err := e.Embedder.Embed(ctx, []string{question})
	if err != nil {
		return nil, fmt.Errorf("embed the question: %w", err)
	}
	lap("embed", t)

	t = time.Now()
	switch opt.Mode {
	case "naive":
		err = e.naive(ctx, question, vecs[0], opt, res)
	case "local":
		err = e.local(ctx, question, vecs[0], opt, res)
	case "global":
		err = e.global(ctx, question, vecs[0], opt, res)
	case "hi", "hi_local", "hi_global", "hi_bridge", "hi_nobridge":
		err = e.hi(ctx, question, vecs[0], opt, res)
	default:
		return nil, fmt.Errorf("unknown mode %q (want one of %s)", opt.Mode, strings.Join(Modes, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%s retrieval: %w", opt.Mode, err)
	}
	lap("retrieve", t)

	if !opt.ContextOnly && e.Answerer != nil {
		t = time.Now()
		answer, err := e.Answerer.Answer(ctx, question, res.ContextText)
		if err != nil {
			return nil, fmt.Errorf("generate the answer: %w", err)
		}
		res.Answer = &answer
		lap("answer", t)
	}
	lap("total", start)
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rrfK is the rank offset of reciprocal rank fusion (Cormack et al. 2009): it damps the weight of
// the first few ranks so that agreement between lists matters more than one list's top hit.
const rrfK = 60

// fuse merges ranked hit lists with reciprocal rank fusion; ties keep first-seen order.
func fuse(lists ...[]graph.Hit) []graph.Hit {
	scores := map[string]float64{}
	var order []string
	for _, l := range lists {
		for rank, h := range l {
			if _, ok := scores[h.ID]; !ok {
				order = append(order, h.ID)
			}
			scores[h.ID] += 1 / float64(rrfK+rank+1)
		}
	}
	out := make([]graph.Hit, len(order))
	for i, id := range order {
		out[i] = graph.Hit{ID: id, Score: scores[id]}
	}
	slices.SortStableFunc(out, func(a, b graph.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// hybridSearch fuses vector search over an embedding index with full-text search over a text
// index, each asked for k hits, and returns at most k.
func (e *Engine) hybridSearch(ctx context.Context, vindex graph.VectorIndex, tindex graph.TextIndex, question string, qvec []float32, k int) ([]graph.Hit, error) {
	vhits, err := e.Store.VectorSearch(ctx, vindex, qvec, k)
	if err != nil {
		return nil, err
	}
	thits, err := e.Store.TextSearch(ctx, tindex, question, k)
	if err != nil {
		return nil, err
	}
	hits := fuse(vhits, thits)
	return hits[:min(len(hits), k)], nil
}

// chunkItems looks up chunks by id and their document titles, keeping the order of hits.
func (e *Engine) chunkItems(ctx context.Context, chunks []graph.Chunk, scores map[string]float64) ([]ChunkItem, error) {
	var docIDs []string
	for _, c := range chunks {
		if !slices.Contains(docIDs, c.DocumentID) {
			docIDs = append(docIDs, c.DocumentID)
		}
	}
	docs, err := e.Store.Documents(ctx, docIDs)
	if err != nil {
		return nil, err
	}
	titles := make(map[string]string, len(docs))
	for _, d := range docs {
		titles[d.ID] = d.Title
	}
	items := make([]ChunkItem, len(chunks))
	for i, c := range chunks {
		items[i] = ChunkItem{ID: c.ID, DocumentID: c.DocumentID, Title: titles[c.DocumentID], Text: c.Text, Score: scores[c.ID]}
	}
	return items, nil
}
