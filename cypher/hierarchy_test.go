package cypher

import (
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestBuildHierarchy(t *testing.T) {
	comm := func(level int, id int64, parent string, size int) graph.Community {
		return graph.Community{ID: graph.CommunityID(level, id), Level: level, CommunityID: id, ParentID: parent, Size: size}
	}
	for _, tc := range []struct {
		name    string
		rows    []leidenRow
		want    []graph.Community
		members map[string][]string // entity -> community per level, coarsest first
		wantErr bool
	}{
		{name: "empty"},
		{
			name: "one level, renumbered by smallest member",
			rows: []leidenRow{{"C", []int64{5}}, {"A", []int64{9}}, {"B", []int64{9}}},
			want: []graph.Community{comm(0, 0, "", 2), comm(0, 1, "", 1)},
			members: map[string][]string{
				"A": {"0-0"}, "B": {"0-0"}, "C": {"0-1"},
			},
		},
		{
			// The shape of the GDS documentation's example: finest level first.
			name: "two levels, GDS lists finest first",
			rows: []leidenRow{
				{"a", []int64{3, 3}}, {"b", []int64{3, 3}}, {"c", []int64{14, 3}},
				{"g", []int64{8, 2}}, {"h", []int64{8, 2}}, {"j", []int64{12, 0}},
			},
			want: []graph.Community{
				comm(0, 0, "", 3), comm(0, 1, "", 2), comm(0, 2, "", 1),
				comm(1, 0, "0-0", 2), comm(1, 1, "0-0", 1), comm(1, 2, "0-1", 2), comm(1, 3, "0-2", 1),
			},
			members: map[string][]string{
				"a": {"0-0", "1-0"}, "b": {"0-0", "1-0"}, "c": {"0-0", "1-1"},
				"g": {"0-1", "1-2"}, "h": {"0-1", "1-2"}, "j": {"0-2", "1-3"},
			},
		},
		{
			name: "a finer community split across coarser ones is split to nest",
			rows: []leidenRow{{"a", []int64{1, 7}}, {"b", []int64{1, 8}}},
			want: []graph.Community{
				comm(0, 0, "", 1), comm(0, 1, "", 1), comm(1, 0, "0-0", 1), comm(1, 1, "0-1", 1),
			},
			members: map[string][]string{"a": {"0-0", "1-0"}, "b": {"0-1", "1-1"}},
		},
		{
			name:    "levels of different length",
			rows:    []leidenRow{{"a", []int64{1, 2}}, {"b", []int64{1}}},
			wantErr: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := buildHierarchy(tc.rows)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if !reflect.DeepEqual(h.communities, tc.want) {
				t.Errorf("communities\n got  %+v\n want %+v", h.communities, tc.want)
			}
			got := map[string][]string{}
			for _, m := range h.members {
				got[m.entityID] = append(got[m.entityID], m.communityID)
			}
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.members) {
				t.Errorf("members\n got  %v\n want %v", got, tc.members)
			}
		})
	}
}
