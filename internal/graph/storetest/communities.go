package storetest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func communityTests() []test {
	return []test{
		{"ComputeCommunities/TwoClusters", testTwoClusters},
		{"ComputeCommunities/RingOfCliques", testRingOfCliques},
		{"ComputeCommunities/Rerun", testCommunityRerun},
		{"ComputeCommunities/Reports", testCommunityReports},
		{"UpdateCommunities/Unchanged", testUpdateUnchanged},
		{"UpdateCommunities/NewPair", testUpdateNewPair},
		{"UpdateCommunities/DeletedEntity", testUpdateDeletedEntity},
		{"UpdateCommunities/ChangedEntity", testUpdateChangedEntity},
		{"ExpandLocal/Communities", testLocalCommunities},
		{"ExpandLocal/DistinctCommunities", testLocalDistinctCommunities},
	}
}

// clusterBatch is two dense clusters joined by one edge, a summary entity hanging off the first
// cluster, and an isolated entity:
//
//	P1..P5 fully connected  -- P1-Q1 --  Q1..Q5 fully connected;  P2, P3 ==> SP (layer 1);  Z
func clusterBatch() graph.Batch {
	var b graph.Batch
	ids := []string{"P1", "P2", "P3", "P4", "P5", "Q1", "Q2", "Q3", "Q4", "Q5", "Z"}
	for _, id := range ids {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id})
	}
	b.Entities = append(b.Entities, graph.Entity{ID: "SP", Name: "SP", Type: "thing", Description: "summary of P", Layer: 1})
	for _, cluster := range [][]string{ids[:5], ids[5:10]} {
		for i, a := range cluster {
			for _, c := range cluster[i+1:] {
				b.Relations = append(b.Relations, graph.Relation{Source: a, Target: c, Description: a + "-" + c, Weight: 1})
			}
		}
	}
	b.Relations = append(b.Relations, graph.Relation{Source: "P1", Target: "Q1", Description: "bridge", Weight: 1})
	b.SummaryLinks = []graph.SummaryLink{{Member: "P2", Summary: "SP", Weight: 1}, {Member: "P3", Summary: "SP", Weight: 1}}
	return b
}

func clusterEntityIDs() []string {
	return []string{"P1", "P2", "P3", "P4", "P5", "Q1", "Q2", "Q3", "Q4", "Q5", "SP", "Z"}
}

// computeCommunities runs ComputeCommunities with the default parameters and checks the order
// of the result.
func computeCommunities(t *testing.T, s graph.Store) []graph.Community {
	t.Helper()
	comms := must[[]graph.Community](t, "ComputeCommunities")(s.ComputeCommunities(ctx(t), graph.DefaultLeidenParams()))
	if len(comms) == 0 {
		t.Fatal("ComputeCommunities returned no communities")
	}
	if !slices.IsSortedFunc(comms, compareCommunities) {
		t.Errorf("ComputeCommunities result is not ordered by level then community id: %v", comms)
	}
	return comms
}

func compareCommunities(a, b graph.Community) int {
	return cmp.Or(cmp.Compare(a.Level, b.Level), cmp.Compare(a.CommunityID, b.CommunityID))
}

