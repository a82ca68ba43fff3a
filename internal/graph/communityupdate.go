package graph

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
)

// CommunityUpdate is what Analyzer.UpdateCommunities did to the stored communities.
//
// A community of the new hierarchy keeps the id of a stored one (and with it the stored title,
// summary, report, rating and embedding) when it is at the same level and has exactly the
// stored member set, the stored size included: an entity deleted since the communities were
// computed has left IN_COMMUNITY but not the size, so a community that held it is not kept.
// Every other community is new, with a community id unused at its level. See
// MatchCommunities, which both backends use.
type CommunityUpdate struct {
	// Report lists the communities whose report must be written again, ordered by level then
	// community id, without reports: the new ones, the kept ones holding an entity of changed,
	// and the kept ones with a reported child or whose set of children changed (a report reads
	// its children's reports). A kept community not listed keeps a report that still holds.
	Report []Community
	// Total is the number of communities stored now, Kept how many of them kept a stored id
	// (reported again or not), Removed how many stored communities were deleted with their
	// memberships. Total - Kept communities are new.
	Total, Kept, Removed int
	// Fresh says that the partition started from the stored one drifted past the bound (see
	// UpdateCommunities) and a from-scratch one was used instead; ids and reports are still
	// kept where member sets match.
	Fresh bool
	// Modularity is the modularity of each level of the communities stored now, coarsest
	// (level 0) first.
	Modularity []float64
}

// StoredCommunity is a stored community with the members IN_COMMUNITY still lists, as node
// numbers of the caller's choice (the same as the proposed communities'); members that are no
// longer entities have no number and are left out, Community.Size still counting them.
type StoredCommunity struct {
	Community
	Members []int32 // ascending
}

// ProposedCommunity is a community of a newly computed hierarchy.
type ProposedCommunity struct {
	Level   int
	Members []int32 // node numbers, ascending, not empty
	// Parent is the index in the proposed list of the community one level coarser that holds
	// this one, -1 at level 0.
	Parent int
}

// CommunityMatch is how a proposed hierarchy is stored over the stored one (MatchCommunities).
type CommunityMatch struct {
	// Communities has one community per proposed one, in the same order, with ID, Level,
	// CommunityID, ParentID and Size set; a kept one also carries the stored report properties.
	Communities []Community
	// Stored holds, per proposed community, the index in stored of the community it keeps, -1
	// for a new one.
	Stored []int
	// Report holds the indexes in Communities of those whose report must be written again,
	// ordered by level then community id (see CommunityUpdate.Report).
	Report []int
	// Reparented holds the indexes in Communities of kept communities whose parent id is not
	// the stored one: their CHILD_OF must be written again.
	Reparented []int
	// Removed holds the ids of the stored communities not kept, ordered by level then
	// community id.
	Removed []string
}

// Kept counts the proposed communities that keep a stored id.
func (m CommunityMatch) Kept() int {
	k := 0
	for _, s := range m.Stored {
		if s >= 0 {
			k++
		}
	}
	return k
}

// Unchanged reports whether storing the match writes nothing: every community kept with its
// parent, none removed.
func (m CommunityMatch) Unchanged() bool {
	return m.Kept() == len(m.Communities) && len(m.Removed) == 0 && len(m.Reparented) == 0
}

