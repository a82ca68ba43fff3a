package embedded

import (
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
)

func TestFTSMatch(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"", ""},
		{"  ", ""},
		{`"`, ""},
		{"*", ""},
		{"river", `"river"`},
		{"River river RIVER", `"river"`},
		{`AND "foo`, `"and" OR "foo"`},
		{"NEAR(a b)", `"near" OR "a" OR "b"`},
		{"title:zebra^2", `"title" OR "zebra" OR "2"`},
		{"don't-stop", `"don" OR "t" OR "stop"`},
		{"Ärger über Straßen", `"ärger" OR "über" OR "straßen"`},
		{"東京 tower", `"東京" OR "tower"`},
	} {
		if got := ftsMatch(tc.query); got != tc.want {
			t.Errorf("ftsMatch(%q) = %s, want %s", tc.query, got, tc.want)
		}
	}
}

func TestVectorCodec(t *testing.T) {
	for _, v := range [][]float32{nil, {0}, {1, -2.5, float32(math.Pi), math.MaxFloat32, math.SmallestNonzeroFloat32}} {
		got, err := decodeVector(encodeVector(v))
		if err != nil {
			t.Fatalf("decode(encode(%v)): %v", v, err)
		}
		if len(v) == 0 && got != nil || len(v) > 0 && !reflect.DeepEqual(got, v) {
			t.Errorf("decode(encode(%v)) = %v", v, got)
		}
	}
	if _, err := decodeVector([]byte{1, 2, 3}); err == nil {
		t.Error("decoding 3 bytes succeeded")
	}
	// Little-endian float32: 1.0 is 0x3f800000.
	if got := encodeVector([]float32{1}); !reflect.DeepEqual(got, []byte{0, 0, 0x80, 0x3f}) {
		t.Errorf("encodeVector(1) = % x, want 00 00 80 3f", got)
	}
}

func TestEdgeWeight(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{2.5, 2.5}, {1e-9, 1e-9}, {0, 1}, {-3, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {math.Inf(-1), 1},
	} {
		if got := edgeWeight(tc.in); got != tc.want {
			t.Errorf("edgeWeight(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestHierarchy(t *testing.T) {
	tests := []struct {
		name        string
		levels      [][]int32
		want        []graph.Community
		wantMembers [][]int32
		err         bool
	}{
		{
			// Five nodes; finest level {0,1} {2,3} {4}, coarsest {0,1,2,3} {4}.
			name:   "two levels",
			levels: [][]int32{{0, 0, 1, 1, 2}, {0, 0, 0, 0, 1}},
			want: []graph.Community{
				{ID: "0-0", Level: 0, CommunityID: 0, Size: 4},
				{ID: "0-1", Level: 0, CommunityID: 1, Size: 1},
				{ID: "1-0", Level: 1, CommunityID: 0, ParentID: "0-0", Size: 2},
				{ID: "1-1", Level: 1, CommunityID: 1, ParentID: "0-0", Size: 2},
				{ID: "1-2", Level: 1, CommunityID: 2, ParentID: "0-1", Size: 1},
			},
			wantMembers: [][]int32{{0, 1, 2, 3}, {4}, {0, 1}, {2, 3}, {4}},
		},
		{
			// Ids need not be dense or in order of first node: members stay in node order and
			// communities in id order, the parent that of the smallest member.
			name:   "sparse ids",
			levels: [][]int32{{3, 0, 3, 5, 0, 5}, {1, 0, 1, 0, 0, 0}},
			want: []graph.Community{
				{ID: "0-0", Level: 0, CommunityID: 0, Size: 4},
				{ID: "0-1", Level: 0, CommunityID: 1, Size: 2},
				{ID: "1-0", Level: 1, CommunityID: 0, ParentID: "0-0", Size: 2},
				{ID: "1-3", Level: 1, CommunityID: 3, ParentID: "0-1", Size: 2},
				{ID: "1-5", Level: 1, CommunityID: 5, ParentID: "0-0", Size: 2},
			},
			wantMembers: [][]int32{{1, 3, 4, 5}, {0, 2}, {1, 4}, {0, 2}, {3, 5}},
		},
		{name: "none"},
		{name: "negative id", levels: [][]int32{{0, -1}}, err: true},
		{name: "id out of range", levels: [][]int32{{0, 2}}, err: true},
	}
	for _, tt := range tests {
		var members [][]int32
		comms, err := hierarchy(tt.levels, func(_ graph.Community, m []int32) error {
			members = append(members, slices.Clone(m))
			return nil
		})
		if (err != nil) != tt.err {
			t.Errorf("%s: error %v, want error %v", tt.name, err, tt.err)
			continue
		}
		if !reflect.DeepEqual(comms, tt.want) {
			t.Errorf("%s: communities =\n%+v\nwant\n%+v", tt.name, comms, tt.want)
		}
		if !reflect.DeepEqual(members, tt.wantMembers) {
			t.Errorf("%s: members = %v, want %v", tt.name, members, tt.wantMembers)
		}
	}
}

// TestReplaceCommunitiesBatches: the members are written memberRows to a statement and the
// rest by one of their own; every (community, entity) pair arrives once, whatever the count.
func TestReplaceCommunitiesBatches(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, n := range []int{1, memberRows / 2, memberRows, 3*memberRows + 7} {
		var b idlist.Builder
		fine, coarse := make([]int32, n), make([]int32, n)
		want := map[string]bool{}
		for i := range n {
			id := fmt.Sprintf("E%05d", i)
			if err := b.AddString(id); err != nil {
				t.Fatal(err)
			}
			fine[i], coarse[i] = int32(i/3), int32(i/7)
			want[graph.CommunityID(1, int64(i/3))+" "+id] = true
			want[graph.CommunityID(0, int64(i/7))+" "+id] = true
		}
		err := s.write(ctx, "test communities", func(tx *sql.Tx) error {
			_, err := replaceCommunities(ctx, tx, b.List(), [][]int32{fine, coarse})
			return err
		})
		if err != nil {
			t.Fatalf("%d entities: %v", n, err)
		}
		got := map[string]bool{}
		rows, err := s.db.QueryContext(ctx, `SELECT community_id, entity_id FROM community_members`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c, e string
			if err := rows.Scan(&c, &e); err != nil {
				t.Fatal(err)
			}
			got[c+" "+e] = true
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d entities: %d member rows, want %d", n, len(got), len(want))
		}
	}
}