// checkHierarchy checks the communities comms just computed over the entities ids: levels are
// nested, level 0 is the coarsest, every entity has one community per level, sizes, ids and
// CHILD_OF are consistent, and the lookups agree with the result. It returns the community of
// each entity per level.
func checkHierarchy(t *testing.T, s graph.Store, comms []graph.Community, ids []string) map[string]map[int]string {
	t.Helper()
	levels := comms[len(comms)-1].Level + 1
	byID := map[string]graph.Community{}
	members := map[string][]string{}        // community id -> member entity ids
	entities := map[string][]graph.Entity{} // community id -> CommunityMembers' entities
	levelOf := map[string]map[int]string{}  // entity -> level -> community id
	perLevel := make([]int, levels)
	for _, c := range comms {
		if c.ID != graph.CommunityID(c.Level, c.CommunityID) {
			t.Errorf("community %+v: id is not CommunityID(level, communityId)", c)
		}
		if c.Level < 0 || c.Level >= levels {
			t.Fatalf("community %s has level %d outside 0..%d", c.ID, c.Level, levels-1)
		}
		if c.Title != "" || c.Summary != "" || c.Report != "" || c.Rating != 0 || len(c.Embedding) != 0 {
			t.Errorf("new community %s carries a report: %+v", c.ID, c)
		}
		byID[c.ID] = c
		perLevel[c.Level]++
		m := must[graph.Members](t, "CommunityMembers")(s.CommunityMembers(ctx(t), c.ID, -1))
		entities[c.ID] = m.Entities
		if len(m.Entities) != c.Size || c.Size == 0 {
			t.Errorf("community %s: Size %d, %d member entities", c.ID, c.Size, len(m.Entities))
		}
		for _, e := range m.Entities {
			if e.Embedding != nil {
				t.Errorf("community %s: member %s comes with its embedding; Members promises none", c.ID, e.ID)
			}
			members[c.ID] = append(members[c.ID], e.ID)
			if levelOf[e.ID] == nil {
				levelOf[e.ID] = map[int]string{}
			}
			if prev, dup := levelOf[e.ID][c.Level]; dup {
				t.Errorf("entity %s is in %s and %s, both of level %d", e.ID, prev, c.ID, c.Level)
			}
			levelOf[e.ID][c.Level] = c.ID
		}
	}
	for l := range levels {
		if perLevel[l] == 0 {
			t.Errorf("level %d has no communities (levels 0..%d)", l, levels-1)
		}
		if l > 0 && perLevel[l] < perLevel[l-1] {
			t.Errorf("level %d has %d communities, fewer than the coarser level %d (%d)", l, perLevel[l], l-1, perLevel[l-1])
		}
	}
	if len(levelOf) != len(ids) {
		t.Errorf("%d entities have communities, want all %d", len(levelOf), len(ids))
	}
	for _, id := range ids {
		if len(levelOf[id]) != levels {
			t.Errorf("entity %s has communities at %d of %d levels: %v", id, len(levelOf[id]), levels, levelOf[id])
		}
	}

	// CommunityEntities: the same member entities as CommunityMembers, for all communities in
	// one call; an unknown id and a repeated one change nothing.
	all := []string{"no-such-community"}
	for _, c := range comms {
		all = append(all, c.ID)
	}
	all = append(all, comms[0].ID)
	check(t, "CommunityEntities of every community", must[map[string][]graph.Entity](t, "CommunityEntities")(s.CommunityEntities(ctx(t), all)), entities)
	one := must[map[string][]graph.Entity](t, "CommunityEntities")(s.CommunityEntities(ctx(t), []string{comms[len(comms)-1].ID}))
	check(t, "CommunityEntities of one community", one, map[string][]graph.Entity{comms[len(comms)-1].ID: entities[comms[len(comms)-1].ID]})
	check(t, "CommunityEntities of none", must[map[string][]graph.Entity](t, "CommunityEntities")(s.CommunityEntities(ctx(t), nil)), map[string][]graph.Entity{})

	// CHILD_OF: the parent is one level coarser and holds every member of the child.
	children := map[string][]string{}
	childOf := 0
	for _, c := range comms {
		if c.Level == 0 {
			if c.ParentID != "" {
				t.Errorf("level-0 community %s has parent %q", c.ID, c.ParentID)
			}
			continue
		}
		childOf++
		parent, ok := byID[c.ParentID]
		if !ok || parent.Level != c.Level-1 {
			t.Errorf("community %s (level %d) has parent %q, want a community of level %d", c.ID, c.Level, c.ParentID, c.Level-1)
			continue
		}
		children[parent.ID] = append(children[parent.ID], c.ID)
		for _, e := range members[c.ID] {
			if levelOf[e][parent.Level] != parent.ID {
				t.Errorf("entity %s is in %s but not in its parent %s", e, c.ID, parent.ID)
			}
		}
	}
	for _, c := range comms {
		m := must[graph.Members](t, "CommunityMembers")(s.CommunityMembers(ctx(t), c.ID, -1))
		var got []string
		for _, ch := range m.Children {
			got = append(got, ch.ID)
		}
		slices.Sort(got)
		want := slices.Clone(children[c.ID])
		slices.Sort(want)
		check(t, "children of "+c.ID, got, want)
	}

	check(t, "CommunitiesByLevel(-1)", must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1)), comms)
	for l := range levels {
		var want []graph.Community
		for _, c := range comms {
			if c.Level == l {
				want = append(want, c)
			}
		}
		check(t, "CommunitiesByLevel("+itoa(l)+")", must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), l)), want)
	}
	check(t, "Communities", must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), []string{comms[len(comms)-1].ID, "nope", comms[0].ID})),
		[]graph.Community{comms[len(comms)-1], comms[0]})
	st := stats(t, s)
	check(t, "Stats: Community", st.Nodes["Community"], int64(len(comms)))
	check(t, "Stats: IN_COMMUNITY", st.Relationships["IN_COMMUNITY"], int64(len(ids)*levels))
	check(t, "Stats: CHILD_OF", st.Relationships["CHILD_OF"], int64(childOf))
	return levelOf
}

