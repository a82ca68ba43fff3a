package embedded

// The statements of the read paths that queries use, named so that TestQueryPlans can check that
// SQLite answers each through an index, never by reading a whole table (which on a large graph
// costs time proportional to the graph, not to the answer).

// expandChunksSQL selects the chunks mentioning most seeds (?1 a JSON array of seed ids, ?2 the
// limit) in a store of schema version.
func expandChunksSQL(version int64) string {
	return `
		SELECT ` + chunkCols("c", version) + `, count(*) AS n
		FROM mentions m JOIN chunks c ON c.id = m.chunk_id
		WHERE m.entity_id IN (SELECT value FROM json_each(?1))
		GROUP BY c.id ORDER BY n DESC, c.id LIMIT ?2`
}

// seedHitsCTE is the table hits (id, n, seeds): every community holding seeds ?1, with how many
// and which, from community_members alone.
const seedHitsCTE = `hits AS (
		SELECT cm.community_id AS id, count(*) AS n, json_group_array(cm.entity_id) AS seeds
		FROM community_members cm
		WHERE cm.entity_id IN (SELECT value FROM json_each(?1))
		GROUP BY cm.community_id
		)`

// expandCommunitiesSQL selects the communities holding most seeds (?1 seeds, ?2 the limit) in a
// store of schema version. From version 6 the candidates are ranked from community_members and
// the index communities_rating alone, and only the communities kept are read whole: a community
// row spills its report and embedding into an overflow page, which SQLite reads with a system
// call of its own, so reading every candidate (about 100 for 20 seeds) cost half of the call.
func expandCommunitiesSQL(version int64) string {
	if version >= ratingIndexVersion {
		return `
		WITH ` + seedHitsCTE + `, top AS (
		SELECT h.id, h.n, h.seeds, r.rating
		FROM hits h JOIN communities r INDEXED BY communities_rating ON r.id = h.id
		ORDER BY h.n DESC, r.rating DESC, h.id LIMIT ?2
		)
		SELECT ` + communityCols("c") + `, t.n, t.seeds
		FROM top t JOIN communities c ON c.id = t.id
		ORDER BY t.n DESC, t.rating DESC, t.id`
	}
	return `
		SELECT ` + communityCols("c") + `, count(*) AS n, json_group_array(cm.entity_id) AS seeds
		FROM community_members cm JOIN communities c ON c.id = cm.community_id
		WHERE cm.entity_id IN (SELECT value FROM json_each(?1))
		GROUP BY c.id ORDER BY n DESC, c.rating DESC, c.id LIMIT ?2`
}

// rankCommunitiesSQL ranks every community holding seeds ?1 as expandCommunitiesSQL does, with
// ids, seed counts and seeds only: from schema version 6 it reads no community row.
func rankCommunitiesSQL(version int64) string {
	index := ""
	if version >= ratingIndexVersion {
		index = "INDEXED BY communities_rating"
	}
	return `
		WITH ` + seedHitsCTE + `
		SELECT h.id, h.n, h.seeds
		FROM hits h JOIN communities r ` + index + ` ON r.id = h.id
		ORDER BY h.n DESC, r.rating DESC, h.id`
}

// expandRelationsSQL selects the relations inside (?2 true) or leaving (?2 false) the seeds ?1, ?3 at most.
func expandRelationsSQL() string {
	return `
		WITH seeds (id) AS (SELECT value FROM json_each(?1)),
		touching (source, target) AS (
		SELECT source, target FROM relations WHERE source IN seeds
		UNION SELECT source, target FROM relations WHERE target IN seeds)
		SELECT ` + relationCols("r") + `
		FROM touching t
		JOIN relations r ON r.source = t.source AND r.target = t.target
		JOIN entities a ON a.id = r.source
		JOIN entities b ON b.id = r.target
		WHERE (r.source IN seeds AND r.target IN seeds) = ?2
		ORDER BY r.weight DESC, r.source, r.target LIMIT ?3`
}

