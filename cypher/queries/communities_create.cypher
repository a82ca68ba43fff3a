// Creates Community nodes (without report properties; those come later through Batch.Communities).
// MERGE, not CREATE: the hierarchy is written in batches of their own transactions, and two
// processes recomputing the same graph state must converge instead of failing on the id
// constraint.
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (c:Community {id: row.id})
SET c.level = row.level,
    c.communityId = row.communityId,
    c.size = row.size
