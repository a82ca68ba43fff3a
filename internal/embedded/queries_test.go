package embedded

import (
	"database/sql"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestQueryPlans checks with EXPLAIN QUERY PLAN that the statements of the query paths reach
// the graph's tables through indexes: a plan step "SCAN <table>" over a graph table reads all of
// it, whatever the size of the answer. Scans of json_each (the ids passed in), of CTEs and
// subqueries built from them, and the FTS5 index's own lookup are fine.
func TestQueryPlans(t *testing.T) {
	s := openTemp(t)
	// Plans depend on the schema, and SQLite has no statistics (strata never runs ANALYZE), so
	// a small store shows the plan a large one gets.
	if err := s.Apply(t.Context(), benchBatch(rand.New(rand.NewPCG(1, 2)), "d", 10, 20, 4)); err != nil {
		t.Fatal(err)
	}
	allQ, allArgs := communitiesByLevelSQL(-1)
	levelQ, levelArgs := communitiesByLevelSQL(1)
	chunkText, _ := textQuery(graph.ChunkText)
	entityText, _ := textQuery(graph.EntityText)
	seeds := `["d-e1","d-e2"]`
	pairs := `[["d-e1","d-e2"]]`
	cases := []struct {
		name  string
		query string
		args  []any
		// scans lists the graph tables the statement may read whole (only the all-levels
		// listing, which returns every row anyway).
		scans []string
	}{
		{"ExpandLocal chunks", expandChunksSQL(schemaVersion), []any{seeds, 10}, nil},
		{"ExpandLocal communities", expandCommunitiesSQL(schemaVersion), []any{seeds, 10}, nil},
		{"ExpandLocal communities before version 6", expandCommunitiesSQL(5), []any{seeds, 10}, nil},
		{"ExpandLocal relations", expandRelationsSQL(), []any{seeds, true, 10}, nil},
		{"DocumentLinks", documentLinksSQL(), []any{`["d-c1"]`, 5}, nil},
		{"CommunityMembers entities", memberEntitiesSQL(), []any{"c"}, nil},
		{"CommunityMembers relations", memberRelationsSQL(), []any{"c"}, nil},
		{"CommunityMembers children", childCommunitiesSQL(), []any{"c"}, nil},
		{"CommunityEntities", communityEntitiesSQL(), []any{`["0-1","1-2"]`}, nil},
		{"CommunityDigests entities", digestEntitiesSQL(), nil, []string{"entities"}},
		{"CommunityDigests members", digestMembersSQL(), []any{`["0-1","1-2"]`}, nil},
		{"CommunityDigests relations", digestRelationsSQL(), nil, []string{"relations"}},
		{"CommunityDigests entities by id", entitiesByIDSQL(), []any{seeds}, nil},
		{"CommunityDigests relations by key", relationsByKeySQL(), []any{pairs}, nil},
		{"CommunitiesByLevel one level", levelQ, levelArgs, nil},
		{"CommunitiesByLevel all levels", allQ, allArgs, []string{"communities"}},
		{"ShortestPaths SUMMARIZED_BY steps", summaryStepsSQL(), []any{pairs}, nil},
		{"ShortestPaths RELATED steps", relatedStepsSQL(), []any{pairs}, nil},
		{"TextSearch chunks", chunkText, []any{`"topic7"`, 10}, nil},
		{"TextSearch entities", entityText, []any{`"d"`, 10}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := queryPlan(t, s, tc.query, tc.args...)
			for _, table := range scannedTables(tc.query, plan) {
				if !slices.Contains(tc.scans, table) {
					t.Errorf("the plan reads all of %s:\n%s", table, strings.Join(plan, "\n"))
				}
			}
		})
	}
}

