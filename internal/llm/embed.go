package llm

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
)

var (
	_ embedding.Embedder      = (*Client)(nil)
	_ embedding.QueryEmbedder = (*Client)(nil)
)

// Model implements embedding.Embedder: the embedding model name, followed by its marking of
// queries and passages when it has one. Stores record it, so that a store built with one marking
// is not searched with vectors of another: they are as far apart as two models'.
func (c *Client) Model() string {
	if c.cfg.EmbeddingMarking.None() {
		return c.cfg.EmbeddingModel
	}
	return c.cfg.EmbeddingModel + " " + c.cfg.EmbeddingMarking.String()
}

// Dimensions implements embedding.Embedder. It is the configured EmbeddingDims, else the length of
// the vectors of the first response, and 0 before any; DiscoverDimensions settles it up front.
func (c *Client) Dimensions() int { return int(c.dims.Load()) }

// probeText is embedded to learn the dimension of the model's vectors.
const probeText = "strata embedding dimension probe"

// DiscoverDimensions returns the embedding dimension, embedding one short text if it is not
// known yet (once per model: the probe is cached like any embedding).
func (c *Client) DiscoverDimensions(ctx context.Context) (int, error) {
	if d := c.Dimensions(); d > 0 {
		return d, nil
	}
	if _, err := c.Embed(ctx, []string{probeText}); err != nil {
		return 0, fmt.Errorf("discover embedding dimension: %w", err)
	}
	return c.Dimensions(), nil
}

// Embed implements embedding.Embedder: it embeds passages. Cached vectors are reused; the rest
// are requested in batches of at most EmbeddingBatch texts and EmbeddingBatchTokens tokens,
// concurrently within the client's limits.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return c.embed(ctx, embedding.Passage, texts)
}

// EmbedQuery implements embedding.QueryEmbedder: it embeds questions, marked as the model wants
// them (Config.EmbeddingMarking).
func (c *Client) EmbedQuery(ctx context.Context, texts []string) ([][]float32, error) {
	return c.embed(ctx, embedding.Query, texts)
}

