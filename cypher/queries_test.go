package cypher

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// allQueryNames lists the q* constants.
var allQueryNames = []string{
	qSchemaConstraintDocument, qSchemaConstraintChunk, qSchemaConstraintEntity,
	qSchemaConstraintCommunity, qSchemaConstraintMeta, qSchemaIndexEntityLayer,
	qSchemaIndexCommunityLevel, qSchemaFulltextChunk, qSchemaFulltextEntity, qSchemaVectorChunk,
	qSchemaVectorEntity, qSchemaVectorCommunity, qSchemaVectorIndexes, qSchemaIndexDrop, qSchemaAwait,
	qServerComponents, qServerGDSVersion,
	qMissingDocuments, qMissingChunks, qMissingEntities, qMissingCommunities,
	qWriteDocuments, qDeleteChunks, qClearSummaries, qWriteChunks, qWriteNextUnlink, qWriteNextLink, qWriteEntities,
	qWriteRelations, qWriteMentions, qWriteSummaryLinks, qWriteCommunityReports, qWriteMeta,
	qWriteDegree, qWriteChunkTitles, qReadChunkTextIndex,
	qReadDocuments, qReadChunks, qReadEntities, qReadRelations, qReadCommunities,
	qReadDocumentChunks, qReadEntitiesByLayer, qReadEntitiesAfter, qReadEntitiesTexts, qReadEmbeddedIDsAfter, qReadUnembeddedAfter, qReadLayerEdges, qReadAncestors, qReadAncestorLinks, qReadSummaryLinks, qReadLayerLinks, qReadCommunitiesLevel, qReadCommunityMembers, qReadCommunityEntities, qReadCommunityRelations, qReadCommunityChildren, qReadCommunityDigests,
	qReadMeta, qReadMetaKeys, qReadEntityVectors, qReadChunkVectors, qReadMentionIndex, qSchemaExisting, qReadStats, qReadEntityIDs, qSearchVector, qSearchText, qExpandLocal, qDocumentLinks, qPathsCypher,
	qPathsCypherLong, qBumpGeneration,
	qPathsGDS, qPathsGDSNear, qCountEntities, qGDSDrop, qGDSList, qGDSListStale, qGDSProject, qGDSWCCWrite, qGDSLeidenMutate, qGDSLeidenLevels, qGDSPropertyDrop,
	qCommunitiesDelete, qCommunitiesCreate, qCommunitiesMembers, qCommunitiesParents,
	qCommunitiesRemove, qCommunitiesReparent, qReadStoredCommunities, qGDSProjectSeeded,
	qGDSLeidenSeededStats, qGDSLeidenSeededStream,
	qReadAllDocuments, qGDSProjectRelated, qDeleteDocuments, qDeleteMentions, qDeleteRelations, qDeleteEntities,
	qReadEntityEvidence, qReadRelationEvidence, qReadChunkMentions, qReadChunkRelEvidence, qCountUnsupported,
	qSchemaConstraintLease, qLeaseAcquire, qLeaseRenew, qLeaseRelease, qLeaseRead,
	qReadEntityGraph, qReadGenerations, qReadCommunityMembership, qReadEveryRelation,
	qComponentsState, qComponentsExpand, qComponentsRelabel, qComponentsWrite,
}

// TestQueryFiles: every name the code uses has a file, every file is used, and each file's
// declared parameters are the ones its text refers to.
func TestQueryFiles(t *testing.T) {
	qs, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for name := range qs {
		files = append(files, name)
	}
	sort.Strings(files)
	names := slices.Concat(allQueryNames, archQueryNames)
	sort.Strings(names)
	if !slices.Equal(files, slices.Compact(names)) {
		t.Errorf("query files %v\ndo not match the names in querynames.go %v", files, names)
	}
	for _, q := range qs {
		for _, p := range q.params {
			if !strings.Contains(q.text, "$"+p) {
				t.Errorf("%s: declares $%s but never uses it", q.name, p)
			}
		}
		used := map[string]bool{}
		for _, part := range strings.Split(q.text, "$")[1:] {
			end := strings.IndexFunc(part, func(r rune) bool {
				return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
			})
			if end < 0 {
				end = len(part)
			}
			if end > 0 {
				used[part[:end]] = true
			}
		}
		for p := range used {
			if !slices.Contains(q.params, p) {
				t.Errorf("%s: uses $%s without declaring it", q.name, p)
			}
		}
	}
}
