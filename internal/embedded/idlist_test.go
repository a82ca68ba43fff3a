package embedded

import (
	"fmt"
	"slices"
	"testing"
)

func TestIDList(t *testing.T) {
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
		l, err := newIDList(tt.ids)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if l.len() != len(tt.ids) {
			t.Fatalf("%s: len %d, want %d", tt.name, l.len(), len(tt.ids))
		}
		x := newIDIndex(l)
		for i, id := range tt.ids {
			if got := l.at(i); got != id {
				t.Errorf("%s: at(%d) = %q, want %q", tt.name, i, got, id)
			}
			if p, ok := l.search(id); !ok || p != i {
				t.Errorf("%s: search(%q) = %d %v, want %d true", tt.name, id, p, ok, i)
			}
			if p, ok := x.find([]byte(id)); !ok || int(p) != i {
				t.Errorf("%s: find(%q) = %d %v, want %d true", tt.name, id, p, ok, i)
			}
		}
		for _, missing := range []string{"0", "E000001", "ZZZ", "AA"} {
			if slices.Contains(tt.ids, missing) {
				continue
			}
			want, _ := slices.BinarySearch(tt.ids, missing)
			if p, ok := l.search(missing); ok || p != want {
				t.Errorf("%s: search(%q) = %d %v, want %d false", tt.name, missing, p, ok, want)
			}
			if _, ok := x.find([]byte(missing)); ok {
				t.Errorf("%s: find(%q) found a missing id", tt.name, missing)
			}
		}
	}
}
