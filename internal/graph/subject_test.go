package graph

import "testing"

func TestSubjectName(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"Treaty of Vell", "Treaty of Vell"},
		{"Mercury (planet)", "Mercury"},
		{"  Hollin   Reach University ", "Hollin Reach University"},
		{"Saltmere Cartographers' Guild", "Saltmere Cartographers' Guild"},
		{"1998 FIFA World Cup", "1998 FIFA World Cup"},
		{"Ludwig van Beethoven", "Ludwig van Beethoven"},
		{"the river", ""},
		{"edda-fenwick", "edda fenwick"},
		{"treaty_of_vell", "treaty of vell"},
		{"notes", ""},
		{"-", ""},
		{"Lamp failure at the Kestrel Point Lighthouse", ""},
		{"WTF is going on at OpenAI? We have theories", ""},
		{"The $777 million surprise: Donald Trump is getting richer", ""},
		{"One Two Three Four Five Six Seven Eight Nine", ""},
		{"", ""},
		{"(planet)", ""},
	} {
		if got := subjectName(tc.title); got != tc.want {
			t.Errorf("subjectName(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}
