package retrieval

import (
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/internal/tokenizer"
)

// contextBuilder writes the context text section by section. Each section takes items in rank
// order until its token budget is spent and returns the items it kept, so the JSON context and
// the text always hold the same items.
type contextBuilder struct {
	tok      *tokenizer.Tokenizer
	sb       strings.Builder
	sections []SectionBudget // what each section written was given and spent
}

func newContextBuilder(tok *tokenizer.Tokenizer) *contextBuilder { return &contextBuilder{tok: tok} }

func (b *contextBuilder) String() string { return strings.TrimSpace(b.sb.String()) }

// budget reports the sections written, in order, under the context budget total.
func (b *contextBuilder) budget(total int) Budget {
	return Budget{MaxTokens: total, Sections: append([]SectionBudget{}, b.sections...)}
}

// tag names the retrieval level that fed the last section written (no-op when none was).
func (b *contextBuilder) tag(level string) {
	if len(b.sections) > 0 {
		b.sections[len(b.sections)-1].Level = level
	}
}

// spent returns the tokens of the last section written (0 when none was).
func (b *contextBuilder) spent() int {
	if len(b.sections) == 0 {
		return 0
	}
	return b.sections[len(b.sections)-1].Tokens
}

// append writes the sections of o after b's own.
func (b *contextBuilder) append(o *contextBuilder) {
	b.sb.WriteString(o.sb.String())
	b.sections = append(b.sections, o.sections...)
}

// section writes a heading and as many of the rendered lines as fit in budget tokens, and returns
// how many it wrote. The first item is always written, even over budget, clipped to the budget:
// an empty section helps nobody.
func (b *contextBuilder) section(title string, n int, render func(i int) string, budget int) int {
	return b.sectionCost(title, n, render, nil, budget)
}

// sectionCost is section with the token cost of a line known in advance (at least its count)
// where cost returns one >= 0, which spares tokenizing long lines whose count is stored.
func (b *contextBuilder) sectionCost(title string, n int, render func(i int) string, known func(i int) int, budget int) int {
	if n == 0 {
		return 0
	}
	heading := fmt.Sprintf("-----%s-----", title)
	b.sb.WriteString(heading)
	b.sb.WriteByte('\n')
	used := 0
	kept := 0
	// Without known costs, lines are tokenized only once their byte lengths no longer prove
	// that they fit: a token is at least one byte, so while the tokens counted (used) plus the
	// bytes of the lines kept uncounted (pending) stay within budget, every line fits, and the
	// lines kept are exactly those that exact counting keeps. A hi context's entity, path and
	// community sections usually fit whole, and counting them was a tenth of a warm query.
	lazy := known == nil
	var pending []string
	pendingBytes := 0
	for i := range n {
		line := render(i)
		if lazy {
			if used+pendingBytes+len(line)+1 <= budget {
				pending = append(pending, line)
				pendingBytes += len(line) + 1
				b.sb.WriteString(line)
				b.sb.WriteByte('\n')
				kept++
				continue
			}
			for _, p := range pending {
				used += b.tok.Count(p) + 1
			}
			lazy, pending = false, nil
		}
		cost := -1
		if known != nil {
			cost = known(i)
		}
		if cost < 0 {
			cost = b.tok.Count(line)
		}
		cost++
		if used+cost > budget {
			if kept > 0 {
				break
			}
			line = clipTokens(b.tok, line, budget)
			cost = budget
		}
		b.sb.WriteString(line)
		b.sb.WriteByte('\n')
		used += cost
		kept++
	}
	for _, p := range pending { // a section that fit by its byte length is counted once, here
		used += b.tok.Count(p) + 1
	}
	b.sb.WriteByte('\n')
	b.sections = append(b.sections, SectionBudget{Section: title, Budget: budget, Tokens: b.tok.Count(heading) + 1 + used, Items: kept})
	return kept
}

func clipTokens(tok *tokenizer.Tokenizer, s string, budget int) string {
	ends, err := tok.Ends(s)
	if err != nil || len(ends) <= budget || budget <= 0 {
		return s
	}
	return s[:ends[budget-1]] + " …"
}

// maxDescriptionWords caps one entity or relation description in the context text: merged
// descriptions of hub entities run to hundreds of tokens, and a few such lines would otherwise
// crowd out everything else in their section.
const maxDescriptionWords = 80

func shortDescription(s string) string { return clipWords(s, maxDescriptionWords) }

func clipWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ") + " …"
}

func (b *contextBuilder) entities(title string, items []EntityItem, budget int) []EntityItem {
	return b.entitiesClipped(title, items, budget, maxDescriptionWords)
}

// entitiesClipped is entities with descriptions of at most words words.
func (b *contextBuilder) entitiesClipped(title string, items []EntityItem, budget, words int) []EntityItem {
	n := b.section(title, len(items), func(i int) string {
		e := items[i]
		return fmt.Sprintf("[entity:%s] %s (%s, layer %d): %s", e.ID, e.Name, e.Type, e.Layer, clipWords(e.Description, words))
	}, budget)
	return items[:n]
}

func (b *contextBuilder) communities(title string, items []CommunityItem, budget int) []CommunityItem {
	n := b.section(title, len(items), func(i int) string {
		c := items[i]
		return fmt.Sprintf("[community:%s] %s (rating %.1f): %s", c.ID, c.Title, c.Rating, textutil.OneLine(c.Summary))
	}, budget)
	return items[:n]
}

func (b *contextBuilder) paths(title string, items []PathItem, budget int) []PathItem {
	n := b.section(title, len(items), func(i int) string {
		p := items[i]
		return fmt.Sprintf("%s -- %s (weight %.1f): %s", p.Source, p.Target, p.Weight, shortDescription(p.Description))
	}, budget)
	return items[:n]
}

// chunks writes source chunks. A chunk's text is counted from its stored token count, plus its
// header line and one token for the line break between them (BPE may merge across it; one more
// keeps the count an upper bound): tokenizing every candidate chunk again cost more than the
// rest of building the context.
//
// The header labels the chunk [doc:ID chunk:ID], with the pages after the document id when
// they are known ([doc:ID p.3 chunk:ID]), so that an answer copying the label's start cites
// the page (ChunkItem.Cite).
func (b *contextBuilder) chunks(title string, items []ChunkItem, budget int) []ChunkItem {
	header := func(c ChunkItem) string {
		if p := PageLabel(c.Pages); p != "" {
			return fmt.Sprintf("[doc:%s %s chunk:%s] %s", c.DocumentID, p, c.ID, c.Title)
		}
		return fmt.Sprintf("[doc:%s chunk:%s] %s", c.DocumentID, c.ID, c.Title)
	}
	n := b.sectionCost(title, len(items), func(i int) string {
		c := items[i]
		return header(c) + "\n" + strings.TrimSpace(c.Text)
	}, func(i int) int {
		c := items[i]
		if c.tokens <= 0 {
			return -1
		}
		return b.tok.Count(header(c)) + 2 + c.tokens
	}, budget)
	return items[:n]
}
