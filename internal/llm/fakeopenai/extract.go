package fakeopenai

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stratarag/strata/prompts"
)

// The fake "model" reads text the way a cheap heuristic would: sentences, capitalized spans as
// entities, and entities sharing a sentence as related. It is deterministic, so two extraction
// strategies over the same text can be compared on the same graph.

type sentence struct {
	text  string
	spans []span
}

type span struct {
	name    string
	initial bool // the span starts its sentence
}

var sentenceEnd = regexp.MustCompile(`[.!?]["')\]]*(\s+|$)|\n+`)

func sentences(text string) []sentence {
	var out []sentence
	for _, raw := range splitKeep(text) {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(raw), "#*->| "))
		if t == "" {
			continue
		}
		out = append(out, sentence{text: t, spans: spansOf(t)})
	}
	return out
}

func splitKeep(text string) []string {
	var out []string
	last := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
		out = append(out, text[last:loc[1]])
		last = loc[1]
	}
	if last < len(text) {
		out = append(out, text[last:])
	}
	return out
}

var connectors = map[string]bool{"of": true, "the": true, "de": true, "&": true, "von": true}

var commonInitials = map[string]bool{
	"The": true, "A": true, "An": true, "In": true, "On": true, "At": true, "It": true, "He": true,
	"She": true, "They": true, "We": true, "I": true, "This": true, "That": true, "These": true,
	"Those": true, "Every": true, "Within": true, "Today": true, "Her": true, "His": true, "Its": true,
	"Members": true, "When": true, "After": true, "Before": true, "But": true, "And": true, "Or": true,
	"No": true, "Some": true, "Many": true, "Most": true, "For": true, "From": true, "By": true,
	"With": true, "As": true, "If": true, "There": true, "Here": true, "What": true, "Who": true,
}

func isCap(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-' || r == '&' || r == '’')
	})
}

