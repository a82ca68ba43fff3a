package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
)

// Answerer generates an answer from a question and its context text.
type Answerer interface {
	Answer(ctx context.Context, question, contextText string) (Answer, error)
}

// ContextBudgeter is an Answerer that knows how much context fits its model beside the answer
// prompt and the answer (0 while it does not): the engine lowers a query's budget to it
// (answer.Generator implements it).
type ContextBudgeter interface {
	ContextBudget() int
}

// Answer is a generated answer and what its reader must be told about it, which the text alone
// does not show.
type Answer struct {
	Text string
	// Truncated: the model stopped at its token limit, so the answer may end early.
	Truncated bool
	// CitationsRemoved counts citations of sources that are not in the context, which were
	// taken out of Text: the model made them up.
	CitationsRemoved int
}

// NothingFoundAnswer is the answer when retrieval found nothing to answer from: no model is
// asked, since it could only say the same or make something up.
const NothingFoundAnswer = "Nothing relevant to the question was found in the graph."

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

// Query runs one query with opt as given (see DefaultOptions and Validate). Without an answerer
// the result carries the context and a nil answer.
func (e *Engine) Query(ctx context.Context, question string, opt Options) (*Result, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, ErrEmptyQuery
	}
	// One query is one read scope: a store that keeps copies in memory checks that they are
	// current once for the whole query, not once per call. A caller that reads the store for
	// the same request (strata serve's ingest state) may have opened it already.
	if graph.ReadScopeOf(ctx) == nil {
		ctx = graph.WithReadScope(ctx)
	}
	if b, ok := e.Answerer.(ContextBudgeter); ok && !opt.ContextOnly {
		// A context the model's window cannot hold would fail the answer, so every mode's
		// budget is fitted to it (a local model's 4k or 8k window, against the 65k default).
		if n := b.ContextBudget(); n > 0 && n < opt.MaxContextTokens {
			opt.MaxContextTokens = max(n, 1)
		}
	}
	res := &Result{Query: question, Mode: opt.Mode, Context: emptyContext(), Budget: Budget{MaxTokens: opt.MaxContextTokens, Sections: []SectionBudget{}},
		TimingsMS: map[string]float64{}}
	start := time.Now()
	lap := func(name string, t time.Time) { res.TimingsMS[name] = ms(time.Since(t)) }

	t := time.Now()
	vecs, err := embedding.EmbedQuery(ctx, e.Embedder, []string{question})
	if err != nil {
		return nil, fmt.Errorf("embed the question: %w", err)
	}
	lap("embed", t)

	t = time.Now()
	switch opt.Mode {
	case ModeNaive:
		err = e.naive(ctx, question, vecs[0], opt, res)
	case ModeLocal:
		err = e.local(ctx, question, vecs[0], opt, res)
	case ModeGlobal:
		err = e.global(ctx, question, vecs[0], opt, res)
	case ModeLCA:
		err = e.lca(ctx, question, vecs[0], opt, res)
	case ModeArch:
		err = e.arch(ctx, question, vecs[0], opt, res)
	case ModePPR:
		err = e.ppr(ctx, question, vecs[0], opt, res)
	default: // ModeHi and its ablations
		err = e.hi(ctx, question, vecs[0], opt, res)
	}
	if err != nil {
		return nil, fmt.Errorf("%s retrieval: %w", opt.Mode, err)
	}
	lap("retrieve", t)

	if !opt.ContextOnly && e.Answerer != nil {
		t = time.Now()
		if err := e.answer(ctx, question, res); err != nil {
			return nil, err
		}
		lap("answer", t)
	}
	lap("total", start)
	return res, nil
}

// answer sets the answer of res and its notes. A context with nothing in it (global search
// whose map step kept no point, say) is answered as the other modes' model answers a context
// that holds nothing relevant: with a sentence that says so, and no error.
func (e *Engine) answer(ctx context.Context, question string, res *Result) error {
	if strings.TrimSpace(res.ContextText) == "" {
		text := NothingFoundAnswer
		res.Answer, res.AnswerNotes = &text, &AnswerNotes{NothingFound: true}
		if send := answerStream(ctx); send != nil {
			sendWhole(send, text)
		}
		return nil
	}
	var a Answer
	var err error
	if send := answerStream(ctx); send != nil {
		a, err = e.streamedAnswer(ctx, question, res.ContextText, send)
	} else {
		a, err = e.Answerer.Answer(ctx, question, res.ContextText)
	}
	if err != nil {
		return fmt.Errorf("generate the answer: %w", err)
	}
	res.Answer = &a.Text
	res.AnswerNotes = &AnswerNotes{Truncated: a.Truncated, CitationsRemoved: a.CitationsRemoved}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rrfK is the rank offset of reciprocal rank fusion (Cormack et al. 2009): it damps the weight of
// the first few ranks so that agreement between lists matters more than one list's top hit.
const rrfK = 60

// weightedList is a ranked hit list and its weight in fusion.
type weightedList struct {
	hits   []graph.Hit
	weight float64
}

// fuse merges ranked hit lists with weighted reciprocal rank fusion; ties keep first-seen order,
// so hits only a list of weight 0 found follow all others, in that list's order.
func fuse(lists ...weightedList) []graph.Hit {
	scores := map[string]float64{}
	var order []string
	for _, l := range lists {
		for rank, h := range l.hits {
			if _, ok := scores[h.ID]; !ok {
				order = append(order, h.ID)
			}
			scores[h.ID] += l.weight / float64(rrfK+rank+1)
		}
	}
	out := make([]graph.Hit, len(order))
	for i, id := range order {
		out[i] = graph.Hit{ID: id, Score: scores[id]}
	}
	slices.SortStableFunc(out, func(a, b graph.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

// hybridSearch fuses vector search over an embedding index, weighted vectorWeight, with
// full-text search over a text index, each asked for k hits, and returns at most k.
// The two searches run concurrently: they are independent, and each is a scan of its own.
func (e *Engine) hybridSearch(ctx context.Context, vindex graph.VectorIndex, tindex graph.TextIndex, question string, qvec []float32, k int, vectorWeight float64) ([]graph.Hit, error) {
	var vhits, thits []graph.Hit
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		vhits, err = e.Store.VectorSearch(gctx, vindex, qvec, k)
		return err
	})
	g.Go(func() (err error) {
		thits, err = e.Store.TextSearch(gctx, tindex, textQuery(question), k)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	hits := fuse(weightedList{vhits, vectorWeight}, weightedList{thits, 1})
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
	return itemsOf(chunks, scores, docs), nil
}

// itemsOf makes the chunk items of chunks, with their documents' titles from docs (which may
// hold other documents too).
func itemsOf(chunks []graph.Chunk, scores map[string]float64, docs []graph.Document) []ChunkItem {
	titles := make(map[string]string, len(docs))
	for _, d := range docs {
		titles[d.ID] = d.Title
	}
	items := make([]ChunkItem, len(chunks))
	for i, c := range chunks {
		items[i] = ChunkItem{ID: c.ID, DocumentID: c.DocumentID, Title: titles[c.DocumentID], Pages: c.Pages(), Text: c.Text, Score: scores[c.ID], tokens: c.Tokens}
	}
	return items
}
