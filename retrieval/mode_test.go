package retrieval

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"hi", ModeHi, false},
		{"naive", ModeNaive, false},
		{"local", ModeLocal, false},
		{"global", ModeGlobal, false},
		{"hi_local", ModeHiLocal, false},
		{"hi_global", ModeHiGlobal, false},
		{"hi_bridge", ModeHiBridge, false},
		{"hi_nobridge", ModeHiNoBridge, false},
		{"lca", ModeLCA, false},
		{"", 0, true},
		{"psychic", 0, true},
		{"HI", 0, true},
		{"hi-local", 0, true},
		{" naive", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseMode(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseMode(%q) = %v, want an error", tc.in, got)
				continue
			}
			// The error names the input and lists every valid mode.
			msg := err.Error()
			for _, m := range Modes() {
				if !strings.Contains(msg, m.String()) {
					t.Errorf("ParseMode(%q) error %q does not list %s", tc.in, msg, m)
				}
			}
			if !strings.Contains(msg, `"`+tc.in+`"`) {
				t.Errorf("ParseMode(%q) error %q does not name the input", tc.in, msg)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestModeNamesRoundTrip(t *testing.T) {
	if Mode(0) != DefaultMode || DefaultMode != ModeHi {
		t.Errorf("the zero Mode is %v, want the default, hi", Mode(0))
	}
	seen := map[string]bool{}
	for _, m := range Modes() {
		name := m.String()
		if seen[name] || strings.HasPrefix(name, "Mode(") {
			t.Errorf("mode %d has name %q, repeated or missing", int(m), name)
		}
		seen[name] = true
		b, err := json.Marshal(m)
		if err != nil || string(b) != `"`+name+`"` {
			t.Errorf("json.Marshal(%s) = %s, %v", name, b, err)
		}
		var back Mode
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Errorf("json.Unmarshal(%s) = %v, %v", b, back, err)
		}
	}
	if got := Mode(99).String(); got != "Mode(99)" {
		t.Errorf("Mode(99).String() = %q", got)
	}
	var m Mode
	if err := json.Unmarshal([]byte(`"psychic"`), &m); err == nil {
		t.Error("json.Unmarshal accepted an unknown mode")
	}
}

func TestModeLevels(t *testing.T) {
	tests := []struct {
		mode Mode
		want levels
	}{
		{ModeHi, levels{global: true, bridge: true, local: true}},
		{ModeHiLocal, levels{local: true}},
		{ModeHiGlobal, levels{global: true}},
		{ModeHiBridge, levels{bridge: true}},
		{ModeHiNoBridge, levels{global: true, local: true}},
	}
	for _, tc := range tests {
		if got := tc.mode.levels(); got != tc.want {
			t.Errorf("%s.levels() = %+v, want %+v", tc.mode, got, tc.want)
		}
	}
}
