package prompts

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// EntityRecord is one ("entity"<|>NAME<|>TYPE<|>DESCRIPTION) record.
type EntityRecord struct {
	Name        string
	Type        string // lower-cased; may be empty when the model gave none
	Description string
}

// RelationshipRecord is one ("relationship"<|>SRC<|>TGT<|>DESCRIPTION<|>STRENGTH) record.
type RelationshipRecord struct {
	Source      string
	Target      string
	Description string
	Strength    float64 // in (0, 10]; DefaultStrength when the model gave none
}

// DefaultStrength is the strength of a relationship whose strength field is missing or unusable.
const DefaultStrength = 1.0

// maxNameRunes bounds entity names: anything longer is a model rambling, not a name.
const maxNameRunes = 200

// Records is what ParseRecords found in one model answer.
type Records struct {
	Entities      []EntityRecord
	Relationships []RelationshipRecord
	// Dropped counts malformed records that were skipped: unknown record kinds, missing fields, a
	// record cut off by a truncated answer, or a non-empty answer with no records at all.
	Dropped int
	// Complete reports whether the answer carried the <|COMPLETE|> marker. Its absence usually
	// means the answer was cut off by the token limit.
	Complete bool
}

const quoteChars = "\"'`\u201c\u201d\u2018\u2019"

// startRes find the beginning of a record: an opening parenthesis (or a line start, or a record
// delimiter, for models that drop the parenthesis), an optionally quoted record kind, and the
// field delimiter. The second expression is a fallback for models that write a bare "|".
var startRes = []*regexp.Regexp{
	regexp.MustCompile(`(\(|(?m:^)|##)[ \t]*[` + quoteChars + `]?[ \t]*([A-Za-z_]+)[ \t]*[` + quoteChars + `]?[ \t]*<\|>`),
	regexp.MustCompile(`(\()[ \t]*[` + quoteChars + `]?[ \t]*(entity|relationship|relation)[ \t]*[` + quoteChars + `]?[ \t]*\|`),
}

// closeRe finds candidates for the parenthesis that closes a record: one at the end of a line or
// before a record delimiter.
var closeRe = regexp.MustCompile(`\)[ \t]*[,;]?[ \t]*(?:##|\r?\n|$)`)

// closingParen returns the offset in body of the parenthesis that closes the record, or -1. Only
// the last field is searched, and a parenthesis that closes one opened inside that field
// ("(born 1815)") does not count.
func closingParen(body, delim string) int {
	tail := strings.LastIndex(body, delim)
	if tail < 0 {
		tail = 0
	} else {
		tail += len(delim)
	}
	depth, pos := 0, tail
	for _, loc := range closeRe.FindAllStringIndex(body[tail:], -1) {
		at := tail + loc[0]
		seg := body[pos:at]
		depth += strings.Count(seg, "(") - strings.Count(seg, ")")
		if depth <= 0 {
			return at
		}
		depth-- // this ")" closes one opened inside the record
		pos = at + 1
	}
	return -1
}

// strengthRe accepts "8", "8.5", "7/10" and "strength: 6".
var strengthRe = regexp.MustCompile(`^(?i:(?:strength|weight|score)[ \t]*[:=]?[ \t]*)?([+-]?[0-9]+(?:\.[0-9]+)?)[ \t]*(?:/[ \t]*10)?$`)

// ParseRecords parses a model answer in the tuple format: ("entity"<|>NAME<|>TYPE<|>DESCRIPTION)
// and ("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH) records separated by ## and
// ended by <|COMPLETE|>. It never fails: it takes every well-formed record, skips prose, code
// fences and reasoning blocks around them, and counts what it had to drop. Answers in JSON
// ({"entities":[…],"relationships":[…]}) are accepted too, since some models fall back to JSON
// whatever they are told, and so are answers in the line format of brief prompts (FormatLines).
func ParseRecords(answer string) Records {
	var out Records
	s := textutil.StripThinking(answer)
	if i := indexFold(s, CompleteMarker); i >= 0 {
		out.Complete = true
		s = s[:i]
	}
	for k, re := range startRes {
		delim := FieldDelimiter
		if k == 1 {
			delim = "|"
		}
		starts := re.FindAllStringSubmatchIndex(s, -1)
		starts = keepRecordStarts(s, starts)
		if len(starts) == 0 {
			continue
		}
		for i, m := range starts {
			end := len(s)
			if i+1 < len(starts) {
				end = starts[i+1][0]
			}
			last := i == len(starts)-1
			paren := s[m[2]:m[3]] == "("
			out.add(strings.ToLower(s[m[4]:m[5]]), s[m[1]:end], delim, paren, last)
		}
		return out
	}
	if out.fromJSON(s) {
		return out
	}
	if out.fromLines(s) {
		return out
	}
	if strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`")) != "" {
		out.Dropped++
	}
	return out
}

// keepRecordStarts drops matches that are not record starts. Known record kinds always count.
// An unknown kind counts only with a parenthesis at a record boundary (line start, after "##" or
// after a closing parenthesis), so that "(word<|>" inside a field does not split its record.
func keepRecordStarts(s string, starts [][]int) [][]int {
	kept := starts[:0]
	for _, m := range starts {
		if recordKind(strings.ToLower(s[m[4]:m[5]])) != "" {
			kept = append(kept, m)
			continue
		}
		paren := m[2] >= 0 && m[3] > m[2] && s[m[2]:m[3]] == "("
		if paren && atBoundary(s[:m[0]]) {
			kept = append(kept, m)
		}
	}
	return kept
}

// atBoundary reports whether text before ends where a new record may begin.
func atBoundary(before string) bool {
	before = strings.TrimRight(before, " \t")
	if before == "" {
		return true
	}
	switch before[len(before)-1] {
	case '\n', '#', ')', '`':
		return true
	}
	return false
}

