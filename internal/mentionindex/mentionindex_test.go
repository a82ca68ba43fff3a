package mentionindex

import (
	"slices"
	"testing"
)

func TestTopChunks(t *testing.T) {
	for _, grow := range []bool{false, true} {
		t.Run(map[bool]string{false: "built", true: "grown first, then a chunk past the room made"}[grow], func(t *testing.T) {
			testTopChunks(t, grow)
		})
	}
}

// testTopChunks builds the index of the test, with Builder.Grow first when grow is true (room
// for fewer chunks than added, to check growing past it), and checks its TopChunks.
func testTopChunks(t *testing.T, grow bool) {
	b := NewBuilder()
	if grow {
		b.AddChunk("c1", "d1", 0)
		b.Grow(2, 3)
	}
	for _, c := range []struct {
		id, doc string
		seq     int64
	}{{"c1", "d1", 0}, {"c2", "d1", 1}, {"c3", "d2", 0}, {"c4", "d2", 1}} {
		if !(grow && c.id == "c1") {
			b.AddChunk(c.id, c.doc, c.seq)
		}
	}
	for _, m := range [][2]string{{"c1", "a"}, {"c1", "b"}, {"c2", "b"}, {"c3", "a"}, {"c3", "b"}, {"c3", "c"}, {"c4", "c"}, {"c4", "c"}, {"nochunk", "a"}} {
		b.AddMention(m[0], m[1])
	}
	ix := b.Index()
	tests := []struct {
		name     string
		entities []string
		limit    int
		want     []ChunkHits
	}{
		{"ranked by hits then id", []string{"a", "b"}, 10, []ChunkHits{{"c1", 2}, {"c3", 2}, {"c2", 1}}},
		{"a repeated id and a repeated mention count once", []string{"c", "c"}, 10, []ChunkHits{{"c3", 1}, {"c4", 1}}},
		{"limit", []string{"a", "b", "c"}, 2, []ChunkHits{{"c3", 3}, {"c1", 2}}},
		{"unknown entity", []string{"zzz"}, 10, []ChunkHits{}},
		{"limit 0", []string{"a"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ix.TopChunks(tt.entities, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("TopChunks(%v, %d) = %v, want %v", tt.entities, tt.limit, got, tt.want)
			}
		})
	}
}