// testTwoClusters: the hierarchy over two dense clusters is consistent, the clusters end up apart
// and the summary entity sits with its members.
func testTwoClusters(t *testing.T, s graph.Store) {
	b := clusterBatch()
	apply(t, s, b)
	comms := computeCommunities(t, s)
	levelOf := checkHierarchy(t, s, comms, clusterEntityIDs())

	top := func(id string) string { return levelOf[id][0] }
	for _, id := range []string{"P2", "P3", "P4", "P5", "SP"} {
		if top(id) != top("P1") {
			t.Errorf("level 0: %s is in %s, P1 in %s; want the P cluster together", id, top(id), top("P1"))
		}
	}
	for _, id := range []string{"Q2", "Q3", "Q4", "Q5"} {
		if top(id) != top("Q1") {
			t.Errorf("level 0: %s is in %s, Q1 in %s; want the Q cluster together", id, top(id), top("Q1"))
		}
	}
	if top("P1") == top("Q1") || top("Z") == top("P1") || top("Z") == top("Q1") {
		t.Errorf("level 0: P1 in %s, Q1 in %s, Z in %s; want three different communities", top("P1"), top("Q1"), top("Z"))
	}

	// Members.Relations are the relations among the members: the P cluster's ten, not the
	// bridge, heaviest first and then by key; fewer when fewer are asked for, with the totals
	// of all of them.
	m := must[graph.Members](t, "CommunityMembers")(s.CommunityMembers(ctx(t), top("P1"), -1))
	var rels []graph.Relation
	var weight float64
	for _, r := range b.Relations {
		if r.Source[0] == 'P' && r.Target[0] == 'P' {
			rels = append(rels, r)
			weight += r.Weight
		}
	}
	heaviestFirst := func(a, b graph.Relation) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	}
	if !slices.IsSortedFunc(m.Relations, heaviestFirst) {
		t.Errorf("relations of the P community are not heaviest first, then by key: %v", m.Relations)
	}
	all := slices.Clone(m.Relations)
	sortRelations(all)
	check(t, "relations of the P community", all, rels)
	totals := func(m graph.Members) [2]float64 {
		return [2]float64{float64(m.RelationCount), math.Round(m.RelationWeight*1e9) / 1e9}
	}
	want := [2]float64{float64(len(rels)), math.Round(weight*1e9) / 1e9}
	check(t, "relation count and weight of the P community", totals(m), want)
	for _, limit := range []int{0, 3} {
		few := must[graph.Members](t, "CommunityMembers")(s.CommunityMembers(ctx(t), top("P1"), limit))
		check(t, fmt.Sprintf("the %d heaviest relations of the P community", limit), few.Relations, m.Relations[:limit])
		check(t, fmt.Sprintf("relation totals with %d relations read", limit), totals(few), want)
		check(t, fmt.Sprintf("members with %d relations read", limit), few.Entities, m.Entities)
	}
	levels, childOf := comms[len(comms)-1].Level+1, 0
	for _, c := range comms {
		if c.Level > 0 {
			childOf++
		}
	}
	entities := len(clusterEntityIDs())
	check(t, "Stats", stats(t, s), counts(map[string]int64{
		"Entity": int64(entities), "Summary": 1, "Community": int64(len(comms)),
		"RELATED": int64(len(b.Relations)), "SUMMARIZED_BY": 2,
		"IN_COMMUNITY": int64(entities * levels), "CHILD_OF": int64(childOf),
	}))
}