// documentLinksSQL selects DocumentLinks' links (?1 chunk ids, ?2 the most documents an entity may be in).
func documentLinksSQL() string {
	return `
		WITH linked AS (
		SELECT m.entity_id, c.document_id, min(c.seq) AS seq
		FROM (SELECT DISTINCT s.entity_id FROM mentions s WHERE s.chunk_id IN (SELECT value FROM json_each(?))) e
		JOIN mentions m ON m.entity_id = e.entity_id
		JOIN chunks c ON c.id = m.chunk_id
		GROUP BY m.entity_id, c.document_id
		), counted AS (
		SELECT entity_id, count(*) AS documents FROM linked GROUP BY entity_id HAVING count(*) <= ?
		)
		SELECT l.entity_id, l.document_id, c.id, n.documents
		FROM linked l
		JOIN counted n ON n.entity_id = l.entity_id
		JOIN chunks c ON c.document_id = l.document_id AND c.seq = l.seq
		ORDER BY l.entity_id, l.document_id`
}

// memberEntitiesSQL selects the member entities of community ?.
func memberEntitiesSQL() string {
	return `
		SELECT ` + entityColsNoEmbedding("e") + ` FROM community_members cm JOIN entities e ON e.id = cm.entity_id
		WHERE cm.community_id = ? ORDER BY e.id`
}

// communityEntitiesSQL selects the member entities of the communities ?1 (a JSON array of ids),
// ordered by community then entity id.
func communityEntitiesSQL() string {
	return `
		SELECT ` + entityColsNoEmbedding("e") + `, cm.community_id
		FROM community_members cm JOIN entities e ON e.id = cm.entity_id
		WHERE cm.community_id IN (SELECT value FROM json_each(?1)) ORDER BY cm.community_id, e.id`
}

// memberRelationsSQL selects the relations among the members of community ?, ordered by key (the
// order the join produces them in; CommunityMembers keeps the heaviest as they stream by).
func memberRelationsSQL() string {
	return `
		SELECT ` + relationCols("r") + ` FROM community_members a
		JOIN relations r ON r.source = a.entity_id
		JOIN community_members b ON b.community_id = a.community_id AND b.entity_id = r.target
		JOIN entities ea ON ea.id = r.source
		JOIN entities eb ON eb.id = r.target
		WHERE a.community_id = ? ORDER BY r.source, r.target`
}

// childCommunitiesSQL selects the child communities of community ?.
func childCommunitiesSQL() string {
	return `
		SELECT ` + communityCols("c") + ` FROM communities c WHERE c.parent_id = ? ORDER BY c.community_id`
}

// summaryStepsSQL selects the SUMMARIZED_BY links joining the pairs of ?1 (a JSON array of [a, b]) in either direction.
func summaryStepsSQL() string {
	return `
		SELECT l.member, l.summary, l.description, l.weight
		FROM json_each(?1) k JOIN summary_links l ON l.member = k.value ->> 0 AND l.summary = k.value ->> 1
		UNION ALL
		SELECT l.member, l.summary, l.description, l.weight
		FROM json_each(?1) k JOIN summary_links l ON l.member = k.value ->> 1 AND l.summary = k.value ->> 0
		ORDER BY 1, 2`
}

// relatedStepsSQL selects the RELATED relations of the pairs of ?1 (a JSON array of [source, target]).
func relatedStepsSQL() string {
	return `
		SELECT r.source, r.target, r.description, r.weight
		FROM json_each(?1) k JOIN relations r ON r.source = k.value ->> 0 AND r.target = k.value ->> 1`
}

// communitiesByLevelSQL selects the communities of level (all levels when level < 0) ordered by
// level then community id. The two cases are separate statements: one statement with
// "? < 0 OR c.level = ?" cannot use communities_level and reads every community with its report.
func communitiesByLevelSQL(level int) (string, []any) {
	if level < 0 {
		return `SELECT ` + communityCols("c") + ` FROM communities c ORDER BY c.level, c.community_id`, nil
	}
	return `SELECT ` + communityCols("c") + ` FROM communities c WHERE c.level = ? ORDER BY c.community_id`, []any{level}
}
