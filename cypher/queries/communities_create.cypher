// Creates Community nodes (without report properties; those come later through Batch.Communities).
// @param rows LIST<MAP>
UNWIND $rows AS row
CREATE (c:Community {id: row.id})
SET c.level = row.level,
    c.communityId = row.communityId,
    c.size = row.size
