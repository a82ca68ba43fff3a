package retrieval

import (
	"strings"

	"github.com/stratarag/strata/internal/tokenizer"
)

// excerptTokens bounds the excerpt of a chunk below hi's first ones: about five sentences,
// enough for the fact a lower-ranked document adds to a multi-hop answer.
const excerptTokens = 150

// excerpt returns the passage of text that best matches the question words (words, lower-cased,
// function words left out) within limit tokens, and its token count: the sentence holding the
// most distinct question words (the first on a tie, the opening one when none holds any),
// widened by the sentences after it, then before it, while they fit. A passage that starts or
// ends inside text is marked with "…". Text within limit tokens is returned whole; known is its
// token count when the caller has it (a chunk's stored count), else 0.
func excerpt(tok *tokenizer.Tokenizer, text string, known int, words map[string]bool, limit int) (string, int) {
	text = strings.TrimSpace(text)
	if known <= 0 && len(text) > limit { // a token is at least a byte: only a short text needs counting
		known = limit + 1
	}
	if known <= limit {
		n := tok.Count(text)
		if n <= limit {
			return text, n
		}
	}
	sents := sentences(text)
	best, bestScore := 0, 0
	for i, s := range sents {
		seen := map[string]bool{}
		eachWord(text[s[0]:s[1]], nil, func(w []byte) {
			if words[string(w)] {
				seen[string(w)] = true
			}
		})
		if len(seen) > bestScore {
			best, bestScore = i, len(seen)
		}
	}
	costs := make([]int, len(sents)) // counted once each, when first needed
	cost := func(i int) int {
		if costs[i] == 0 {
			costs[i] = tok.Count(text[sents[i][0]:sents[i][1]]) + 1
		}
		return costs[i]
	}
	lo, hi := best, best+1
	used := cost(best)
	for grew := true; grew; {
		grew = false
		if hi < len(sents) && used+cost(hi) <= limit {
			used += cost(hi)
			hi, grew = hi+1, true
		}
		if lo > 0 && used+cost(lo-1) <= limit {
			used += cost(lo - 1)
			lo, grew = lo-1, true
		}
	}
	out := strings.TrimSpace(text[sents[lo][0]:sents[hi-1][1]])
	if used > limit { // one sentence longer than the excerpt
		out = clipTokens(tok, out, limit)
		used = tok.Count(out)
	}
	if lo > 0 {
		out = "… " + out
		used++
	}
	if hi < len(sents) && !strings.HasSuffix(out, "…") {
		out += " …"
		used++
	}
	return out, used
}

// sentences splits text into sentences, as byte ranges: at line breaks and after ".", "!" or "?"
// followed by a space.
func sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := c == '\n' || ((c == '.' || c == '!' || c == '?') && i+1 < len(text) && text[i+1] == ' ')
		if !end {
			continue
		}
		if strings.TrimSpace(text[start:i+1]) != "" {
			out = append(out, [2]int{start, i + 1})
		}
		start = i + 1
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// questionWords returns the words of the question other than function words, as eachWord reads
// them.
func questionWords(question string) map[string]bool {
	words := map[string]bool{}
	for _, w := range wordsOf(question) {
		if !functionWords[w] {
			words[w] = true
		}
	}
	return words
}