// RingOfCliques returns k cliques of size entities each (ids "R<clique>-<node>"), every clique
// joined to the next by one edge and the last to the first. Modularity merges neighbouring
// cliques once they are aggregated (the resolution limit), so hierarchical Leiden yields more
// than one level on it: cliques, then groups of cliques.
func RingOfCliques(k, size int) graph.Batch {
	var b graph.Batch
	name := func(c, i int) string { return fmt.Sprintf("R%02d-%d", c, i) }
	for c := range k {
		for i := range size {
			b.Entities = append(b.Entities, graph.Entity{ID: name(c, i), Name: name(c, i), Type: "thing", Description: "ring node"})
			for j := range i {
				b.Relations = append(b.Relations, graph.Relation{Source: name(c, j), Target: name(c, i), Weight: 1})
			}
		}
		key := graph.NewRelationKey(name(c, 0), name((c+1)%k, 1))
		b.Relations = append(b.Relations, graph.Relation{Source: key.Source, Target: key.Target, Weight: 1})
	}
	return b
}

// testRingOfCliques: the hierarchy over a ring of cliques (usually several levels) is
// consistent, and the finest level never splits a clique.
func testRingOfCliques(t *testing.T, s graph.Store) {
	b := RingOfCliques(16, 4)
	apply(t, s, b)
	comms := computeCommunities(t, s)
	var ids []string
	for _, e := range b.Entities {
		ids = append(ids, e.ID)
	}
	levelOf := checkHierarchy(t, s, comms, ids)
	finest := comms[len(comms)-1].Level
	for _, e := range b.Entities {
		first := e.ID[:len("R00")] + "-0"
		if levelOf[e.ID][finest] != levelOf[first][finest] {
			t.Errorf("finest level %d splits clique %s: %s in %s, %s in %s", finest, e.ID[:3], e.ID, levelOf[e.ID][finest], first, levelOf[first][finest])
		}
	}
}

func sortRelations(rs []graph.Relation) {
	slices.SortFunc(rs, func(a, b graph.Relation) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	})
}

// testCommunityRerun: a second run with the same parameters replaces the communities (reports
// included) instead of adding to them, and gives the same hierarchy.
func testCommunityRerun(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	first := computeCommunities(t, s)
	before := stats(t, s)
	apply(t, s, graph.Batch{Communities: []graph.Community{{ID: first[0].ID, Title: "Old report", Rating: 7}}})

	second := computeCommunities(t, s)
	check(t, "communities of the second run", second, first)
	check(t, "Stats after the second run", stats(t, s), before)
	got := must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), []string{first[0].ID}))
	if len(got) != 1 || got[0].Title != "" || got[0].Rating != 0 {
		t.Errorf("community %s after the re-run = %+v, want it replaced without its report", first[0].ID, got)
	}
}

