package graph

import (
	"reflect"
	"testing"
)

// sc is a stored community: level, community id, parent id, size and the members IN_COMMUNITY
// still lists; it carries a report named after its id.
func sc(level int, id int64, parent string, size int, members ...int32) StoredCommunity {
	c := Community{ID: CommunityID(level, id), Level: level, CommunityID: id, ParentID: parent, Size: size,
		Title: "report " + CommunityID(level, id), Rating: 5}
	return StoredCommunity{Community: c, Members: members}
}

func pc(level, parent int, members ...int32) ProposedCommunity {
	return ProposedCommunity{Level: level, Parent: parent, Members: members}
}

// twoLevels is a stored hierarchy over nodes 0..5: level 0 {0,1,2,3} and {4,5}; level 1 {0,1},
// {2,3} under the first, {4,5} under the second.
func twoLevels() []StoredCommunity {
	return []StoredCommunity{
		sc(0, 0, "", 4, 0, 1, 2, 3),
		sc(0, 1, "", 2, 4, 5),
		sc(1, 0, "0-0", 2, 0, 1),
		sc(1, 1, "0-0", 2, 2, 3),
		sc(1, 2, "0-1", 2, 4, 5),
	}
}

// sameTwoLevels proposes twoLevels again, in another order.
func sameTwoLevels() []ProposedCommunity {
	return []ProposedCommunity{
		pc(0, -1, 4, 5),
		pc(0, -1, 0, 1, 2, 3),
		pc(1, 0, 4, 5),
		pc(1, 1, 0, 1),
		pc(1, 1, 2, 3),
	}
}

func TestMatchCommunities(t *testing.T) {
	type want struct {
		ids        []string // per proposed community
		parents    []string
		report     []string // ids
		reparented []string
		removed    []string
		kept       int
	}
	tests := []struct {
		name     string
		stored   []StoredCommunity
		proposed []ProposedCommunity
		changed  []int32
		want     want
	}{{
		name: "unchanged", stored: twoLevels(), proposed: sameTwoLevels(),
		want: want{
			ids:     []string{"0-1", "0-0", "1-2", "1-0", "1-1"},
			parents: []string{"", "", "0-1", "0-0", "0-0"},
			kept:    5,
		},
	}, {
		name: "changed entity reports its community at every level", stored: twoLevels(), proposed: sameTwoLevels(),
		changed: []int32{2},
		want: want{
			ids:     []string{"0-1", "0-0", "1-2", "1-0", "1-1"},
			parents: []string{"", "", "0-1", "0-0", "0-0"},
			report:  []string{"0-0", "1-1"},
			kept:    5,
		},
	}, {
		// Node 3 was deleted: IN_COMMUNITY no longer lists it, the sizes still count it.
		name: "deleted member", proposed: []ProposedCommunity{pc(0, -1, 0, 1, 2), pc(0, -1, 4, 5), pc(1, 0, 0, 1), pc(1, 0, 2), pc(1, 1, 4, 5)},
		stored: []StoredCommunity{
			sc(0, 0, "", 4, 0, 1, 2),
			sc(0, 1, "", 2, 4, 5),
			sc(1, 0, "0-0", 2, 0, 1),
			sc(1, 1, "0-0", 2, 2),
			sc(1, 2, "0-1", 2, 4, 5),
		},
		want: want{
			ids:        []string{"0-2", "0-1", "1-0", "1-3", "1-2"},
			parents:    []string{"", "", "0-2", "0-2", "0-1"},
			report:     []string{"0-2", "1-3"},
			reparented: []string{"1-0"},
			removed:    []string{"0-0", "1-1"},
			kept:       3,
		},
	}, {
		name: "new pair of entities", stored: twoLevels(),
		proposed: append(sameTwoLevels(), pc(0, -1, 6, 7), pc(1, 5, 6, 7)),
		changed:  []int32{6, 7},
		want: want{
			ids:     []string{"0-1", "0-0", "1-2", "1-0", "1-1", "0-2", "1-3"},
			parents: []string{"", "", "0-1", "0-0", "0-0", "", "0-2"},
			report:  []string{"0-2", "1-3"},
			kept:    5,
		},
	}, {
		// {2,3} moves under {4,5}: both level-0 communities change members, the level-1 ones
		// keep their ids with new parents.
		name: "regrouped coarse level", stored: twoLevels(),
		proposed: []ProposedCommunity{pc(0, -1, 0, 1), pc(0, -1, 2, 3, 4, 5), pc(1, 0, 0, 1), pc(1, 1, 2, 3), pc(1, 1, 4, 5)},
		want: want{
			ids:        []string{"0-2", "0-3", "1-0", "1-1", "1-2"},
			parents:    []string{"", "", "0-2", "0-3", "0-3"},
			report:     []string{"0-2", "0-3"},
			reparented: []string{"1-0", "1-1", "1-2"},
			removed:    []string{"0-0", "0-1"},
			kept:       3,
		},
	}, {
		// A finer level appears under level 1: its communities are new, and the level-1 ones
		// whose children changed (from none) are reported with their parents.
		name: "new finest level", stored: twoLevels(),
		proposed: append(sameTwoLevels(), pc(2, 3, 0), pc(2, 3, 1), pc(2, 4, 2, 3), pc(2, 2, 4, 5)),
		want: want{
			ids:     []string{"0-1", "0-0", "1-2", "1-0", "1-1", "2-0", "2-1", "2-2", "2-3"},
			parents: []string{"", "", "0-1", "0-0", "0-0", "1-0", "1-0", "1-1", "1-2"},
			report:  []string{"0-0", "0-1", "1-0", "1-1", "1-2", "2-0", "2-1", "2-2", "2-3"},
			kept:    5,
		},
	}, {
		// The finest level vanishes: the level-0 communities lost their children.
		name: "finest level gone", stored: twoLevels(),
		proposed: []ProposedCommunity{pc(0, -1, 0, 1, 2, 3), pc(0, -1, 4, 5)},
		want: want{
			ids:     []string{"0-0", "0-1"},
			parents: []string{"", ""},
			report:  []string{"0-0", "0-1"},
			removed: []string{"1-0", "1-1", "1-2"},
			kept:    2,
		},
	}, {
		// The same member set one level finer is not the same community.
		name:     "level must match",
		stored:   []StoredCommunity{sc(0, 0, "", 2, 0, 1)},
		proposed: []ProposedCommunity{pc(0, -1, 0, 1, 2), pc(1, 0, 0, 1), pc(1, 0, 2)},
		want: want{
			ids:     []string{"0-1", "1-0", "1-1"},
			parents: []string{"", "0-1", "0-1"},
			report:  []string{"0-1", "1-0", "1-1"},
			removed: []string{"0-0"},
		},
	}, {
		name: "nothing stored", proposed: []ProposedCommunity{pc(0, -1, 0), pc(0, -1, 1, 2)},
		want: want{ids: []string{"0-0", "0-1"}, parents: []string{"", ""}, report: []string{"0-0", "0-1"}},
	}, {
		name: "nothing proposed", stored: twoLevels(),
		want: want{removed: []string{"0-0", "0-1", "1-0", "1-1", "1-2"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := MatchCommunities(tc.stored, tc.proposed, tc.changed)
			var got want
			got.kept = m.Kept()
			for i, c := range m.Communities {
				got.ids = append(got.ids, c.ID)
				got.parents = append(got.parents, c.ParentID)
				if c.ID != CommunityID(c.Level, c.CommunityID) || c.Level != tc.proposed[i].Level || c.Size != len(tc.proposed[i].Members) {
					t.Errorf("community %d = %+v for %+v", i, c, tc.proposed[i])
				}
				if si := m.Stored[i]; si >= 0 {
					if s := tc.stored[si]; s.ID != c.ID || s.Title != c.Title || s.Rating != c.Rating {
						t.Errorf("kept community %s does not carry the stored %+v", c.ID, s.Community)
					}
				} else if c.Title != "" || c.Rating != 0 {
					t.Errorf("new community %s carries a report: %+v", c.ID, c)
				}
			}
			for _, i := range m.Report {
				got.report = append(got.report, m.Communities[i].ID)
			}
			for _, i := range m.Reparented {
				got.reparented = append(got.reparented, m.Communities[i].ID)
			}
			got.removed = m.Removed
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MatchCommunities:\n got %+v\nwant %+v", got, tc.want)
			}
			if unchanged := got.kept == len(tc.proposed) && len(got.removed) == 0 && len(got.reparented) == 0; m.Unchanged() != unchanged {
				t.Errorf("Unchanged() = %v, want %v", m.Unchanged(), unchanged)
			}
		})
	}
}

