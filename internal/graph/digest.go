package graph

import "context"

// CommunityDigest is the part of a community's Members that an extractive report reads: its
// most connected members, its heaviest relations with their ends, and the totals.
type CommunityDigest struct {
	// Entities are the members the digest names: first the topEntities of highest Degree (then
	// lowest id), in that order, then the ends of Relations not among them, by id. Each member
	// appears once.
	Entities []Entity
	// EntityCount is the number of members (len(Members.Entities)).
	EntityCount int
	// Relations, RelationCount and RelationWeight are those of Members for the same
	// maxRelations, bit for bit: the weight is summed in key order.
	Relations      []Relation
	RelationCount  int
	RelationWeight float64
}

// CommunityDigester is a store that reads the digests of many communities in one pass over
// the graph, where CommunityMembers reads each community's members and relations apart: on the
// embedded store the members and relations of the communities of all levels are scattered
// over the whole database, read again for each level.
type CommunityDigester interface {
	// CommunityDigests calls fn with the digest of each of communityIDs, in their order, with
	// the topEntities members of highest degree and the maxRelations (>= 0) heaviest relations;
	// fn may write to the store. An unknown community has an empty digest.
	CommunityDigests(ctx context.Context, communityIDs []string, topEntities, maxRelations int, fn func(i int, d CommunityDigest) error) error
}
