package cypher

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// digestPage is the number of communities one read_community_digests statement digests. A row
// holds a few entities and relations whatever the size of its community, so a page is small on
// the wire; the server's work for it is the walk over the members' relations that
// CommunityMembers makes for each community apart, without a round trip per community.
const digestPage = 256

var _ graph.CommunityDigester = (*Store)(nil)

// CommunityDigests implements graph.CommunityDigester with one statement (in a read transaction
// of its own) per digestPage communities, where reading each community's members
// (CommunityMembers) takes three statements a community. fn runs between the reads, outside
// any transaction, so that it may write.
func (s *Store) CommunityDigests(ctx context.Context, communityIDs []string, topEntities, maxRelations int, fn func(i int, d graph.CommunityDigest) error) error {
	if topEntities < 0 || maxRelations < 0 {
		return fmt.Errorf("cypher: community digests: negative limits (%d entities, %d relations)", topEntities, maxRelations)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for start := 0; start < len(communityIDs); start += digestPage {
		end := min(start+digestPage, len(communityIDs))
		part, err := s.readDigests(ctx, communityIDs[start:end], topEntities, maxRelations)
		if err != nil {
			return fmt.Errorf("cypher: community digests %d-%d of %d: %w", start, end, len(communityIDs), err)
		}
		for i, d := range part {
			if err := fn(start+i, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDigests reads the digests of ids, in their order; an unknown community's is empty.
func (s *Store) readDigests(ctx context.Context, ids []string, topEntities, maxRelations int) ([]graph.CommunityDigest, error) {
	rows, err := s.readRows(ctx, qReadCommunityDigests, map[string]any{
		"ids": ids, "top": int64(topEntities), "limit": int64(maxRelations),
	})
	if err != nil {
		return nil, err
	}
	out := make([]graph.CommunityDigest, len(ids))
	for _, row := range rows {
		i, d, err := decodeDigest(row)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(ids) {
			return nil, fmt.Errorf("%s: community index %d out of range", qReadCommunityDigests, i)
		}
		out[i] = d
	}
	return out, nil
}

// decodeDigest decodes a row of read_community_digests: the index of its community and its
// digest. The digest's entities are the most connected members, as the statement orders them,
// then the ends of the relations that are not among them, by id (graph.CommunityDigest).
func decodeDigest(row map[string]any) (int, graph.CommunityDigest, error) {
	f := &fields{m: row}
	i := int(f.int("i"))
	d := graph.CommunityDigest{
		EntityCount:    int(f.int("members")),
		RelationCount:  int(f.int("count")),
		RelationWeight: f.float("weight"),
	}
	top, err := decodeList(f, "entities", decodeEntity)
	if err != nil {
		return 0, d, fmt.Errorf("%s: entities: %w", qReadCommunityDigests, err)
	}
	rels := f.maps("relations")
	if f.err != nil {
		return 0, d, fmt.Errorf("%s: %w", qReadCommunityDigests, f.err)
	}
	var ends []graph.Entity
	for _, m := range rels {
		r, err := decodeRelation(m)
		if err != nil {
			return 0, d, fmt.Errorf("%s: relations: %w", qReadCommunityDigests, err)
		}
		d.Relations = append(d.Relations, r)
		rf := &fields{m: m}
		for _, key := range []string{"sourceEntity", "targetEntity"} {
			e, err := decodeEntity(rf.sub(key).m)
			if err == nil {
				err = rf.err
			}
			if err != nil {
				return 0, d, fmt.Errorf("%s: relation end: %w", qReadCommunityDigests, err)
			}
			if !slices.ContainsFunc(top, sameID(e)) && !slices.ContainsFunc(ends, sameID(e)) {
				ends = append(ends, e)
			}
		}
	}
	slices.SortFunc(ends, func(a, b graph.Entity) int { return strings.Compare(a.ID, b.ID) })
	if len(top)+len(ends) > 0 {
		d.Entities = append(top, ends...)
	}
	return i, d, nil
}

// sameID matches the entities with e's id.
func sameID(e graph.Entity) func(graph.Entity) bool {
	return func(o graph.Entity) bool { return o.ID == e.ID }
}
