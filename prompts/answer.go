package prompts

import (
	"regexp"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// The parts of a citation: source ids (kind:id), the pages of the source before them
// (p.3, pp.3-4, as the context labels chunks of paged documents), and what separates them.
const (
	citeID   = `[a-z]+:[^\]\s,;]+`
	citePage = `pp?\.\s?\d+(?:[-–]\d+)?`
	citeSep  = `[,;]?\s*`
)

// citationRe matches a bracketed source id such as [doc:abc-1] or [chunk:9f2c]; several ids may
// share brackets: [doc:a, doc:b] or [doc:a; chunk:b]. An id may be followed by the pages it
// cites: [doc:a p.3], [doc:a pp.3-4, doc:b]. A bracket holds at least one id.
var citationRe = regexp.MustCompile(`\[((?:` + citePage + citeSep + `)*` + citeID + citeSep + `(?:(?:` + citeID + `|` + citePage + `)` + citeSep + `)*)\]`)

// citationPartRe matches the ids (groups 1 and 2) and pages (group 3) of a citation in order.
var citationPartRe = regexp.MustCompile(`([a-z]+):([^\]\s,;]+)|(` + citePage + `)`)

// citationStartRe matches what a citation (citationRe) may begin with: its bracket and the ids
// and pages so far, the last one possibly cut anywhere.
var citationStartRe = regexp.MustCompile(`^\[(?:(?:` + citeID + `|` + citePage + `)` + citeSep + `)*` +
	`(?:[a-z]+(?::[^\]\s,;]*)?|pp?\.\s?(?:\d+[-–]?\d*)?)?$`)

// OpenCitation returns the index of the first bracket in s that is not closed and may yet become
// a citation once more text follows, or -1. A stream of an answer holds back the text from there:
// FilterCitations may still remove it, with the space before it.
func OpenCitation(s string) int {
	from := strings.LastIndexByte(s, ']') + 1 // a bracket before the last ']' is closed
	for i := from; i < len(s); i++ {
		if s[i] == '[' && citationStartRe.MatchString(s[i:]) {
			return i
		}
	}
	return -1
}

// Citation is a source cited in an answer.
type Citation struct {
	Kind string // "doc", "chunk", "report", …
	ID   string
}

// CleanAnswer removes reasoning blocks from an answer and trims it.
func CleanAnswer(answer string) string { return strings.TrimSpace(textutil.StripThinking(answer)) }

// FilterCitations removes from answer the cited ids for which keep is false (typically ids that
// do not occur in the context: the model made them up), with the pages cited after them. A
// bracket left empty is removed with the space before it. It returns the new answer, the kept
// citations and the removed ones, each distinct and in order of first citation.
func FilterCitations(answer string, keep func(Citation) bool) (string, []Citation, []Citation) {
	var kept, removed []Citation
	seenK, seenR := map[Citation]bool{}, map[Citation]bool{}
	out := citationRe.ReplaceAllStringFunc(answer, func(bracket string) string {
		var ids []string
		idKept := true // whether the id that the pages which follow belong to is kept
		for _, id := range citationPartRe.FindAllStringSubmatch(bracket, -1) {
			if id[1] == "" {
				if idKept && len(ids) > 0 {
					ids[len(ids)-1] += " " + id[3]
				}
				continue
			}
			c := Citation{Kind: id[1], ID: id[2]}
			idKept = keep(c)
			if idKept {
				ids = append(ids, id[0])
				if !seenK[c] {
					seenK[c] = true
					kept = append(kept, c)
				}
			} else if !seenR[c] {
				seenR[c] = true
				removed = append(removed, c)
			}
		}
		if len(ids) == 0 {
			return "\x00" // marks an emptied bracket
		}
		return "[" + strings.Join(ids, ", ") + "]"
	})
	if strings.Contains(out, "\x00") {
		out = strings.ReplaceAll(strings.ReplaceAll(out, " \x00", ""), "\x00", "")
	}
	return out, kept, removed
}
