// Package embed defines how strata turns text into vectors, and provides the deterministic offline
// embedder used when no embedding model is configured.
package embedding

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Embedder turns texts into vectors of a fixed dimension.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the embedding model; stores record it so that vectors of different models are
	// never compared.
	Model() string
	// Dimensions is the length of every vector Embed returns.
	Dimensions() int
}

// Offline is a deterministic embedder built on feature hashing: words (stop words removed), word
// bigrams and character trigrams are hashed into a fixed number of signed buckets and the vector is
// L2-normalized. It captures lexical overlap only; it needs no model and no network, which is what
// the zero-setup path needs.
type Offline struct {
	dims int
}

// PassageWeighter is implemented by embedders that say how much their passage (chunk) vector
// hits count against full-text hits where retrieval fuses the two.
type PassageWeighter interface {
	PassageWeight() float64
}

// PassageWeight is e's weight in the fusion of chunk vector and full-text search: 1 (equal
// footing) unless e says otherwise.
func PassageWeight(e Embedder) float64 {
	if w, ok := e.(PassageWeighter); ok {
		return w.PassageWeight()
	}
	return 1
}

// WithPassageWeight returns e with passage weight w in place of its own (--dense-weight).
func WithPassageWeight(e Embedder, w float64) Embedder { return weighted{e, w} }

type weighted struct {
	Embedder
	w float64
}

func (w weighted) PassageWeight() float64 { return w.w }

func (w weighted) EmbedQuery(ctx context.Context, texts []string) ([][]float32, error) {
	return EmbedQuery(ctx, w.Embedder, texts)
}

// OfflineModel is the model name the offline embedder reports.
const OfflineModel = "strata-offline-hash-v1"

// NewOffline returns an offline embedder producing vectors of dims dimensions (384 when dims <= 0).
func NewOffline(dims int) *Offline {
	if dims <= 0 {
		dims = 384
	}
	return &Offline{dims: dims}
}

// Model implements Embedder.
func (o *Offline) Model() string { return OfflineModel }

// Dimensions implements Embedder.
func (o *Offline) Dimensions() int { return o.dims }

// PassageWeight implements PassageWeighter: 0. A hashed bag of a 1200-token passage's words
// ranks passages worse than BM25 over the same words and only dilutes it (docs/RETRIEVAL.md,
// dense weight per embedder). Entity vectors (a name and a short description) keep weight 1:
// local mode loses recall without them.
func (o *Offline) PassageWeight() float64 { return 0 }

// Embed implements Embedder. It never fails except on cancellation.
func (o *Offline) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = o.vector(t)
	}
	return out, nil
}

// Feature weights: whole words carry meaning; bigrams add phrase identity; trigrams let
// inflections ("guild", "guilds") share mass.
const (
	wordWeight    = 1.0
	bigramWeight  = 0.6
	trigramWeight = 0.25
)

func (o *Offline) vector(text string) []float32 {
	acc := make([]float64, o.dims)
	words := Words(text)
	counts := make(map[string]int, len(words))
	for _, w := range words {
		counts[w]++
	}
	for w, n := range counts {
		o.add(acc, "w:"+w, wordWeight*(1+math.Log(float64(n))))
		if r := []rune(w); len(r) >= 4 {
			padded := "<" + w + ">"
			pr := []rune(padded)
			for i := 0; i+3 <= len(pr); i++ {
				o.add(acc, "t:"+string(pr[i:i+3]), trigramWeight)
			}
		}
	}
	for i := 0; i+1 < len(words); i++ {
		o.add(acc, "b:"+words[i]+" "+words[i+1], bigramWeight)
	}
	var norm float64
	for _, v := range acc {
		norm += v * v
	}
	vec := make([]float32, o.dims)
	if norm == 0 {
		return vec
	}
	norm = math.Sqrt(norm)
	for i, v := range acc {
		vec[i] = float32(v / norm)
	}
	return vec
}

func (o *Offline) add(acc []float64, feature string, w float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	sum := h.Sum64()
	i := int(sum % uint64(o.dims))
	if sum>>63 == 1 {
		w = -w
	}
	acc[i] += w
}

// Words splits text into lower-cased words of letters and digits and drops English stop words.
// Retrieval's full-text search and the offline embedder share it so they agree on what a word is.
func Words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if _, stop := stopWords[f]; !stop && len(f) > 1 {
			out = append(out, f)
		}
	}
	return out
}

var stopWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down during each
		few for from further had has have having he her here hers herself him himself his how i if in
		into is it its itself just me more most my myself no nor not now of off on once only or other
		our ours ourselves out over own same she should so some such than that the their theirs them
		themselves then there these they this those through to too under until up very was we were what
		when where which while who whom why will with would you your yours yourself yourselves also
		which whose s t`) {
		m[w] = struct{}{}
	}
	return m
}()

// Cosine returns the cosine similarity of a and b (0 when either is zero or lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