// spansOf returns runs of capitalized words ("Saltmere Cartographers' Guild", "Treaty of Vell").
func spansOf(s string) []span {
	ws := words(s)
	var out []span
	for i := 0; i < len(ws); {
		if !isCap(ws[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(ws) {
			if isCap(ws[j]) {
				j++
				continue
			}
			if connectors[ws[j]] && j+1 < len(ws) && isCap(ws[j+1]) {
				j += 2
				continue
			}
			break
		}
		part := ws[i:j]
		initial := i == 0
		if len(part) > 1 && commonInitials[part[0]] {
			part, initial = part[1:], false
		}
		name := strings.TrimRight(strings.Join(part, " "), "'’-")
		name = strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s")
		if name != "" && !(len(part) == 1 && (commonInitials[name] || utf8.RuneCountInString(name) < 3)) {
			out = append(out, span{name: name, initial: initial})
		}
		i = j
	}
	return out
}

// entitySets splits the spans of text into what a first pass finds (multi-word names and names
// seen at least twice) and what only a second look finds (single words seen once).
func entitySets(ss []sentence) (first, missed []string) {
	count := map[string]int{}
	var order []string
	for _, s := range ss {
		for _, sp := range s.spans {
			if count[sp.name] == 0 {
				order = append(order, sp.name)
			}
			count[sp.name]++
		}
	}
	for _, n := range order {
		if strings.Contains(n, " ") || count[n] >= 2 {
			first = append(first, n)
		} else {
			missed = append(missed, n)
		}
	}
	return first, missed
}

var (
	orgHead   = regexp.MustCompile(`(?i)^(guild|company|council|university|trust|society|bank|navy|office|board|league|house|school|court|church)$`)
	placeHead = regexp.MustCompile(`(?i)^(island|islands|archipelago|port|city|sea|bay|quay|harbor|harbour|street|river|lighthouse|coast|strait|town|market)$`)
	eventWord = regexp.MustCompile(`(?i)(treaty|dispute|war|battle|festival|fever|storm|crisis)`)
)

func typeOf(name string) string {
	last := name[strings.LastIndexByte(name, ' ')+1:]
	switch {
	case orgHead.MatchString(last):
		return "organization"
	case placeHead.MatchString(last):
		return "location"
	case eventWord.MatchString(name):
		return "event"
	case strings.HasPrefix(name, "Port ") || strings.HasPrefix(name, "Mount "):
		return "location"
	case strings.Count(name, " ") == 1:
		return "person"
	}
	return "organization"
}

const maxDescWords = 40

func clip(s string, n int) string {
	ws := strings.Fields(s)
	if len(ws) > n {
		ws = append(ws[:n], "…")
	}
	return strings.Join(ws, " ")
}

func describe(name string, ss []sentence) string {
	for _, s := range ss {
		for _, sp := range s.spans {
			if sp.name == name {
				return clip(s.text, maxDescWords)
			}
		}
	}
	return name + " is mentioned in the passage."
}

func entityRecords(names []string, ss []sentence) []prompts.EntityRecord {
	out := make([]prompts.EntityRecord, 0, len(names))
	for _, n := range names {
		out = append(out, prompts.EntityRecord{Name: n, Type: typeOf(n), Description: describe(n, ss)})
	}
	return out
}

// pairWindow limits pairs in name-dense sentences to entities close in order.
const pairWindow = 4

// relations joins entities of the set that share a sentence, in order of first co-occurrence;
// strength grows with the number of shared sentences.
func relations(ss []sentence, set map[string]bool) []prompts.RelationshipRecord {
	type acc struct {
		rec   prompts.RelationshipRecord
		count int
	}
	byPair := map[[2]string]*acc{}
	var order [][2]string
	for _, s := range ss {
		var in []string
		seen := map[string]bool{}
		for _, sp := range s.spans {
			if set[sp.name] && !seen[sp.name] {
				seen[sp.name] = true
				in = append(in, sp.name)
			}
		}
		for i := range in {
			for j := i + 1; j < len(in) && j <= i+pairWindow; j++ {
				k := [2]string{in[i], in[j]}
				if a := byPair[k]; a != nil {
					a.count++
					continue
				}
				byPair[k] = &acc{rec: prompts.RelationshipRecord{
					Source: in[i], Target: in[j], Description: clip(s.text, maxDescWords),
				}, count: 1}
				order = append(order, k)
			}
		}
	}
	out := make([]prompts.RelationshipRecord, 0, len(order))
	for _, k := range order {
		a := byPair[k]
		a.rec.Strength = float64(min(10, 3+2*a.count))
		out = append(out, a.rec)
	}
	return out
}

func toSet(names ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, ns := range names {
		for _, n := range ns {
			m[n] = true
		}
	}
	return m
}

// extractGraph is the first-pass answer for passage: entities and their relations.
func extractGraph(passage string) ([]prompts.EntityRecord, []prompts.RelationshipRecord) {
	ss := sentences(passage)
	first, _ := entitySets(ss)
	return entityRecords(first, ss), relations(ss, toSet(first))
}

// relationsAmong is the relation-pass answer: relations among the listed entities.
func relationsAmong(passage string, listed []string) []prompts.RelationshipRecord {
	return relations(sentences(passage), toSet(listed))
}

var listedRe = regexp.MustCompile(`(?m)^Entities:\s*(.*)$`)

// listedEntities reads "Entities: A (type); B (type)" from a relation-pass prompt.
func listedEntities(user string) []string {
	m := listedRe.FindStringSubmatch(user)
	if m == nil {
		return nil
	}
	var out []string
	for _, part := range strings.Split(m[1], "; ") {
		if i := strings.LastIndex(part, " ("); i >= 0 {
			part = part[:i]
		}
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

type gleaned struct {
	text    string
	records int
}

// What the fake reads in an extraction request, as a model would: the task titles, the
// gleaning follow-up's heading and the data fence of internal/llmtask/extraction (which calls
// internal/llm, whose tests use this package, so it cannot be imported here; TestTaskNames
// checks the copies).
const (
	extractCombinedTask  = "Entity and relationship extraction"
	extractEntitiesTask  = "Entity extraction"
	extractRelationsTask = "Relationship extraction"
	extractFollowUp      = "Follow-up: missed records"
	extractLabel         = "PASSAGE"
)

// gleanAnswer answers the "missed records" follow-up with what the first pass left out, written
// by format.
func gleanAnswer(task, passage string, format func([]prompts.EntityRecord, []prompts.RelationshipRecord) string) gleaned {
	ss := sentences(passage)
	first, missed := entitySets(ss)
	switch task {
	case extractEntitiesTask:
		ents := entityRecords(missed, ss)
		return gleaned{format(ents, nil), len(ents)}
	case extractCombinedTask:
		ents := entityRecords(missed, ss)
		known := map[[2]string]bool{}
		for _, r := range relations(ss, toSet(first)) {
			known[[2]string{r.Source, r.Target}] = true
		}
		var rels []prompts.RelationshipRecord
		for _, r := range relations(ss, toSet(first, missed)) {
			if !known[[2]string{r.Source, r.Target}] {
				rels = append(rels, r)
			}
		}
		return gleaned{format(ents, rels), len(ents) + len(rels)}
	}
	return gleaned{prompts.CompleteMarker, 0}
}

// mangle breaks an answer the way weak models do. Tuple and line answers get prose and a code
// fence around them, every third record loses its fields, and the last record is cut in half
// with no completion marker; it returns how many records the parser must drop. JSON answers are
// fenced and cut; other answers gain a reasoning block.
func mangle(answer string, records int) (string, int) {
	trimmed := strings.TrimSpace(answer)
	switch {
	case records > 0 && !strings.Contains(trimmed, prompts.FieldDelimiter) && !strings.HasPrefix(trimmed, "{"):
		return mangleLines(trimmed)
	case records > 0:
		lines := strings.Split(strings.TrimSuffix(trimmed, prompts.CompleteMarker), "\n")
		var recs []string
		for _, l := range lines {
			if strings.TrimSpace(l) != "" {
				recs = append(recs, l)
			}
		}
		broken := 0
		var b strings.Builder
		b.WriteString("Sure! Here are the records I found:\n```\n")
		for i, r := range recs {
			switch {
			case i == len(recs)-1:
				// Cut past the record's first field so the parser sees a record, not noise.
				cut := []rune(r)
				n := max(len(cut)/2, utf8.RuneCountInString(r[:strings.Index(r, prompts.FieldDelimiter)])+5)
				b.WriteString(strings.ReplaceAll(string(cut[:min(n, len(cut)-1)]), ")", ""))
				broken++
			case i%3 == 1:
				fields := strings.SplitN(r, prompts.FieldDelimiter, 3)
				b.WriteString(fields[0] + prompts.FieldDelimiter + fields[1] + ")##\n")
				broken++
			default:
				b.WriteString(r + "\n")
			}
		}
		return b.String(), broken
	case strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "["):
		cut := []rune(trimmed)
		return "Here is the JSON you asked for:\n```json\n" + string(cut[:len(cut)*7/10]), 0
	case trimmed == prompts.CompleteMarker:
		return "I could not find anything else in the passage.", 1
	}
	return "<think>Let me work through the context first.</think>\n" + answer, 0
}

// mangleLines is mangle for answers in the line format (prompts.FormatLines): headings stay,
// every third record line keeps only its first field, and the last is cut in half.
func mangleLines(answer string) (string, int) {
	var recs []string
	for _, l := range strings.Split(strings.TrimSuffix(answer, prompts.CompleteMarker), "\n") {
		if strings.TrimSpace(l) != "" {
			recs = append(recs, l)
		}
	}
	last := -1
	for i, l := range recs {
		if strings.Contains(l, "|") {
			last = i
		}
	}
	broken, k := 0, 0
	var b strings.Builder
	b.WriteString("Sure! Here are the lists:\n```\n")
	for i, r := range recs {
		switch {
		case !strings.Contains(r, "|"):
			b.WriteString(r + "\n")
		case i == last:
			at := min(strings.Index(r, "|")+2, len(r)) // past the first field: a record, not noise
			b.WriteString(r[:at] + r[at:][:len(r[at:])/2])
			broken++
		case k%3 == 1:
			b.WriteString(r[:strings.Index(r, "|")] + "|\n")
			broken++
		default:
			b.WriteString(r + "\n")
		}
		if strings.Contains(r, "|") {
			k++
		}
	}
	return b.String(), broken
}

// What the fake reads in a summary entities request, as a model would: the task title and the
// data fence of internal/llmtask/summaryentities (which calls internal/llm, whose tests use this
// package, so it cannot be imported here; TestTaskNames checks the copies).
const (
	summaryEntitiesTask  = "Summary entities"
	summaryEntitiesLabel = "CLUSTER"
)

// summaryEntities abstracts a cluster listing into one theme linked to every member.
func summaryEntities(text string) ([]prompts.EntityRecord, []prompts.RelationshipRecord) {
	var members []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(line, "-*• "))
		if line == "" {
			continue
		}
		if i := strings.IndexAny(line, ":(|"); i > 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			members = append(members, line)
		}
	}
	if len(members) == 0 {
		return nil, nil
	}
	theme := fmt.Sprintf("Theme of %s", members[0])
	ents := []prompts.EntityRecord{{
		Name: theme, Type: "theme",
		Description: fmt.Sprintf("A theme grouping %d related entities, led by %s.", len(members), members[0]),
	}}
	var rels []prompts.RelationshipRecord
	for _, m := range members {
		if m == theme {
			continue
		}
		rels = append(rels, prompts.RelationshipRecord{
			Source: m, Target: theme, Description: m + " belongs to " + theme + ".", Strength: 5,
		})
	}
	return ents, rels
}