func (c *Client) embed(ctx context.Context, kind embedding.Kind, texts []string) ([][]float32, error) {
	stage := stageOf("", StageEmbed)
	out := make([][]float32, len(texts))
	var miss []int
	saved := 0
	for i, t := range texts {
		if v, ok := c.cachedVector(kind, t); ok {
			out[i] = v
			saved++
			continue
		}
		miss = append(miss, i)
	}
	if saved > 0 {
		c.record(ctx, stage, StageUsage{CacheHits: saved})
	}
	if len(miss) == 0 {
		return out, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.cfg.EmbeddingConcurrency)
	for _, idx := range c.splitBatches(texts, miss) {
		g.Go(func() error {
			batch := make([]string, len(idx))
			for k, i := range idx {
				batch[k] = texts[i]
			}
			vecs, err := c.embedBatch(gctx, stage, kind, batch)
			if err != nil {
				return err
			}
			for k, i := range idx {
				out[i] = vecs[k]
				c.storeVector(kind, texts[i], vecs[k])
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// splitBatches cuts the texts at idx into requests of at most EmbeddingBatch texts and
// EmbeddingBatchTokens tokens (a text longer than that alone goes on its own), in order.
func (c *Client) splitBatches(texts []string, idx []int) [][]int {
	var out [][]int
	start, tokens := 0, 0
	for k, i := range idx {
		n := c.tok.Count(texts[i])
		if k > start && (k-start == c.cfg.EmbeddingBatch || tokens+n > c.cfg.EmbeddingBatchTokens) {
			out = append(out, idx[start:k])
			start, tokens = k, 0
		}
		tokens += n
	}
	if start < len(idx) {
		out = append(out, idx[start:])
	}
	return out
}

func (c *Client) embedBatch(ctx context.Context, stage string, kind embedding.Kind, texts []string) ([][]float32, error) {
	input := make([]string, len(texts))
	tokens := 0
	prefix := c.cfg.EmbeddingMarking.Prefix(kind)
	for i, t := range texts {
		t = prefix + t
		if t == "" {
			t = " " // the API rejects empty inputs
		}
		input[i] = t
		tokens += c.tok.Count(t)
	}
	req := openai.EmbeddingRequest{
		Input:          input,
		Model:          openai.EmbeddingModel(c.cfg.EmbeddingModel),
		Dimensions:     c.cfg.EmbeddingDims,
		EncodingFormat: openai.EmbeddingEncodingFormatFloat,
	}
	if t := c.cfg.EmbeddingMarking.InputType(kind); t != "" {
		req.ExtraBody = map[string]any{"input_type": t}
	}
	var res openai.EmbeddingResponse
	err := c.call(ctx, c.elim, nil, stage, tokens, tokens, func(actx context.Context) error {
		r, err := c.api.CreateEmbeddings(actx, req)
		if err != nil {
			return err
		}
		if len(r.Data) != len(input) {
			return fmt.Errorf("%w: %d vectors for %d inputs", errEmptyResponse, len(r.Data), len(input))
		}
		res = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embeddings (%s, model %s, %d texts): %w", stage, c.cfg.EmbeddingModel, len(texts), err)
	}
	sort.SliceStable(res.Data, func(i, j int) bool { return res.Data[i].Index < res.Data[j].Index })
	vecs := make([][]float32, len(res.Data))
	for i, d := range res.Data {
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings (%s): empty vector for input %d", stage, i)
		}
		if err := c.checkDims(len(d.Embedding)); err != nil {
			return nil, err
		}
		vecs[i] = d.Embedding
	}
	used := res.Usage.PromptTokens
	if used <= 0 {
		used = tokens
	}
	c.record(ctx, stage, StageUsage{EmbeddingCalls: 1, EmbeddingTokens: used})
	return vecs, nil
}

// checkDims learns the dimension from the first vector and rejects vectors of another length,
// which would corrupt every vector index they reach.
func (c *Client) checkDims(n int) error {
	if c.dims.CompareAndSwap(0, int64(n)) {
		return nil
	}
	if want := c.dims.Load(); int64(n) != want {
		return fmt.Errorf("embedding model %s returned %d dimensions, want %d", c.cfg.EmbeddingModel, n, want)
	}
	return nil
}

// vectorKey is the cache key of text's vector as kind: what the request sends, prefix included,
// and the input type. An unmarked model keeps the key it had before queries and passages were
// told apart.
func (c *Client) vectorKey(kind embedding.Kind, text string) string {
	parts := []string{"embed-v1", c.cfg.EmbeddingModel, strconv.Itoa(c.cfg.EmbeddingDims), c.cfg.EmbeddingMarking.Prefix(kind) + text}
	if t := c.cfg.EmbeddingMarking.InputType(kind); t != "" {
		parts = append(parts, "input_type="+t)
	}
	return Key(parts...)
}

// cachedVector reads a vector stored as little-endian float32s.
func (c *Client) cachedVector(kind embedding.Kind, text string) ([]float32, bool) {
	if c.cache == nil {
		return nil, false
	}
	key := c.vectorKey(kind, text)
	b, ok, err := c.cache.Get("embed", key)
	if err != nil {
		c.warn(err)
	}
	if !ok {
		return nil, false
	}
	if len(b) == 0 || len(b)%4 != 0 {
		c.warn(fmt.Errorf("ignore corrupt LLM cache entry embed/%s", key))
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	if c.checkDims(len(v)) != nil {
		return nil, false
	}
	return v, true
}

func (c *Client) storeVector(kind embedding.Kind, text string, v []float32) {
	if c.cache == nil {
		return
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	c.warn(c.cache.Put("embed", c.vectorKey(kind, text), b))
}
