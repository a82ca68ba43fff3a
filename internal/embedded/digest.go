package embedded

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// digestPart is the number of communities whose named entities and kept relations one read
// looks up (CommunityDigests).
const digestPart = 256

// CommunityDigests implements graph.CommunityDigester. It reads the store in one pass: the ids
// and degrees of all entities, the members of the communities and the keys and weights of all
// relations, each sequentially, and keeps per community only its counts, its topEntities
// members and maxRelations relations (as entity ranks); then it reads the entities and
// relations the digests name, digestPart communities at a time. Reading each community's
// members and relations apart (CommunityMembers) visits the rows of every entity and relation
// once per level, scattered over the database: on the mix corpus (5 300 communities over six
// levels) most of the reports stage was SQLite fetching pages. It holds the entity ids, one
// 64-bit number per membership and, per community, its counts and kept ranks (about 130 bytes).
func (s *Store) CommunityDigests(ctx context.Context, communityIDs []string, topEntities, maxRelations int, fn func(i int, d graph.CommunityDigest) error) error {
	const what = "community digests"
	if topEntities < 0 || maxRelations < 0 {
		return fmt.Errorf("%s: negative limits (%d entities, %d relations)", what, topEntities, maxRelations)
	}
	if len(communityIDs) == 0 {
		return ctxErr(ctx, what)
	}
	p := digestPass{topEntities: topEntities, maxRelations: maxRelations}
	if err := s.read(ctx, what, func(tx *sql.Tx) error { return p.scan(ctx, tx, communityIDs) }); err != nil {
		return err
	}
	for start := 0; start < len(communityIDs); start += digestPart {
		end := min(start+digestPart, len(communityIDs))
		var part []graph.CommunityDigest
		err := s.read(ctx, what, func(tx *sql.Tx) error {
			var err error
			part, err = p.lookup(ctx, tx, start, end)
			return err
		})
		if err != nil {
			return err
		}
		for i, d := range part {
			if err := fn(start+i, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// digestEntitiesSQL selects the id and degree of every entity.
func digestEntitiesSQL() string { return `SELECT id, degree FROM entities` }

// digestMembersSQL selects the members of the communities ?1 (a JSON array of ids), each with
// the index of its community.
func digestMembersSQL() string {
	return `
		SELECT k.key, cm.entity_id FROM json_each(?1) k
		JOIN community_members cm ON cm.community_id = k.value`
}

// digestRelationsSQL selects the key and weight of every relation, in key order (the primary
// key's: SQLite does not sort).
func digestRelationsSQL() string {
	return `SELECT source, target, weight FROM relations ORDER BY source, target`
}

// entitiesByIDSQL selects the entities ?1 (a JSON array of ids), without their embeddings.
func entitiesByIDSQL() string {
	return `SELECT ` + entityColsNoEmbedding("e") + ` FROM json_each(?1) k JOIN entities e ON e.id = k.value`
}

// relationsByKeySQL selects the relations of ?1 (a JSON array of [source, target]), each with the
// index of its key.
func relationsByKeySQL() string {
	return `
		SELECT ` + relationCols("r") + `, k.key
		FROM json_each(?1) k JOIN relations r ON r.source = k.value ->> 0 AND r.target = k.value ->> 1`
}

// relRef is a relation a digest keeps: its weight and the ranks of its ends.
type relRef struct {
	weight         float64
	source, target int32
}

// digestPass holds what CommunityDigests keeps between its scan and its lookups. Entities are
// known by rank: their index in ids, which is sorted, so that ranks order as ids do.
type digestPass struct {
	topEntities, maxRelations int

	ids    []string // entity ids, sorted
	degree []int32  // by rank

	members  []int32   // per community
	top      []int32   // topEntities ranks per community, most connected first
	nTop     []int32   // per community
	relCount []int32   // per community
	weight   []float64 // per community
	rels     []relRef  // maxRelations per community, heaviest first
	nRels    []int32   // per community
}

// scan reads the entities, the memberships of communityIDs and the relations.
func (p *digestPass) scan(ctx context.Context, tx *sql.Tx, communityIDs []string) error {
	if err := p.scanEntities(ctx, tx); err != nil {
		return err
	}
	n := len(communityIDs)
	p.members, p.nTop, p.relCount, p.nRels = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	p.top, p.weight, p.rels = make([]int32, n*p.topEntities), make([]float64, n), make([]relRef, n*p.maxRelations)
	start, pairs, err := p.scanMembers(ctx, tx, communityIDs)
	if err != nil {
		return err
	}
	return p.scanRelations(ctx, tx, start, pairs)
}

// scanEntities reads the id and degree of every entity, in table order, and sorts them by id.
func (p *digestPass) scanEntities(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, digestEntitiesSQL())
	if err != nil {
		return err
	}
	defer rows.Close()
	type entity struct {
		id     string
		degree int32
	}
	var all []entity
	for rows.Next() {
		var e entity
		if err := rows.Scan(&e.id, &e.degree); err != nil {
			return err
		}
		all = append(all, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b entity) int { return strings.Compare(a.id, b.id) })
	p.ids, p.degree = make([]string, len(all)), make([]int32, len(all))
	for i, e := range all {
		p.ids[i], p.degree[i] = e.id, e.degree
	}
	return nil
}

// rank returns the rank of the entity with id b, or -1 when there is none.
func (p *digestPass) rank(b []byte) int32 {
	lo, hi := 0, len(p.ids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.ids[m] < string(b) { // the conversion in a comparison does not copy
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(p.ids) && p.ids[lo] == string(b) {
		return int32(lo)
	}
	return -1
}

// rankOf is rank for an id held as a string.
func (p *digestPass) rankOf(id string) int32 {
	if i, ok := slices.BinarySearch(p.ids, id); ok {
		return int32(i)
	}
	return -1
}

// moreConnected orders ranks by degree, highest first, then by id.
func (p *digestPass) moreConnected(a, b int32) int {
	return cmp.Or(cmp.Compare(p.degree[b], p.degree[a]), cmp.Compare(a, b))
}

// scanMembers reads the members of communityIDs, counts them and keeps each community's most
// connected ones. It returns each entity's communities, by index in communityIDs and in
// ascending order: those of rank r are the low 32 bits of pairs[start[r]:start[r+1]], sorted
// pairs of rank<<32 | community (8 bytes a membership).
func (p *digestPass) scanMembers(ctx context.Context, tx *sql.Tx, communityIDs []string) (start []int32, pairs []uint64, err error) {
	rows, err := tx.QueryContext(ctx, digestMembersSQL(), encodeStrings(communityIDs))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var c int
	var id sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&c, &id); err != nil {
			return nil, nil, err
		}
		r := p.rank(id)
		if r < 0 || c < 0 || c >= len(communityIDs) {
			continue // a member that is not an entity is not one (memberEntitiesSQL joins)
		}
		pairs = append(pairs, uint64(r)<<32|uint64(c))
		p.members[c]++
		p.keepEntity(c, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	slices.Sort(pairs)
	start = make([]int32, len(p.ids)+1)
	for _, pr := range pairs {
		start[pr>>32+1]++
	}
	for r := range p.ids {
		start[r+1] += start[r]
	}
	return start, pairs, nil
}

// keepEntity offers rank r to the most connected members of community c.
func (p *digestPass) keepEntity(c int, r int32) {
	k := p.topEntities
	if k == 0 {
		return
	}
	top := p.top[c*k : c*k+int(p.nTop[c])]
	if len(top) == k && p.moreConnected(r, top[k-1]) > 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(top, r, p.moreConnected)
	if len(top) < k {
		p.nTop[c]++
		top = top[:len(top)+1]
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = r
}

// scanRelations reads the keys and weights of all relations in key order and adds each to the
// communities holding both its ends, the order CommunityMembers sums weights in.
func (p *digestPass) scanRelations(ctx context.Context, tx *sql.Tx, start []int32, pairs []uint64) error {
	rows, err := tx.QueryContext(ctx, digestRelationsSQL())
	if err != nil {
		return err
	}
	defer rows.Close()
	var source, target sql.RawBytes
	var w float64
	for rows.Next() {
		if err := rows.Scan(&source, &target, &w); err != nil {
			return err
		}
		s, t := p.rank(source), p.rank(target)
		if s < 0 || t < 0 {
			continue
		}
		a, b := pairs[start[s]:start[s+1]], pairs[start[t]:start[t+1]]
		for len(a) > 0 && len(b) > 0 {
			ca, cb := uint32(a[0]), uint32(b[0])
			switch {
			case ca < cb:
				a = a[1:]
			case ca > cb:
				b = b[1:]
			default:
				c := int(ca)
				p.relCount[c]++
				p.weight[c] += w
				p.keepRelation(c, relRef{weight: w, source: s, target: t})
				a, b = a[1:], b[1:]
			}
		}
	}
	return rows.Err()
}

// heavier orders kept relations as heavierFirst orders relations: by weight, heaviest first,
// then by key (ranks order as ids).
func heavier(a, b relRef) int {
	return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.source, b.source), cmp.Compare(a.target, b.target))
}

// keepRelation offers r to the heaviest relations of community c.
func (p *digestPass) keepRelation(c int, r relRef) {
	k := p.maxRelations
	if k == 0 {
		return
	}
	top := p.rels[c*k : c*k+int(p.nRels[c])]
	if len(top) == k && heavier(r, top[k-1]) > 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(top, r, heavier)
	if len(top) < k {
		p.nRels[c]++
		top = top[:len(top)+1]
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = r
}

// lookup reads the entities and relations the digests of communities [from, to) name and
// returns the digests.
func (p *digestPass) lookup(ctx context.Context, tx *sql.Tx, from, to int) ([]graph.CommunityDigest, error) {
	entities := map[int32]graph.Entity{}
	relations := map[[2]int32]graph.Relation{}
	var ids []string
	var keys []graph.Relation
	var keyRanks [][2]int32
	for c := from; c < to; c++ {
		for _, r := range p.top[c*p.topEntities : c*p.topEntities+int(p.nTop[c])] {
			if _, ok := entities[r]; !ok {
				entities[r] = graph.Entity{}
				ids = append(ids, p.ids[r])
			}
		}
		for _, rel := range p.rels[c*p.maxRelations : c*p.maxRelations+int(p.nRels[c])] {
			for _, r := range [2]int32{rel.source, rel.target} {
				if _, ok := entities[r]; !ok {
					entities[r] = graph.Entity{}
					ids = append(ids, p.ids[r])
				}
			}
			key := [2]int32{rel.source, rel.target}
			if _, ok := relations[key]; !ok {
				relations[key] = graph.Relation{}
				keys = append(keys, graph.Relation{Source: p.ids[rel.source], Target: p.ids[rel.target]})
				keyRanks = append(keyRanks, key)
			}
		}
	}
	if len(ids) > 0 {
		found, err := queryAll(ctx, tx, scanEntity, entitiesByIDSQL(), encodeStrings(ids))
		if err != nil {
			return nil, err
		}
		if len(found) != len(ids) {
			return nil, fmt.Errorf("read %d of %d member entities", len(found), len(ids))
		}
		for _, e := range found {
			r := p.rankOf(e.ID)
			if r < 0 {
				return nil, fmt.Errorf("entity %q read by id is not one of the scan", e.ID)
			}
			entities[r] = e
		}
	}
	if len(keys) > 0 {
		found, err := relationsByKey(ctx, tx, keys)
		if err != nil {
			return nil, err
		}
		for i, rel := range found { // in the order of keys
			relations[keyRanks[i]] = rel
		}
	}
	out := make([]graph.CommunityDigest, 0, to-from)
	for c := from; c < to; c++ {
		d := graph.CommunityDigest{
			EntityCount:    int(p.members[c]),
			RelationCount:  int(p.relCount[c]),
			RelationWeight: p.weight[c],
		}
		top := p.top[c*p.topEntities : c*p.topEntities+int(p.nTop[c])]
		for _, r := range top {
			d.Entities = append(d.Entities, entities[r])
		}
		var ends []int32
		for _, rel := range p.rels[c*p.maxRelations : c*p.maxRelations+int(p.nRels[c])] {
			d.Relations = append(d.Relations, relations[[2]int32{rel.source, rel.target}])
			for _, r := range [2]int32{rel.source, rel.target} {
				if !slices.Contains(top, r) && !slices.Contains(ends, r) {
					ends = append(ends, r)
				}
			}
		}
		slices.Sort(ends)
		for _, r := range ends {
			d.Entities = append(d.Entities, entities[r])
		}
		out = append(out, d)
	}
	return out, nil
}

var _ graph.CommunityDigester = (*Store)(nil)

// relationsByKey reads the relations of keys (only Source and Target are read), in their order.
func relationsByKey(ctx context.Context, q querier, keys []graph.Relation) ([]graph.Relation, error) {
	pairs := make([][2]string, len(keys))
	for i, k := range keys {
		pairs[i] = [2]string{k.Source, k.Target}
	}
	arg, err := json.Marshal(pairs)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, relationsByKeySQL(), string(arg))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]graph.Relation, len(keys))
	found := 0
	for rows.Next() {
		var i int
		r, err := scanRelation(rows, &i)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(out) {
			return nil, fmt.Errorf("relation key index %d out of range", i)
		}
		out[i] = r
		found++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if found != len(keys) {
		return nil, fmt.Errorf("read %d of %d relations by key", found, len(keys))
	}
	return out, nil
}