// TestWholeReadsUseCoveringIndexes: the reads of every entity or community that a structure
// update makes come from an index that holds what they select, not from the rows beside
// descriptions, reports and embeddings.
func TestWholeReadsUseCoveringIndexes(t *testing.T) {
	s := openTemp(t)
	if err := s.Apply(t.Context(), benchBatch(rand.New(rand.NewPCG(1, 2)), "d", 10, 20, 4)); err != nil {
		t.Fatal(err)
	}
	for name, query := range map[string]string{
		"CommunityDigests entities": digestEntitiesSQL(),
		"stored communities":        storedCommunitiesSQL,
	} {
		plan := strings.Join(queryPlan(t, s, query), "\n")
		if !strings.Contains(plan, "USING COVERING INDEX") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: plan\n%s\nwant a covering index read in order", name, plan)
		}
	}
}

// scannedTables returns the graph tables that plan scans in full. A plan names a table by its
// alias in query when it has one, so aliases are resolved from the query's FROM and JOIN clauses.
func scannedTables(query string, plan []string) []string {
	alias := map[string]string{}
	for _, m := range regexp.MustCompile(`(?i)(?:FROM|JOIN)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?`).FindAllStringSubmatch(query, -1) {
		alias[m[1]] = m[1]
		if m[2] != "" && !isKeyword(m[2]) {
			alias[m[2]] = m[1]
		}
	}
	// The tables whose size grows with the graph.
	graphTables := []string{"documents", "chunks", "entities", "relations", "mentions", "summary_links", "communities", "community_members"}
	var out []string
	for _, line := range plan {
		m := regexp.MustCompile(`^SCAN (\w+)`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if table, ok := alias[m[1]]; ok && slices.Contains(graphTables, table) {
			out = append(out, table)
		}
	}
	return out
}

func isKeyword(w string) bool {
	switch strings.ToUpper(w) {
	case "ON", "JOIN", "WHERE", "GROUP", "ORDER", "LEFT", "INNER", "CROSS", "USING", "LIMIT", "UNION":
		return true
	}
	return false
}

// queryPlan returns the detail column of EXPLAIN QUERY PLAN for query.
func queryPlan(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(plan) == 0 {
		t.Fatal("empty plan")
	}
	return plan
}

func TestScannedTablesSeesAFullScan(t *testing.T) {
	// The checker itself must be able to fail: the old CommunitiesByLevel statement scans.
	s := openTemp(t)
	old := `SELECT ` + communityCols("c") + ` FROM communities c WHERE ? < 0 OR c.level = ? ORDER BY c.level, c.community_id`
	if got := scannedTables(old, queryPlan(t, s, old, 1, 1)); !slices.Contains(got, "communities") {
		t.Errorf("the OR-ed level statement was not seen scanning communities (got %v)", got)
	}
}

// TestExpandCommunitiesRanking checks that the version 6 statement, which ranks candidates from
// communities_rating before reading rows, returns exactly what the statement before it returns,
// ties in seed counts and ratings included.
func TestExpandCommunitiesRanking(t *testing.T) {
	s := openTemp(t)
	if err := s.Apply(t.Context(), storetest.RingOfCliques(12, 5)); err != nil {
		t.Fatal(err)
	}
	comms, err := s.ComputeCommunities(t.Context(), graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var b graph.Batch
	for _, c := range comms {
		c.Rating = float64(rng.IntN(3)) // few values: many ties
		c.Report = strings.Repeat("report ", 400)
		b.Communities = append(b.Communities, c)
	}
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range storetest.RingOfCliques(12, 5).Entities {
		ids = append(ids, e.ID)
	}
	for i := range 30 {
		var seeds []string
		for range 1 + rng.IntN(12) {
			seeds = append(seeds, ids[rng.IntN(len(ids))])
		}
		set := encodeStrings(graph.UniqueIDs(seeds))
		limit := 1 + i%8
		var got, want []graph.ScoredCommunity
		if err := s.read(t.Context(), "compare", func(tx *sql.Tx) (err error) {
			if got, err = queryAll(t.Context(), tx, scanScoredCommunity, expandCommunitiesSQL(6), set, limit); err != nil {
				return err
			}
			want, err = queryAll(t.Context(), tx, scanScoredCommunity, expandCommunitiesSQL(5), set, limit)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("seeds %s limit %d: version 6 statement = %v\nbefore = %v", set, limit, got, want)
		}
	}
}