// testCommunityReports: Batch.Communities sets the report properties and nothing else; a batch
// naming an unknown community fails as a whole.
func testCommunityReports(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	comms := computeCommunities(t, s)
	a, b := comms[0], comms[len(comms)-1]
	withReport := func(c graph.Community, title string, rating float64, emb []float32) graph.Community {
		c.Title, c.Summary, c.Report, c.Rating, c.Embedding = title, "summary of "+title, `{"title":"`+title+`"}`, rating, emb
		return c
	}
	ra := withReport(a, "First", 8.5, []float32{1, 0})
	rb := withReport(b, "Last", 3, []float32{0.6, 0.8})
	// The batch carries only the report properties; the structure must survive it.
	onlyReport := func(c graph.Community) graph.Community {
		return graph.Community{ID: c.ID, Title: c.Title, Summary: c.Summary, Report: c.Report, Rating: c.Rating, Embedding: c.Embedding}
	}
	apply(t, s, graph.Batch{Communities: []graph.Community{onlyReport(ra), onlyReport(rb)}})
	check(t, "communities with reports", must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), []string{a.ID, b.ID})), []graph.Community{ra, rb})

	hits := must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.CommunityEmbedding, []float32{0, 1}, 5))
	checkHits(t, "VectorSearch(community_embedding)", hits, []graph.Hit{{ID: b.ID, Score: 0.9}, {ID: a.ID, Score: 0.5}})

	bad := graph.Batch{
		Communities: []graph.Community{onlyReport(withReport(a, "Changed", 1, nil)), {ID: "99-99", Title: "unknown"}},
		Entities:    []graph.Entity{{ID: "NEW", Name: "New", Type: "thing"}},
	}
	if err := s.Apply(ctx(t), bad); err == nil {
		t.Fatal("Apply with a report for an unknown community succeeded")
	}
	check(t, "communities after the failed batch", must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), []string{a.ID, b.ID})), []graph.Community{ra, rb})
	if got := must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"NEW"})); len(got) != 0 {
		t.Errorf("the failed batch wrote %v", got)
	}
}

// testLocalCommunities: ExpandLocal ranks the communities of every level that contain seeds by
// the number of seeds they contain, then rating, then id, and names those seeds.
func testLocalCommunities(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	comms := computeCommunities(t, s)
	// Distinct ratings for some communities, so that ties on seeds are broken by rating.
	var reports []graph.Community
	for i, c := range comms {
		if i%2 == 0 {
			reports = append(reports, graph.Community{ID: c.ID, Title: "report " + c.ID, Rating: float64(i)})
		}
	}
	apply(t, s, graph.Batch{Communities: reports})

	seeds := []string{"P2", "P3", "Q2", "NOBODY"}
	want := localCommunities(t, s, seeds)
	if want[0].Score != 2 {
		t.Fatalf("no community holds both P seeds: %v", want)
	}
	for _, top := range []int{1, 2, len(want), len(want) + 5} {
		lc, err := s.ExpandLocal(ctx(t), seeds, graph.LocalOptions{TopCommunities: top})
		if err != nil {
			t.Fatalf("ExpandLocal: %v", err)
		}
		check(t, "Communities with TopCommunities "+itoa(top), lc.Communities, want[:min(top, len(want))])
	}
}

// localCommunities is what ExpandLocal should rank for seeds, from every community's members.
func localCommunities(t *testing.T, s graph.Store, seeds []string) []graph.ScoredCommunity {
	t.Helper()
	var want []graph.ScoredCommunity
	for _, c := range must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1)) {
		m := must[graph.Members](t, "CommunityMembers")(s.CommunityMembers(ctx(t), c.ID, -1))
		var in []string
		for _, e := range m.Entities {
			if slices.Contains(seeds, e.ID) {
				in = append(in, e.ID)
			}
		}
		slices.Sort(in)
		if len(in) > 0 {
			want = append(want, graph.ScoredCommunity{Community: c, Score: float64(len(in)), Seeds: in})
		}
	}
	slices.SortFunc(want, func(a, b graph.ScoredCommunity) int {
		return cmp.Or(-cmp.Compare(a.Score, b.Score), -cmp.Compare(a.Rating, b.Rating), cmp.Compare(a.ID, b.ID))
	})
	return want
}

