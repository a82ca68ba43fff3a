// In a file of several statements, one bad statement fails the file.
// @statements many
MATCH (e:Entity)
RETURN e.id AS id;

MATCH (c:Chunk)
RETURN c.txt AS text;
