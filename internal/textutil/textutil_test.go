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

func TestStripThinking(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no reasoning", "Ilsa Marrow.", "Ilsa Marrow."},
		{"think block", "<think>who?</think>\nIlsa Marrow.", "\nIlsa Marrow."},
		{"any case, other tags", "<THINKING>a</THINKING>b<reasoning>c\nd</reasoning>e", "be"},
		{"several blocks", "<think>a</think>x<think>b</think>y", "xy"},
		{"cut off while reasoning", "  <think>Let me see, the guild", ""},
		{"unterminated later block kept", "answer <think>more", "answer <think>more"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		if got := StripThinking(tc.in); got != tc.want {
			t.Errorf("%s: StripThinking(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestOpenThinking(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"an answer", -1},
		{"<think>x</think> an answer", -1},
		{"an answer <think>still thinking", 10},
		{"<think>a</think> b <REASONING>c", 19},
		{"<think>a</think> b <thinking>c</reasoning> d", -1},
		{"an answer <thi", 10},
		{"an answer <Reasoning", 10},
		{"an answer <b", -1},
		{"1 < 2", -1},
		{"a <", 2},
	}
	for _, tc := range tests {
		if got := OpenThinking(tc.in); got != tc.want {
			t.Errorf("OpenThinking(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