// testLocalDistinctCommunities: with DistinctCommunities, ExpandLocal keeps of the communities
// holding the same seeds (a clique's community at every level of a ring of cliques) the best
// ranked, and TopCommunities counts those.
func testLocalDistinctCommunities(t *testing.T, s graph.Store) {
	apply(t, s, RingOfCliques(16, 4))
	comms := computeCommunities(t, s)
	var reports []graph.Community
	for i, c := range comms {
		reports = append(reports, graph.Community{ID: c.ID, Title: "report " + c.ID, Rating: float64(i % 3)})
	}
	apply(t, s, graph.Batch{Communities: reports})
	seeds := []string{"R00-2", "R00-3", "R08-2", "R09-1"}
	want := localCommunities(t, s, seeds)
	var distinct []graph.ScoredCommunity
	seen := map[string]bool{}
	for _, c := range want {
		if key := strings.Join(c.Seeds, "\x00"); !seen[key] {
			seen[key] = true
			distinct = append(distinct, c)
		}
	}
	if len(distinct) == len(want) || len(distinct) < 2 {
		t.Fatalf("the ring needs communities with the same seeds and ones with others: %v", want)
	}
	for _, top := range []int{1, 2, len(distinct), len(distinct) + 5} {
		lc, err := s.ExpandLocal(ctx(t), seeds, graph.LocalOptions{TopCommunities: top, DistinctCommunities: true})
		if err != nil {
			t.Fatalf("ExpandLocal: %v", err)
		}
		check(t, "distinct communities with TopCommunities "+itoa(top), lc.Communities, distinct[:min(top, len(distinct))])
	}
}

// updateCommunities runs UpdateCommunities with the default parameters and checks the order of
// the report and the counts against the stored communities.
func updateCommunities(t *testing.T, s graph.Store, changed []string) graph.CommunityUpdate {
	t.Helper()
	u, err := s.UpdateCommunities(ctx(t), graph.DefaultLeidenParams(), changed)
	if err != nil {
		t.Fatalf("UpdateCommunities: %v", err)
	}
	if !slices.IsSortedFunc(u.Report, compareCommunities) {
		t.Errorf("UpdateCommunities report is not ordered by level then community id: %v", u.Report)
	}
	all := must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1))
	if u.Total != len(all) || u.Kept > u.Total || u.Kept < 0 || u.Removed < 0 {
		t.Errorf("UpdateCommunities: Total %d, Kept %d, Removed %d; %d communities stored", u.Total, u.Kept, u.Removed, len(all))
	}
	byID := map[string]graph.Community{}
	for _, c := range all {
		byID[c.ID] = c
	}
	for _, c := range u.Report {
		stored, ok := byID[c.ID]
		if !ok {
			t.Errorf("reported community %s is not stored", c.ID)
			continue
		}
		if c.Title != "" || c.Report != "" || c.Embedding != nil {
			t.Errorf("reported community %s comes with a report: %+v", c.ID, c)
		}
		stored.Title, stored.Summary, stored.Report, stored.Rating, stored.Embedding = "", "", "", 0, nil
		check(t, "reported community "+c.ID, c, stored)
	}
	return u
}

// reportAll writes a report for every stored community, named after its id.
func reportAll(t *testing.T, s graph.Store) []graph.Community {
	t.Helper()
	var reports []graph.Community
	for _, c := range must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1)) {
		reports = append(reports, graph.Community{ID: c.ID, Title: "report " + c.ID, Summary: "summary", Report: "{}", Rating: 4})
	}
	apply(t, s, graph.Batch{Communities: reports})
	return must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1))
}