func TestDrifted(t *testing.T) {
	tests := []struct {
		seeded, reference []float64
		want              bool
	}{
		{[]float64{0.80, 0.79}, []float64{0.80, 0.80}, false},
		{[]float64{0.785, 0.80}, []float64{0.80, 0.80}, false}, // 98.1 %
		{[]float64{0.783, 0.80}, []float64{0.80, 0.80}, true},  // 97.9 %
		{[]float64{0.80, 0.70}, []float64{0.80, 0.80}, true},
		{[]float64{0.80, 0.70, 0.10}, []float64{0.80, 0.70}, false}, // finer levels beyond the record
		{[]float64{0.80}, []float64{0.80, 0.80}, false},
		{[]float64{-0.1025}, []float64{-0.1}, true},
		{[]float64{-0.1019}, []float64{-0.1}, false},
		{nil, nil, false},
	}
	for _, tc := range tests {
		if got := Drifted(tc.seeded, tc.reference); got != tc.want {
			t.Errorf("Drifted(%v, %v) = %v, want %v", tc.seeded, tc.reference, got, tc.want)
		}
	}
}

func TestModularityRecord(t *testing.T) {
	q := []float64{0.8123456789012345, 0.5, -0.01, 0}
	if got := ParseModularity(FormatModularity(q)); !reflect.DeepEqual(got, q) {
		t.Errorf("ParseModularity(FormatModularity(%v)) = %v", q, got)
	}
	for _, s := range []string{"", "  ", "0.5 x"} {
		if got := ParseModularity(s); got != nil {
			t.Errorf("ParseModularity(%q) = %v, want nil", s, got)
		}
	}
}
