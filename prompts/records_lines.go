package prompts

import (
	"strings"
)

// The line format of brief extraction answers: entities as "NAME | TYPE" lines under the
// EntitiesHeading, relationships as "SOURCE | TARGET | STRENGTH" lines under the
// RelationshipsHeading, the answer ending with <|COMPLETE|>. A brief answer holds names, types
// and strengths only, so the tuple format's record tags and delimiters would be half of its
// tokens; these lines carry the same records in about half as many.
const (
	EntitiesHeading      = "ENTITIES"
	RelationshipsHeading = "RELATIONSHIPS"
	LineSeparator        = " | "
)

// FormatLines writes records in the line format, ending with the completion marker; a list
// without records is left out, heading included. Descriptions are not written. Fields are cleaned
// the way ParseRecords cleans them, so parsing the output gives the records back without their
// descriptions.
func FormatLines(entities []EntityRecord, relations []RelationshipRecord) string {
	var b strings.Builder
	line := func(fields ...string) {
		for i, f := range fields {
			if i > 0 {
				b.WriteString(LineSeparator)
			}
			b.WriteString(f)
		}
		b.WriteByte('\n')
	}
	if len(entities) > 0 {
		line(EntitiesHeading)
		for _, e := range entities {
			line(lineField(e.Name), strings.ToLower(lineField(e.Type)))
		}
	}
	if len(relations) > 0 {
		line(RelationshipsHeading)
		for _, r := range relations {
			line(lineField(r.Source), lineField(r.Target), formatStrength(r.Strength))
		}
	}
	b.WriteString(CompleteMarker)
	return b.String()
}

// lineField cleans a name for the line format: no separator and no delimiter inside it.
func lineField(s string) string {
	return cleanName(strings.ReplaceAll(defang(s), "|", " "))
}

// fromLines reads an answer in the line format (s without its completion marker) and reports
// whether it held any line with a field separator. A line's fields decide its kind: three or
// more ending in a strength make a relationship, two make an entity (a relationship, without a
// strength, under the relationships heading), and an entity's third field, if any, is its
// description. Prose, headings and table rules are skipped; a last line without a line break in
// an answer that was not complete is counted as cut off.
func (out *Records) fromLines(s string) bool {
	section := ""
	seen := false
	lines := strings.Split(s, "\n")
	for i, raw := range lines {
		t := trimListMarker(strings.TrimSpace(raw))
		if h := heading(t); h != "" {
			section = h
			continue
		}
		if !strings.Contains(t, "|") {
			continue
		}
		seen = true
		fields := splitLine(t)
		if len(fields) == 0 || isHeaderRow(fields) {
			continue
		}
		if i == len(lines)-1 && !out.Complete {
			out.Dropped++ // cut off by the token limit
			continue
		}
		out.addLine(fields, section)
	}
	return seen
}

// addLine adds the record of one line's fields.
func (out *Records) addLine(fields []string, section string) {
	n := len(fields)
	if n >= 3 {
		if _, ok := parseStrength(fields[n-1]); ok {
			if r, ok := relationshipFromFields(fields); ok {
				out.Relationships = append(out.Relationships, r)
				return
			}
			out.Dropped++
			return
		}
	}
	if n >= 2 && section == "relationship" {
		if r, ok := relationshipFromFields(fields); ok {
			out.Relationships = append(out.Relationships, r)
			return
		}
	} else if n >= 2 {
		if e, ok := entityFromFields(fields); ok {
			out.Entities = append(out.Entities, e)
			return
		}
	}
	out.Dropped++
}

// splitLine splits a line at its separators, dropping the empty fields a Markdown table row has
// at its ends. A table's rule ("---|---") gives no fields.
func splitLine(t string) []string {
	parts := strings.Split(t, "|")
	if strings.TrimSpace(parts[0]) == "" {
		parts = parts[1:]
	}
	if n := len(parts); n > 0 && strings.TrimSpace(parts[n-1]) == "" {
		parts = parts[:n-1]
	}
	rule := true
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if strings.Trim(parts[i], "-: ") != "" {
			rule = false
		}
	}
	if rule {
		return nil
	}
	return parts
}

// isHeaderRow reports whether fields repeat the format's own column names ("NAME | TYPE").
func isHeaderRow(fields []string) bool {
	switch strings.ToUpper(fields[0]) {
	case "NAME", "SOURCE", "SOURCE NAME", "ENTITY", "ENTITY NAME":
		return true
	}
	return false
}

// heading returns the section a heading line opens ("ENTITIES", "## Relationships:"), or "".
func heading(t string) string {
	h := strings.ToLower(strings.Trim(t, "#*:_ "))
	switch h {
	case "entities", "entity":
		return "entity"
	case "relationships", "relationship", "relations":
		return "relationship"
	}
	return ""
}

// trimListMarker removes a list bullet or number ("- ", "* ", "• ", "3. ", "3) ") from a line.
func trimListMarker(t string) string {
	for _, p := range []string{"- ", "* ", "• "} {
		if strings.HasPrefix(t, p) {
			return strings.TrimSpace(t[len(p):])
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return strings.TrimSpace(t[i+1:])
	}
	return t
}