// checkParents checks the stored hierarchy over the entities ids: every entity is in one
// community of every level, sizes are member counts, and every community below level 0 has a
// parent one level coarser holding its members (and level 0 none). It returns the member ids
// of every community.
func checkParents(t *testing.T, s graph.Store, ids []string) map[string][]string {
	t.Helper()
	all := must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1))
	if len(all) == 0 {
		t.Fatal("no communities stored")
	}
	levels := all[len(all)-1].Level + 1
	byID := map[string]graph.Community{}
	members := map[string][]string{}
	levelOf := map[string]map[int]string{}
	for _, c := range all {
		byID[c.ID] = c
		ents := must[map[string][]graph.Entity](t, "CommunityEntities")(s.CommunityEntities(ctx(t), []string{c.ID}))[c.ID]
		if len(ents) != c.Size || c.Size == 0 {
			t.Errorf("community %s: Size %d, %d members", c.ID, c.Size, len(ents))
		}
		for _, e := range ents {
			members[c.ID] = append(members[c.ID], e.ID)
			if levelOf[e.ID] == nil {
				levelOf[e.ID] = map[int]string{}
			}
			if prev, dup := levelOf[e.ID][c.Level]; dup {
				t.Errorf("entity %s is in %s and %s, both of level %d", e.ID, prev, c.ID, c.Level)
			}
			levelOf[e.ID][c.Level] = c.ID
		}
	}
	for _, id := range ids {
		if len(levelOf[id]) != levels {
			t.Errorf("entity %s has communities at %d of %d levels: %v", id, len(levelOf[id]), levels, levelOf[id])
		}
	}
	if len(levelOf) != len(ids) {
		t.Errorf("%d entities have communities, want %d", len(levelOf), len(ids))
	}
	for _, c := range all {
		if c.Level == 0 {
			if c.ParentID != "" {
				t.Errorf("level-0 community %s has parent %q", c.ID, c.ParentID)
			}
			continue
		}
		parent, ok := byID[c.ParentID]
		if !ok || parent.Level != c.Level-1 {
			t.Errorf("community %s (level %d) has parent %q, want a community of level %d", c.ID, c.Level, c.ParentID, c.Level-1)
			continue
		}
		for _, e := range members[c.ID] {
			if levelOf[e][parent.Level] != parent.ID {
				t.Errorf("entity %s is in %s but not in its parent %s", e, c.ID, parent.ID)
			}
		}
	}
	return members
}

// testUpdateUnchanged: on the graph the communities were computed from, with nothing changed,
// UpdateCommunities keeps every community with its id and report and reports none.
func testUpdateUnchanged(t *testing.T, s graph.Store) {
	b := RingOfCliques(16, 4)
	apply(t, s, b)
	computeCommunities(t, s)
	before := reportAll(t, s)
	st := stats(t, s)
	u := updateCommunities(t, s, nil)
	if len(u.Report) != 0 || u.Kept != len(before) || u.Total != len(before) || u.Removed != 0 || u.Fresh {
		t.Errorf("UpdateCommunities of an unchanged graph: %d reported, Total %d, Kept %d, Removed %d, Fresh %v; want none reported and all %d kept",
			len(u.Report), u.Total, u.Kept, u.Removed, u.Fresh, len(before))
	}
	check(t, "communities after the update", must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1)), before)
	check(t, "Stats after the update", stats(t, s), st)
}

// testUpdateNewPair: a new pair of related entities, apart from the rest, gets communities of
// its own, reported; every stored community is kept with its report.
func testUpdateNewPair(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	computeCommunities(t, s)
	before := reportAll(t, s)
	apply(t, s, graph.Batch{
		Entities: []graph.Entity{
			{ID: "N1", Name: "N1", Type: "thing", Description: "new"},
			{ID: "N2", Name: "N2", Type: "thing", Description: "new"},
		},
		Relations: []graph.Relation{{Source: "N1", Target: "N2", Description: "pair", Weight: 1}},
	})
	u := updateCommunities(t, s, []string{"N1", "N2"})
	members := checkParents(t, s, append(clusterEntityIDs(), "N1", "N2"))
	if u.Kept != len(before) || u.Removed != 0 {
		t.Errorf("Kept %d, Removed %d; want all %d stored communities kept", u.Kept, u.Removed, len(before))
	}
	got := must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), ids(before)))
	check(t, "stored communities after the update", got, before)
	levels := before[len(before)-1].Level + 1
	if len(u.Report) != levels || u.Total != len(before)+levels {
		t.Errorf("reported %v, Total %d; want one new community per level (%d) over %d", u.Report, u.Total, levels, len(before))
	}
	for _, c := range u.Report {
		check(t, "members of reported community "+c.ID, members[c.ID], []string{"N1", "N2"})
	}
}

