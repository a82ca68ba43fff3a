// Package retrieval answers questions from the graph: it finds the relevant chunks, entities,
// relations and community reports for a query mode, fits them into token budgets, assembles the
// context text, and (when an answerer is configured) generates the answer.
package retrieval

import "fmt"

// Result is the output of one query. Its JSON form is what `strata query --json` prints, a
// contract for scripts: the README shows its shape.
type Result struct {
	Query       string             `json:"query"`
	Mode        Mode               `json:"mode"`
	Answer      *string            `json:"answer"`
	AnswerNotes *AnswerNotes       `json:"answer_notes"` // nil when Answer is
	Context     Context            `json:"context"`
	ContextText string             `json:"context_text"`
	Usage       Usage              `json:"usage"`
	Budget      Budget             `json:"budget"`
	TimingsMS   map[string]float64 `json:"timings_ms"`
}

// AnswerNotes is what a reader of a generated answer must know besides its text.
type AnswerNotes struct {
	// Truncated: the model stopped at its token limit; the answer may be incomplete.
	Truncated bool `json:"truncated"`
	// CitationsRemoved counts citations of sources not in the context, taken out of the answer.
	CitationsRemoved int `json:"citations_removed"`
	// NothingFound: retrieval found nothing to answer from, so no model was asked and the
	// answer is NothingFoundAnswer.
	NothingFound bool `json:"nothing_found"`
}

// Warnings says in a sentence each what the notes mean for the answer, for a terminal; none
// when there is nothing to say. Nothing found needs no warning: the answer says so.
func (n *AnswerNotes) Warnings() []string {
	if n == nil {
		return nil
	}
	var w []string
	if n.Truncated {
		w = append(w, "the answer was cut at the model's token limit and may be incomplete")
	}
	if n.CitationsRemoved > 0 {
		w = append(w, fmt.Sprintf("%d citation(s) of sources not in the context were removed from the answer; the statements they backed are unsupported", n.CitationsRemoved))
	}
	return w
}

// Context holds the items the context text was assembled from, each list in rank order. In
// global mode the context text holds report points only, and Chunks lists the source chunks
// behind the communities those points cite.
type Context struct {
	Entities    []EntityItem    `json:"entities"`
	Communities []CommunityItem `json:"communities"`
	Paths       []PathItem      `json:"paths"`
	Chunks      []ChunkItem     `json:"chunks"`
}

// EntityItem is an entity in the context.
type EntityItem struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Description string  `json:"description"`
	Layer       int     `json:"layer"`
	Score       float64 `json:"score"`
}

// CommunityItem is a community report in the context.
type CommunityItem struct {
	ID      string  `json:"id"`
	Level   int     `json:"level"`
	Title   string  `json:"title"`
	Summary string  `json:"summary"`
	Rating  float64 `json:"rating"`
}

// PathItem is a relation in the context: a relation around the seed entities in local mode, a
// step of a bridge path in hi mode.
type PathItem struct {
	Source      string  `json:"source"`
	Target      string  `json:"target"`
	Description string  `json:"description"`
	Weight      float64 `json:"weight"`
}

// ChunkItem is a source chunk in the context.
type ChunkItem struct {
	ID         string `json:"id"`
	DocumentID string `json:"document_id"`
	Title      string `json:"title"`
	// Pages are the pages of a paged document (PDF) the chunk lies on, in order; left out for
	// documents without pages.
	Pages []int   `json:"pages,omitempty"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
	// Excerpt: Text is the chunk's passage that best matches the question (hi mode writes the
	// chunks below its first ones so), marked "…" where it is cut.
	Excerpt bool `json:"excerpt,omitempty"`
	tokens  int  // the stored token count of Text, when known
}

// Cite returns the label that cites the chunk's document: [doc:ID], with its pages when they
// are known ([doc:ID p.3], [doc:ID pp.3-4]). The context text labels chunks so, and an answer
// cites them the same way.
func (c ChunkItem) Cite() string {
	if p := PageLabel(c.Pages); p != "" {
		return "[doc:" + c.DocumentID + " " + p + "]"
	}
	return "[doc:" + c.DocumentID + "]"
}

// PageLabel names pages as a citation does: "p.3" for one, "pp.3-5" for several (first to
// last), "" for none.
func PageLabel(pages []int) string {
	switch len(pages) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("p.%d", pages[0])
	}
	return fmt.Sprintf("pp.%d-%d", pages[0], pages[len(pages)-1])
}

// Usage counts model use for the query.
type Usage struct {
	LLMCalls         int `json:"llm_calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	EmbeddingCalls   int `json:"embedding_calls"`
}

// Budget is how the context budget was given out and spent: every section of the context text,
// in order, with the retrieval level that fed it. The sections' tokens add up to the context
// text's count or a little more (a chunk's lines are counted from its stored count, with a token
// to spare where BPE may merge across a line break; 2 % over on testdata).
type Budget struct {
	// MaxTokens is the budget of the whole context (Options.MaxContextTokens).
	MaxTokens int             `json:"max_tokens"`
	Sections  []SectionBudget `json:"sections"`
}

// SectionBudget is one section of the context text.
type SectionBudget struct {
	Section string `json:"section"` // its heading
	// Level is the hi level that fed it (local, global, bridge; sources for the chunks, which
	// all levels rank), empty in the other modes.
	Level  string `json:"level,omitempty"`
	Budget int    `json:"budget"` // tokens it could take
	Tokens int    `json:"tokens"` // tokens it took, heading and line breaks included
	Items  int    `json:"items"`  // items it holds
}

func emptyContext() Context {
	return Context{Entities: []EntityItem{}, Communities: []CommunityItem{}, Paths: []PathItem{}, Chunks: []ChunkItem{}}
}
