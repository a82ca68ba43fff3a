package prompts

import (
	"strconv"
	"strings"
)

// The tuple format of extraction answers (docs/ARCHITECTURE.md#ingestion-stages).
const (
	FieldDelimiter  = "<|>"
	RecordDelimiter = "##"
	CompleteMarker  = "<|COMPLETE|>"
)

// FormatRecords writes records in the tuple format, ending with the completion marker. Fields
// are cleaned the way ParseRecords cleans them, so parsing the output gives the records back;
// an empty description is left out.
func FormatRecords(entities []EntityRecord, relations []RelationshipRecord) string {
	var b strings.Builder
	for _, e := range entities {
		b.WriteString(`("entity"`)
		fields := []string{cleanName(defang(e.Name)), strings.ToLower(cleanName(defang(e.Type)))}
		if d := CleanText(defang(e.Description)); d != "" {
			fields = append(fields, d)
		}
		for _, f := range fields {
			b.WriteString(FieldDelimiter)
			b.WriteString(f)
		}
		b.WriteString(")" + RecordDelimiter + "\n")
	}
	for _, r := range relations {
		b.WriteString(`("relationship"`)
		fields := []string{cleanName(defang(r.Source)), cleanName(defang(r.Target))}
		if d := CleanText(defang(r.Description)); d != "" {
			fields = append(fields, d)
		}
		for _, f := range fields {
			b.WriteString(FieldDelimiter)
			b.WriteString(f)
		}
		b.WriteString(FieldDelimiter)
		b.WriteString(formatStrength(r.Strength))
		b.WriteString(")" + RecordDelimiter + "\n")
	}
	b.WriteString(CompleteMarker)
	return b.String()
}

// defang removes delimiter sequences from a field so it cannot end its record early.
func defang(s string) string {
	return strings.NewReplacer(FieldDelimiter, " ", RecordDelimiter, "#", CompleteMarker, " ").Replace(s)
}

func formatStrength(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
