// strata: saved queries for Neo4j Browser.
// Add them to Favorites (star icon, then paste) or run one by selecting it. Queries with
// parameters need them set first, for example:
//   :param entityId => 'EDDA FENWICK'
//   :param from => 'EDDA FENWICK'
//   :param to => 'KESTREL POINT LIGHTHOUSE'
//   :param communityId => '0-0'
//   :param level => 0
//   :param documentId => 'edda-fenwick.txt'
//   :param text => 'lighthouse'
// Entity ids are upper-cased names ("Edda Fenwick" is 'EDDA FENWICK'); document ids are file
// paths relative to the folder ingested (or the "id" of a JSONL line); community ids are
// '<level>-<communityId>' with level 0 the coarsest.
// @statements many
// @param entityId STRING
// @param from STRING
// @param to STRING
// @param communityId STRING
// @param level INTEGER
// @param documentId STRING
// @param text STRING

// strata: what the graph holds
RETURN
  COUNT { (:Document) } AS documents,
  COUNT { (:Chunk) } AS chunks,
  COUNT { (:Entity) } AS entities,
  COUNT { (:Summary) } AS summaryEntities,
  COUNT { (:Community) } AS communities,
  COUNT { ()-[:RELATED]->() } AS relations;

// strata: documents, newest first
MATCH (d:Document)
RETURN d.id AS id, d.title AS title, d.source AS source, d.ingestedAt AS ingested,
       COUNT { (d)<-[:PART_OF]-(:Chunk) } AS chunks
ORDER BY ingested DESC
LIMIT 100;

// strata: one document as its chain of chunks ($documentId)
MATCH (d:Document {id: $documentId})<-[p:PART_OF]-(c:Chunk)
OPTIONAL MATCH (c)-[n:NEXT]->(next:Chunk)
RETURN d, p, c, n, next;

// strata: entities mentioned by most chunks
MATCH (e:Entity)<-[:HAS_ENTITY]-(c:Chunk)
WITH e, count(c) AS mentions
ORDER BY mentions DESC
LIMIT 25
RETURN e.name AS name, e.type AS type, mentions, e.description AS description;

// strata: an entity, its relations and the chunks it comes from ($entityId)
// Each kind is gathered on its own (at most 50), so that relations and chunks do not multiply.
MATCH (e:Entity {id: $entityId})
CALL (e) {
  MATCH rel = (e)-[:RELATED]-(:Entity)
  WITH rel
  LIMIT 50
  RETURN collect(rel) AS relations
}
CALL (e) {
  MATCH src = (e)<-[:HAS_ENTITY]-(:Chunk)
  WITH src
  LIMIT 50
  RETURN collect(src) AS sources
}
RETURN e, relations, sources;

// strata: entities per layer (0 = extracted, 1 and up = summaries)
MATCH (e:Entity)
RETURN e.layer AS layer, count(*) AS entities
ORDER BY layer;

// strata: the summaries above an entity, layer by layer ($entityId)
MATCH p = (:Entity {id: $entityId})-[:SUMMARIZED_BY*1..6]->(:Summary)
RETURN p;

// strata: summary entities with their members
MATCH (s:Summary)
RETURN s.layer AS layer, s.name AS summary,
       COLLECT { MATCH (m:Entity)-[:SUMMARIZED_BY]->(s) RETURN m.name } AS members
ORDER BY layer DESC, summary
LIMIT 100;

// strata: connected components by size
MATCH (e:Entity)
RETURN e.componentId AS component, count(*) AS entities, collect(e.name)[..10] AS sample
ORDER BY entities DESC
LIMIT 25;

// strata: communities per level (0 = coarsest)
MATCH (c:Community)
RETURN c.level AS level, count(*) AS communities, avg(c.size) AS meanSize, max(c.size) AS largest
ORDER BY level;

// strata: best-rated community reports of a level ($level)
MATCH (c:Community)
WHERE c.level = $level
RETURN c.id AS id, c.title AS title, c.rating AS rating, c.size AS size, c.summary AS summary
ORDER BY rating DESC, size DESC
LIMIT 25;

// strata: the community tree below the coarsest communities
MATCH p = (:Community)-[:CHILD_OF*1..]->(top:Community)
WHERE top.level = 0
RETURN p
LIMIT 300;

// strata: one community, its members and the relations among them ($communityId)
// At most 100 members and 200 relations: a coarse community can hold most of the graph.
MATCH (c:Community {id: $communityId})
CALL (c) {
  MATCH m = (:Entity)-[:IN_COMMUNITY]->(c)
  WITH m
  LIMIT 100
  RETURN collect(m) AS members
}
CALL (c) {
  MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
  MATCH r = (e)-[:RELATED]->(t:Entity)
  WHERE (t)-[:IN_COMMUNITY]->(c)
  WITH r
  LIMIT 200
  RETURN collect(r) AS relations
}
RETURN c, members, relations;

// strata: the communities of an entity at every level ($entityId)
MATCH (e:Entity {id: $entityId})-[:IN_COMMUNITY]->(c:Community)
RETURN c.level AS level, c.id AS id, c.title AS title, c.size AS size
ORDER BY level;

// strata: a shortest path between two entities, as bridge retrieval walks it ($from, $to)
// Retrieval uses paths of at most 4 hops over RELATED and SUMMARIZED_BY, in either direction.
MATCH (a:Entity {id: $from})
MATCH (b:Entity {id: $to})
MATCH p = shortestPath((a)-[:RELATED|SUMMARIZED_BY*..4]-(b))
RETURN p;

// strata: full-text search over entity names and descriptions ($text)
// $text is plain words: every character Lucene reads as syntax is escaped, and the words are
// lower-cased so that AND, OR and NOT are words too; any of them may match.
WITH [w IN split($text, ' ') WHERE trim(w) <> '' |
  reduce(q = '', ch IN split(toLower(w), '') |
    q + CASE
      WHEN ch IN ['\\', '+', '-', '&', '|', '!', '(', ')', '{', '}', '[', ']', '^', '"', '~', '*', '?', ':', '/']
      THEN '\\' + ch
      ELSE ch
    END)] AS words
WHERE size(words) > 0
CALL db.index.fulltext.queryNodes('entity_text', reduce(q = '', w IN words | q + ' ' + w), {limit: 20})
YIELD node, score
RETURN node.name AS name, node.type AS type, node.description AS description, score;

// strata: settings strata recorded (embedding model and others)
MATCH (m:StrataMeta)
RETURN m.key AS key, m.value AS value
ORDER BY key;
