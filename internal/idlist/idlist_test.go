package idlist

import (
	"fmt"
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
	}{
		{"empty", nil},
		{"one", []string{"A"}},
		{"empty id first", []string{"", "B", "BB"}},
		{"many", func() []string {
			var ids []string
			for i := range 5000 {
				ids = append(ids, fmt.Sprintf("E%06d", i*3))
			}
			return ids
		}()},
	}
	for _, tt := range tests {
		l, err := New(tt.ids)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if l.Len() != len(tt.ids) {
			t.Fatalf("%s: len %d, want %d", tt.name, l.Len(), len(tt.ids))
		}
		x := NewIndex(l)
		for i, id := range tt.ids {
			if got := l.At(i); got != id {
				t.Errorf("%s: at(%d) = %q, want %q", tt.name, i, got, id)
			}
			if p, ok := l.Search(id); !ok || p != i {
				t.Errorf("%s: search(%q) = %d %v, want %d true", tt.name, id, p, ok, i)
			}
			if p, ok := x.Find([]byte(id)); !ok || int(p) != i {
				t.Errorf("%s: find(%q) = %d %v, want %d true", tt.name, id, p, ok, i)
			}
		}
		for _, missing := range []string{"0", "E000001", "ZZZ", "AA"} {
			if slices.Contains(tt.ids, missing) {
				continue
			}
			want, _ := slices.BinarySearch(tt.ids, missing)
			if p, ok := l.Search(missing); ok || p != want {
				t.Errorf("%s: search(%q) = %d %v, want %d false", tt.name, missing, p, ok, want)
			}
			if _, ok := x.Find([]byte(missing)); ok {
				t.Errorf("%s: find(%q) found a missing id", tt.name, missing)
			}
		}
	}
}

// TestBuilderList: a List taken while building keeps its ids when more are added, and Grow
// keeps what was added.
func TestBuilderList(t *testing.T) {
	var b Builder
	b.Grow(2, 3)
	for _, id := range []string{"A", "BB"} {
		if err := b.AddString(id); err != nil {
			t.Fatal(err)
		}
	}
	first := b.List()
	b.Grow(1000, 4000)
	for i := range 1000 {
		if err := b.Add(fmt.Appendf(nil, "C%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	all := b.List()
	if first.Len() != 2 || first.At(0) != "A" || first.At(1) != "BB" {
		t.Errorf("the first list changed: %d ids", first.Len())
	}
	if all.Len() != 1002 || all.At(1) != "BB" || all.At(1001) != "C999" {
		t.Errorf("the whole list: %d ids, %q %q", all.Len(), all.At(1), all.At(all.Len()-1))
	}
}
