// Deletes RELATED relationships by key (source < target). Unknown keys are ignored.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (:Entity {id: row.source})-[r:RELATED]->(:Entity {id: row.target})
DELETE r