// MatchCommunities decides which communities of the proposed hierarchy keep the id (and
// report) of a stored one, which must be reported again and which stored ones go; it is the
// backend-independent half of UpdateCommunities. changed holds the node numbers of the
// entities added, rewritten or removed since the stored communities were reported, or ends of
// relations that were (removed entities have no number: their communities are not kept, as
// their size no longer matches).
//
// A proposed community keeps the stored community at its level with exactly its members whose
// Size is the member count. A new one gets, at its level, the next community id after the
// largest stored at that level (kept or not), in the order of proposed, so that an id never
// names another member set within one update. Parent ids follow the proposed parents.
//
// A community is reported when it is new, holds a changed entity, has a reported child, or
// its children differ from the stored ones (a level appeared or vanished under it): a report
// reads its members and its children's reports.
func MatchCommunities(stored []StoredCommunity, proposed []ProposedCommunity, changed []int32) CommunityMatch {
	seed := maphash.MakeSeed()
	key := func(level int, members []int32) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		maphash.WriteComparable(&h, level)
		for _, m := range members {
			maphash.WriteComparable(&h, m)
		}
		return h.Sum64()
	}
	byKey := make(map[uint64][]int, len(stored))
	nextID := map[int]int64{} // level -> next free community id
	storedIndex := make(map[string]int, len(stored))
	for i, s := range stored {
		storedIndex[s.ID] = i
		nextID[s.Level] = max(nextID[s.Level], s.CommunityID+1)
		if len(s.Members) == 0 || len(s.Members) != s.Size {
			continue
		}
		k := key(s.Level, s.Members)
		byKey[k] = append(byKey[k], i)
	}

	m := CommunityMatch{Communities: make([]Community, len(proposed)), Stored: make([]int, len(proposed))}
	taken := make([]bool, len(stored))
	for i, p := range proposed {
		m.Stored[i] = -1
		for _, si := range byKey[key(p.Level, p.Members)] {
			s := stored[si]
			if !taken[si] && s.Level == p.Level && slices.Equal(s.Members, p.Members) {
				taken[si], m.Stored[i] = true, si
				break
			}
		}
		var c Community
		if si := m.Stored[i]; si >= 0 {
			c = stored[si].Community
		} else {
			c = Community{Level: p.Level, CommunityID: nextID[p.Level]}
			nextID[p.Level]++
			c.ID = CommunityID(c.Level, c.CommunityID)
		}
		c.Size = len(p.Members)
		m.Communities[i] = c
	}

	// Parents, and children as ids per community, proposed and stored.
	children := make([][]string, len(proposed))
	for i, p := range proposed {
		c := &m.Communities[i]
		parent := ""
		if p.Parent >= 0 {
			parent = m.Communities[p.Parent].ID
			children[p.Parent] = append(children[p.Parent], c.ID)
		}
		if m.Stored[i] >= 0 && c.ParentID != parent {
			m.Reparented = append(m.Reparented, i)
		}
		c.ParentID = parent
	}
	storedChildren := make([][]string, len(stored))
	for _, s := range stored {
		if pi, ok := storedIndex[s.ParentID]; ok && s.ParentID != "" {
			storedChildren[pi] = append(storedChildren[pi], s.ID)
		}
	}

	isChanged := make(map[int32]bool, len(changed))
	for _, c := range changed {
		isChanged[c] = true
	}
	// Finest level first, so that a community sees whether a child is reported.
	order := make([]int, len(proposed))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(proposed[b].Level, proposed[a].Level) })
	report := make([]bool, len(proposed))
	for _, i := range order {
		si := m.Stored[i]
		r := report[i] || si < 0 || slices.ContainsFunc(proposed[i].Members, func(u int32) bool { return isChanged[u] })
		if !r {
			got, want := slices.Clone(children[i]), slices.Clone(storedChildren[si])
			slices.Sort(got)
			slices.Sort(want)
			r = !slices.Equal(got, want)
		}
		if r {
			report[i] = true
			if p := proposed[i].Parent; p >= 0 {
				report[p] = true // a parent comes later in order
			}
		}
	}
	for i, r := range report {
		if r {
			m.Report = append(m.Report, i)
		}
	}
	byLevelID := func(a, b Community) int {
		return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(a.CommunityID, b.CommunityID))
	}
	slices.SortFunc(m.Report, func(a, b int) int { return byLevelID(m.Communities[a], m.Communities[b]) })
	var removed []Community
	for i, s := range stored {
		if !taken[i] {
			removed = append(removed, s.Community)
		}
	}
	slices.SortFunc(removed, byLevelID)
	for _, c := range removed {
		m.Removed = append(m.Removed, c.ID)
	}
	return m
}

// CommunityModularityKey is the meta key holding the modularity of each level of the last
// full computation of the communities (ComputeCommunities, or a fresh one of
// UpdateCommunities), coarsest level first, as FormatModularity writes it.
const CommunityModularityKey = "communities.modularity"

// DriftBound is the share of the recorded modularity of a level below which a seeded update
// counts as drifted (Drifted).
const DriftBound = 0.98

// Drifted reports whether a seeded hierarchy has drifted too far from a full computation:
// whether any level, compared from the coarsest (level 0 of both, then level 1, as far as both
// reach), has a modularity below DriftBound of the reference's at that level (for a reference
// q <= 0, below q - (1-DriftBound)|q|). Levels are compared from the coarsest because level 0
// is the coarsest in both, whatever the number of finer levels.
func Drifted(seeded, reference []float64) bool {
	for i := range min(len(seeded), len(reference)) {
		q := reference[i]
		if seeded[i] < q-(1-DriftBound)*max(q, -q) {
			return true
		}
	}
	return false
}

// FormatModularity writes per-level modularities for CommunityModularityKey: space-separated,
// coarsest first, each with every digit needed to read it back exactly.
func FormatModularity(q []float64) string {
	parts := make([]string, len(q))
	for i, v := range q {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, " ")
}

// ParseModularity reads what FormatModularity wrote; an empty or unreadable value gives nil
// (no record).
func ParseModularity(s string) []float64 {
	var q []float64
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil
		}
		q = append(q, v)
	}
	return q
}
