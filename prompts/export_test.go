package prompts

// Citations returns the distinct sources cited in an answer, in order of first citation.
func Citations(answer string) []Citation {
	var out []Citation
	seen := map[Citation]bool{}
	for _, m := range citationRe.FindAllStringSubmatch(answer, -1) {
		for _, id := range citationPartRe.FindAllStringSubmatch(m[1], -1) {
			if id[1] == "" {
				continue // pages
			}
			c := Citation{Kind: id[1], ID: id[2]}
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}
