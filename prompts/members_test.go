package prompts

import "testing"

func TestMemberLines(t *testing.T) {
	type member struct{ name, typ, desc string }
	members := []member{
		{"Ilsa Marrow", "person", "Founded the guild.\n  Invented the astrolabe."},
		{"Saltmere", "location", "A port."},
		{"Vell", "location", "An island."},
	}
	fields := func(m member) (string, string, string) { return m.name, m.typ, m.desc }
	words := func(s string) int { return len(s) } // one token per byte, for the test
	for _, tc := range []struct {
		name   string
		budget int
		want   string
	}{
		{"all fit", 1000, "- Ilsa Marrow (person): Founded the guild. Invented the astrolabe.\n- Saltmere (location): A port.\n- Vell (location): An island.\n"},
		{"cut at the budget", 100, "- Ilsa Marrow (person): Founded the guild. Invented the astrolabe.\n- Saltmere (location): A port.\n"},
		{"the first always", 1, "- Ilsa Marrow (person): Founded the guild. Invented the astrolabe.\n"},
	} {
		if got := MemberLines(words, tc.budget, members, fields); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
