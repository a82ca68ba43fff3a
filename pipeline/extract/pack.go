package extract

import (
	"context"
	"strings"
)

// Packer extracts several short texts in one model call: a corpus of paragraph-sized documents
// otherwise pays the prompt's fixed instructions once per paragraph, more than the paragraph.
type Packer interface {
	Extractor
	// ExtractPack extracts texts together and returns one result per text, in order: what the
	// model found, each record given to the texts that name it.
	ExtractPack(ctx context.Context, texts []string) ([]Result, error)
	// Packs reports whether ExtractPack makes one call of several texts (else it extracts each
	// alone, and packing them only serializes them).
	Packs() bool
}

// Packs groups texts of the given sizes (tokens), in order, into the runs ExtractPack gets: a
// text of more than small alone, consecutive smaller ones together while their sizes add up to
// at most limit. It depends on the sizes alone, so a re-run packs the same texts the same way
// and the response cache answers it.
func Packs(sizes []int, small, limit int) [][]int {
	var out [][]int
	var cur []int
	used := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
			cur, used = nil, 0
		}
	}
	for i, n := range sizes {
		if n > small {
			flush()
			out = append(out, []int{i})
			continue
		}
		if used+n > limit {
			flush()
		}
		cur = append(cur, i)
		used += n
	}
	flush()
	return out
}

// packSeparator parts the texts of a pack in the passage sent: a blank line, as between
// paragraphs, so that sentence splitting never joins two texts.
const packSeparator = "\n\n"

// Packs implements Packer: with model descriptions a record's description could mix what
// several texts say, so each text is then extracted alone.
func (x *LLM) Packs() bool { return !x.opts.ModelDescriptions }

// PackText is the passage a pack of texts is sent as, which a dry run counts.
func PackText(texts []string) string {
	var kept []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, packSeparator)
}

// ExtractPack implements Packer.
func (x *LLM) ExtractPack(ctx context.Context, texts []string) ([]Result, error) {
	out := make([]Result, len(texts))
	if len(texts) == 1 || !x.Packs() {
		for i, t := range texts {
			r, err := x.Extract(ctx, t)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	var kept []string
	at := make([]int, 0, len(texts)) // index in out of each text sent
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			kept = append(kept, strings.TrimSpace(t))
			at = append(at, i)
		}
	}
	all, err := x.records(ctx, PackText(kept))
	if err != nil {
		return nil, err
	}
	split := splitPack(kept, all)
	for k, i := range at {
		out[i] = split[k]
	}
	return out, nil
}

// splitPack gives each text the records of all it names: an entity to every text naming it, a
// relation to every text with a sentence naming both its ends (else every text naming both),
// every one described by the text's sentences. A record no text names (or a relation whose ends
// only different texts name) is dropped and counted with the first text.
func splitPack(texts []string, all Result) []Result {
	out := make([]Result, len(texts))
	matchers := make([]nameMatcher, len(texts))
	short := shortNames(recordNames(all))
	for i, t := range texts {
		matchers[i] = nameMatcher{sentences: lowered(Sentences(t)), shortened: short}
	}
	dropped := all.Dropped
	for _, e := range all.Entities {
		found := false
		for i, m := range matchers {
			if len(m.naming(e.Name)) > 0 {
				out[i].Entities = append(out[i].Entities, e)
				found = true
			}
		}
		if !found {
			dropped++
		}
	}
	for _, r := range all.Relations {
		// The texts with a sentence naming both ends, else those naming both apart.
		var together, apart []int
		for i, m := range matchers {
			src, tgt := m.naming(r.Source), m.naming(r.Target)
			switch {
			case len(intersect(src, tgt)) > 0:
				together = append(together, i)
			case len(src) > 0 && len(tgt) > 0:
				apart = append(apart, i)
			}
		}
		if len(together) == 0 {
			together = apart
		}
		for _, i := range together {
			out[i].Relations = append(out[i].Relations, r)
		}
		if len(together) == 0 {
			dropped++
		}
	}
	for i := range out {
		describeFromPassage(texts[i], &out[i])
	}
	if len(out) > 0 {
		out[0].Dropped += dropped
	}
	return out
}
