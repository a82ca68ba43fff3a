package textutil

import "testing"

func TestFirstSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  One. Two.", "One."},
		{"Is it? Yes.", "Is it?"},
		{"No end here", "No end here"},
		{"First line\nSecond. line", "First line"},
		{"3.5 percent rose. Then fell.", "3.5 percent rose."},
		{"", ""},
	}
	for _, tc := range tests {
		if got := FirstSentence(tc.in); got != tc.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClipAndOneLine(t *testing.T) {
	if got := Clip("Saltmère harbor", 8); got != "Saltmère…" {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip("short", 8); got != "short" {
		t.Errorf("Clip = %q", got)
	}
	if got := OneLine(" a\n\tb  c "); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
}