// testUpdateDeletedEntity: every community that held a deleted entity is reported again or
// removed; the hierarchy stays consistent.
func testUpdateDeletedEntity(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	computeCommunities(t, s)
	before := reportAll(t, s)
	var held []string
	for id, ms := range communityMembers(t, s, before) {
		if slices.Contains(ms, "P5") {
			held = append(held, id)
		}
	}
	apply(t, s, graph.Batch{DeleteEntities: []string{"P5"}})
	u := updateCommunities(t, s, []string{"P5", "P1", "P2", "P3", "P4"})
	checkParents(t, s, slices.DeleteFunc(clusterEntityIDs(), func(id string) bool { return id == "P5" }))
	stored := map[string]bool{}
	for _, c := range must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1)) {
		stored[c.ID] = true
	}
	for _, id := range held {
		if stored[id] && !slices.ContainsFunc(u.Report, func(c graph.Community) bool { return c.ID == id }) {
			t.Errorf("community %s held the deleted entity and is neither removed nor reported: %v", id, u.Report)
		}
	}
	if u.Removed == 0 {
		t.Errorf("Removed %d; the communities of the deleted entity lost a member", u.Removed)
	}
}

// testUpdateChangedEntity: a rewritten entity has its communities of every level reported
// again, the rest kept with their reports.
func testUpdateChangedEntity(t *testing.T, s graph.Store) {
	b := RingOfCliques(16, 4)
	apply(t, s, b)
	computeCommunities(t, s)
	before := reportAll(t, s)
	apply(t, s, graph.Batch{Entities: []graph.Entity{{ID: "R05-2", Name: "R05-2", Type: "thing", Description: "rewritten"}}})
	u := updateCommunities(t, s, []string{"R05-2"})
	var want []graph.Community
	for id, ms := range communityMembers(t, s, before) {
		if slices.Contains(ms, "R05-2") {
			c := must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), []string{id}))[0]
			c.Title, c.Summary, c.Report, c.Rating, c.Embedding = "", "", "", 0, nil
			want = append(want, c)
		}
	}
	slices.SortFunc(want, compareCommunities)
	check(t, "reported communities", u.Report, want)
	if levels := before[len(before)-1].Level + 1; len(want) != levels {
		t.Errorf("R05-2 is in %d communities, want one per level (%d)", len(want), levels)
	}
	if u.Kept != len(before) || u.Total != len(before) || u.Removed != 0 {
		t.Errorf("Total %d, Kept %d, Removed %d; want all %d kept", u.Total, u.Kept, u.Removed, len(before))
	}
	var ents []string
	for _, e := range b.Entities {
		ents = append(ents, e.ID)
	}
	checkParents(t, s, ents)
	// The communities not reported keep their reports.
	for _, c := range must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), ids(before))) {
		if c.Title != "report "+c.ID {
			t.Errorf("community %s lost its report: %+v", c.ID, c)
		}
	}
}

func ids(comms []graph.Community) []string {
	var out []string
	for _, c := range comms {
		out = append(out, c.ID)
	}
	return out
}

// communityMembers returns the member ids of each of comms.
func communityMembers(t *testing.T, s graph.Store, comms []graph.Community) map[string][]string {
	t.Helper()
	m := must[map[string][]graph.Entity](t, "CommunityEntities")(s.CommunityEntities(ctx(t), ids(comms)))
	out := map[string][]string{}
	for id, es := range m {
		for _, e := range es {
			out[id] = append(out[id], e.ID)
		}
	}
	return out
}
