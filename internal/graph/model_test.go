package graph

import "testing"

func TestNormalizeID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ilsa Marrow", "ILSA MARROW"},
		{"  ilsa \t\n marrow ", "ILSA MARROW"},
		{"Ｓａｌｔｍｅｒｅ", "SALTMERE"}, // full-width letters fold under NFKC
		{"straße", "STRAßE"},     // per-rune upper case: ß has no one-rune capital
		{"café", "CAFÉ"},
		{"", ""},
		{"   ", ""},
	}
	for _, tc := range tests {
		if got := NormalizeID(tc.in); got != tc.want {
			t.Errorf("NormalizeID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRelationKeyIsUnordered(t *testing.T) {
	a, b := NewRelationKey("VELL", "SALTMERE"), NewRelationKey("SALTMERE", "VELL")
	if a != b || a.Source != "SALTMERE" {
		t.Errorf("keys %v and %v", a, b)
	}
	r := Relation{Source: a.Source, Target: a.Target}
	if r.Key() != a {
		t.Error("Relation.Key differs from its endpoints")
	}
	if CommunityID(2, 17) != "2-17" {
		t.Error("CommunityID format")
	}
}
