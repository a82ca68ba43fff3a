// Package graph defines strata's data model (docs/ARCHITECTURE.md#data-model) and the store
// contract that every storage backend implements. Stages and retrieval depend on this package
// only; they never import a backend.
package graph

import (
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Document is one ingested source document.
type Document struct {
	ID         string
	Title      string
	Source     string // path or URI the document was loaded from
	SHA256     string // hex digest of the document text
	Metadata   string // JSON object, "{}" when there is none
	IngestedAt time.Time
}

// Chunk is a token window of a document. Its ID is a content hash, so the same text always maps to
// the same chunk.
type Chunk struct {
	ID         string
	DocumentID string
	Seq        int // position in the document, from 0
	Text       string
	Tokens     int
	Embedding  []float32
	// FirstPage and LastPage are the pages (from 1) of a paged document (PDF) that the chunk's
	// text lies on, so that a citation can name them; both 0 for a document without pages.
	FirstPage, LastPage int
}

// Pages returns the pages the chunk lies on, in order; nil when its document has no pages.
func (c Chunk) Pages() []int {
	if c.FirstPage <= 0 || c.LastPage < c.FirstPage {
		return nil
	}
	out := make([]int, 0, c.LastPage-c.FirstPage+1)
	for p := c.FirstPage; p <= c.LastPage; p++ {
		out = append(out, p)
	}
	return out
}

// Entity is a node of the knowledge graph. Layer 0 entities are extracted from text; entities of
// layer >= 1 are summaries built by the hierarchical index and carry the extra label Summary.
type Entity struct {
	ID          string // NormalizeID(Name)
	Name        string
	Type        string
	Description string
	Layer       int
	Embedding   []float32
	ComponentID int64 // set by ComputeComponents; -1 until then
	Degree      int   // number of RELATED relationships; set by ComputeComponents
}

// Relation is an undirected RELATED relationship between two entities. Source < Target always
// holds (see NewRelationKey) so a pair of entities has at most one relation.
type Relation struct {
	Source      string
	Target      string
	Description string
	Weight      float64
	ChunkIDs    []string // chunks the relation was extracted from
	// Evidence is what each chunk of ChunkIDs said about the relation, one item per chunk. Apply
	// replaces the stored evidence with it (none for a relation not extracted from text); reads
	// other than RelationEvidence leave it empty.
	Evidence []RelationEvidence
	// AddEvidence makes Apply add Evidence to the stored evidence instead of replacing it: an
	// item replaces the stored one of its chunk, the evidence of other chunks stays. A relation
	// that gains the evidence of a few new chunks is then written without the evidence of all
	// the chunks before them (pipeline/resolve); ChunkIDs still names them all.
	AddEvidence bool
}

// RelationEvidence is what one chunk's extraction said about a relation: its description parts
// (joined by "\n") and the strength it gave, summed over the chunk's statements of the relation.
// The description and weight of a relation are derived from its evidence (pipeline/resolve).
type RelationEvidence struct {
	Source, Target string // the relation's key
	ChunkID        string
	Description    string
	Weight         float64
	// DocumentID and Seq place the chunk: evidence is merged in document id, then Seq order.
	// Reads fill them; Apply ignores them.
	DocumentID string
	Seq        int
}

// Key returns the identity of the relation.
func (r Relation) Key() RelationKey { return RelationKey{Source: r.Source, Target: r.Target} }

// RelationKey identifies a relation by its ordered endpoint ids.
type RelationKey struct{ Source, Target string }

// NewRelationKey orders a and b so that the same pair always yields the same key.
func NewRelationKey(a, b string) RelationKey {
	if b < a {
		a, b = b, a
	}
	return RelationKey{Source: a, Target: b}
}

// Mention links a chunk to an entity it mentions (HAS_ENTITY) and holds the chunk's evidence
// about the entity: what its extraction said (the name as written, the type, the description
// parts joined by "\n"). An entity's name, type and description are derived from the evidence
// of all its mentions (pipeline/resolve), so removing a chunk removes what it said.
//
// A Subject mention says nothing: it links a chunk to the subject of its document (see
// Document.Subject) that another chunk of the document names. An entity is supported by its
// other mentions only.
type Mention struct {
	ChunkID     string
	EntityID    string
	Name        string
	Type        string
	Description string
	Subject     bool
	// DocumentID and Seq place the chunk: evidence is merged in document id, then Seq order.
	// Reads fill them; Apply ignores them.
	DocumentID string
	Seq        int
}

// Key returns the identity of the mention: its chunk and entity.
func (m Mention) Key() MentionKey { return MentionKey{ChunkID: m.ChunkID, EntityID: m.EntityID} }

// MentionKey identifies a mention.
type MentionKey struct{ ChunkID, EntityID string }

// SummaryLink is a SUMMARIZED_BY relationship from an entity of layer i to a summary entity of
// layer i+1.
type SummaryLink struct {
	Member      string
	Summary     string
	Description string
	Weight      float64
}

// Community is a Leiden community at one level of the hierarchy. Level 0 is the coarsest.
type Community struct {
	ID          string // CommunityID(Level, CommunityID)
	Level       int
	CommunityID int64
	ParentID    string // community of level Level-1 containing this one; "" at level 0
	Title       string
	Summary     string
	Report      string // full report text (JSON as returned by the reports stage)
	Rating      float64
	Size        int // number of member entities
	Embedding   []float32
}

// NormalizeID turns an entity name into its id: Unicode NFKC, trimmed, inner whitespace collapsed
// to one space, upper-cased.
func NormalizeID(name string) string {
	s := norm.NFKC.String(name)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// UniqueIDs returns ids without repeats, keeping first occurrences in order. Backends use it so
// that a lookup asking twice for one id does the work once.
func UniqueIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// EmbeddingText is the text an entity is embedded from, at every layer; retrieval embeds
// queries against it.
func (e Entity) EmbeddingText() string {
	return e.Name + " (" + e.Type + "): " + e.Description
}

// maxSubjectWords bounds a title that can name a subject: encyclopaedia titles name their
// entity in a few words ("Treaty of Vell", "Hollin Reach University"); longer titles are
// headlines.
const maxSubjectWords = 8

// subjectJoiners are the lower-case words a name may contain between capitalised ones.
var subjectJoiners = map[string]bool{
	"of": true, "the": true, "and": true, "for": true, "in": true, "on": true, "at": true, "to": true,
	"a": true, "an": true, "de": true, "du": true, "la": true, "le": true, "von": true, "van": true,
	"der": true, "den": true, "del": true, "da": true, "di": true, "y": true, "&": true,
}

// Subject returns the entity the document's title names; see subjectName.
func (d Document) Subject() string { return subjectName(d.Title) }

// subjectName returns the entity a document's title names, with a trailing parenthetical
// ("Mercury (planet)") removed, or "" when the title reads as a headline or a sentence rather
// than a name: more than maxSubjectWords words, a lower-case word that is not a joiner, or
// sentence punctuation. A file name stem ("lira-solenne", "treaty_of_vell") is read as its
// words, whatever their case: files are often named after what they describe, and the subject
// only counts where the text names it (ingest matches it against the extracted entities, case
// aside). Ingest stores the subject as an entity every chunk of the document mentions, so
// retrieval can walk from a document that names an entity to the document about it.
func subjectName(title string) string {
	title = strings.TrimSpace(title)
	if i := strings.LastIndex(title, " ("); i > 0 && strings.HasSuffix(title, ")") {
		title = strings.TrimSpace(title[:i])
	}
	if !strings.ContainsFunc(title, unicode.IsSpace) && strings.ContainsAny(title, "-_") {
		words := strings.FieldsFunc(title, func(r rune) bool { return r == '-' || r == '_' })
		if len(words) == 0 || len(words) > maxSubjectWords {
			return ""
		}
		return strings.Join(words, " ")
	}
	words := strings.Fields(title)
	if len(words) == 0 || len(words) > maxSubjectWords || strings.ContainsAny(title, "?!:;\"“”") {
		return ""
	}
	for i, w := range words {
		first := []rune(w)[0]
		switch {
		case unicode.IsUpper(first) || unicode.IsDigit(first):
		case i > 0 && subjectJoiners[strings.ToLower(w)]:
		default:
			return ""
		}
	}
	return strings.Join(words, " ")
}
