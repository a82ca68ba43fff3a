// A syntax error must be reported.
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (e:Entity {id: row.id}
SET e.name = row.name