func recordKind(tag string) string {
	switch tag {
	case "entity", "entities", "node":
		return "entity"
	case "relationship", "relationships", "relation", "relations", "edge":
		return "relationship"
	}
	return ""
}

// add parses the body of one record (everything after its opening "(kind<|>"). A record opened
// with a parenthesis ends at the first unbalanced ")" that ends a line or precedes "##"; one
// opened without ends with its line.
func (out *Records) add(tag, body, delim string, paren, last bool) {
	closed := false
	if paren {
		if end := closingParen(body, delim); end >= 0 {
			closed = true
			if brokenRecord(body[end+1:]) {
				out.Dropped++ // a record between two records that could not be read
			}
			body = body[:end]
		}
	} else if nl := strings.IndexAny(body, "\r\n"); nl >= 0 {
		closed = true
		body = body[:nl]
	}
	body = strings.TrimRightFunc(body, isSpace)
	for strings.HasSuffix(body, RecordDelimiter) {
		body = strings.TrimRightFunc(strings.TrimSuffix(body, RecordDelimiter), isSpace)
	}
	if !closed && last && !out.Complete {
		out.Dropped++ // cut off by the token limit
		return
	}
	fields := strings.Split(body, delim)
	switch recordKind(tag) {
	case "entity":
		if e, ok := entityFromFields(fields); ok {
			out.Entities = append(out.Entities, e)
			return
		}
	case "relationship":
		if r, ok := relationshipFromFields(fields); ok {
			out.Relationships = append(out.Relationships, r)
			return
		}
	}
	out.Dropped++
}

func entityFromFields(f []string) (EntityRecord, bool) {
	if len(f) < 2 {
		return EntityRecord{}, false
	}
	e := EntityRecord{
		Name:        cleanName(f[0]),
		Type:        strings.ToLower(cleanName(f[1])),
		Description: CleanText(strings.Join(f[2:], " ")),
	}
	if !validName(e.Name) {
		return EntityRecord{}, false
	}
	return e, true
}

func relationshipFromFields(f []string) (RelationshipRecord, bool) {
	if len(f) < 2 {
		return RelationshipRecord{}, false
	}
	r := RelationshipRecord{Source: cleanName(f[0]), Target: cleanName(f[1]), Strength: DefaultStrength}
	if !validName(r.Source) || !validName(r.Target) || strings.EqualFold(r.Source, r.Target) {
		return RelationshipRecord{}, false
	}
	rest := f[2:]
	if n := len(rest); n > 0 {
		if v, ok := parseStrength(rest[n-1]); ok {
			r.Strength = v
			rest = rest[:n-1]
		}
	}
	r.Description = CleanText(strings.Join(rest, " "))
	return r, true
}

// parseStrength reads a strength such as "8", "8.5", "7/10" or "strength: 6".
func parseStrength(s string) (float64, bool) {
	m := strengthRe.FindStringSubmatch(CleanText(s))
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	switch {
	case v <= 0:
		v = DefaultStrength
	case v > 10:
		v = 10
	}
	return v, true
}

func validName(s string) bool {
	if s == "" || strings.Contains(s, FieldDelimiter) {
		return false
	}
	n := 0
	for range s {
		n++
	}
	return n <= maxNameRunes
}

// CleanText collapses white space (line breaks included), removes invalid UTF-8, shortens "##"
// (the record delimiter) and removes quotes around the whole text. It is idempotent.
func CleanText(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	// After the parentheses: dropping "(" from "#(#" makes "##".
	s = dropUnmatchedOpens(s)
	for strings.Contains(s, RecordDelimiter) {
		s = strings.ReplaceAll(s, RecordDelimiter, "#")
	}
	for {
		r := []rune(s)
		if len(r) < 2 || !isQuote(r[0]) || !isQuote(r[len(r)-1]) {
			return s
		}
		inner := string(r[1 : len(r)-1])
		if strings.ContainsAny(inner, quoteChars) {
			return s // "a" and "b": the quotes belong to the text
		}
		s = strings.TrimSpace(inner)
	}
}

// cleanName is cleanText plus the removal of stray quotes, markdown emphasis and list bullets
// around a name. It is idempotent.
func cleanName(s string) string {
	s = CleanText(s)
	for {
		t := strings.TrimSpace(strings.Trim(s, quoteChars+"*-•"))
		if t == s {
			return s
		}
		s = t
	}
}

// brokenRecord reports whether text left between the end of one record and the start of the
// next looks like a record the start expressions could not recognize, such as
// ("entity"|NAME|…) among well-formed records.
func brokenRecord(rest string) bool {
	rest = strings.TrimSpace(rest)
	return strings.Contains(rest, "(") && strings.Contains(rest, "|")
}

// dropUnmatchedOpens removes "(" characters that are never closed. They come from cut-off text,
// and a field ending in "(word" would read as the start of a record once written out again.
func dropUnmatchedOpens(s string) string {
	if !strings.Contains(s, "(") {
		return s
	}
	var open []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			open = append(open, i)
		case ')':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return s
	}
	b := []byte(s)
	for k := len(open) - 1; k >= 0; k-- {
		b = append(b[:open[k]], b[open[k]+1:]...)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

func isQuote(r rune) bool { return strings.ContainsRune(quoteChars, r) }

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// indexFold is strings.Index ignoring ASCII case. Only ASCII is folded so that byte offsets
// into s stay valid.
func indexFold(s, sub string) int {
	return strings.Index(asciiUpper(s), asciiUpper(sub))
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
