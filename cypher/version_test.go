package cypher

import (
	"strings"
	"testing"
)

func TestCheckComponents(t *testing.T) {
	kernel := func(v, edition string) []map[string]any {
		return []map[string]any{{"name": "Neo4j Kernel", "versions": []any{v}, "edition": edition}}
	}
	for _, tc := range []struct {
		name    string
		rows    []map[string]any
		want    string
		wantErr string
	}{
		{"5.26 LTS", kernel("5.26.0", "community"), "5.26.0 community", ""},
		{"minimum", kernel("5.23.0", "enterprise"), "5.23.0 enterprise", ""},
		{"calendar version", kernel("2025.01.0", "enterprise"), "2025.01.0 enterprise", ""},
		{"aura suffix", kernel("2025.10.1-aura", "enterprise"), "2025.10.1-aura enterprise", ""},
		{"vector indexes but no scoped CALL", kernel("5.20.0", "community"), "", "too old"},
		{"no vector indexes", kernel("5.12.0", "community"), "", "too old"},
		{"4.4", kernel("4.4.30", "enterprise"), "", "too old"},
		{"garbage version", kernel("latest", "community"), "", "unrecognized"},
		{"no kernel", []map[string]any{{"name": "Something", "versions": []any{"1.0"}}}, "", "no Neo4j Kernel"},
		{"kernel without version", []map[string]any{{"name": "Neo4j Kernel", "versions": []any{}}}, "", "no version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := checkComponents(tc.rows)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("checkComponents = %q, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("checkComponents = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
