// strata: saved queries for Neo4j Browser.
// Browser runs everything in its editor, one statement after another, so select-and-run runs
// the whole editor. To run one query, copy its block, from its "// strata:" line to the ";"
// that ends it, into the editor and run it (Ctrl+Enter): the ":param" lines of the block set
// the parameters the query needs, then the query runs. Star the editor to keep the block under
// Favorites, named by its first line. Pasting the whole file runs every query in turn.
// The values given exist in the demo graph (testdata/corpus ingested, as
// cmd/strata/savedqueries_test.go checks); edit them to look elsewhere. Entity ids are
// upper-cased names ("Edda Fenwick" is 'EDDA FENWICK'); document ids are file paths relative to
// the folder ingested (or the "id" of a JSONL line); community ids are '<level>-<communityId>'
// with level 0 the coarsest. Graph queries return nodes and paths (styled by
// docker/strata.grass); the others return tables.
// The lines below declare the parameters' types for the Cypher lint (cypher/lint/lint.mjs).
// @statements many
// @browser
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
ORDER BY ingested DESC, id
LIMIT 100;

// strata: one document as its chain of chunks ($documentId)
// One row per chunk, in document order: a chunk has at most one NEXT.
:param documentId => 'edda-fenwick.txt';
MATCH (d:Document {id: $documentId})<-[p:PART_OF]-(c:Chunk)
OPTIONAL MATCH (c)-[n:NEXT]->(next:Chunk)
RETURN d, p, c, n, next
ORDER BY c.seq
LIMIT 300;

// strata: entities mentioned by most chunks
MATCH (e:Entity)
WITH e, COUNT { (e)<-[:HAS_ENTITY]-(:Chunk) } AS mentions
WHERE mentions > 0
RETURN e.name AS name, e.type AS type, mentions, e.description AS description
ORDER BY mentions DESC, name
LIMIT 25;

// strata: an entity, its relations and the chunks it comes from ($entityId)
// Each kind is gathered on its own, at most 50 of each: matched together they would multiply
// (every relation once per chunk).
:param entityId => 'EDDA FENWICK';
MATCH (e:Entity {id: $entityId})
RETURN e,
       COLLECT { MATCH rel = (e)-[:RELATED]-(:Entity) RETURN rel LIMIT 50 } AS relations,
       COLLECT { MATCH src = (e)<-[:HAS_ENTITY]-(:Chunk) RETURN src LIMIT 50 } AS sources;

// strata: what each chunk said about an entity, in the order it is merged ($entityId)
// The entity's name, type and description are derived from these rows; a subject link says
// nothing (the chunk's document is about the entity). Deleting a document takes its rows away.
:param entityId => 'EDDA FENWICK';
MATCH (c:Chunk)-[m:HAS_ENTITY]->(e:Entity {id: $entityId})
RETURN c.documentId AS document, c.seq AS seq, m.name AS name, m.type AS type,
       m.description AS said, m.subject AS subjectLink
ORDER BY document, seq
LIMIT 100;

// strata: entities per layer (0 = extracted, 1 and up = summaries)
MATCH (e:Entity)
RETURN e.layer AS layer, count(*) AS entities
ORDER BY layer;

// strata: the lowest common ancestor of two entities and the paths up to it, as lca retrieval walks them ($from, $to)
// The ancestor is the lowest summary above both (soft clustering can give several; the lowest
// layer, then the smallest id, wins); without one, each entity's paths go up to its top
// summaries. With them: the inter-summary relations (LeanRAG's aggregation) among the
// summaries on the paths.
:param from => 'EDDA FENWICK';
:param to => 'KESTREL POINT LIGHTHOUSE';
MATCH (a:Entity {id: $from})
MATCH (b:Entity {id: $to})
OPTIONAL MATCH (a)-[:SUMMARIZED_BY*0..]->(c:Entity)<-[:SUMMARIZED_BY*0..]-(b)
WITH a, b, c
ORDER BY c.layer, c.id
LIMIT 1
UNWIND [a, b] AS x
MATCH p = (x)-[:SUMMARIZED_BY*0..]->(top:Entity)
WHERE CASE WHEN c IS NULL THEN NOT (top)-[:SUMMARIZED_BY]->() ELSE top = c END
WITH c AS ancestor, collect(DISTINCT p) AS paths
WITH ancestor, paths, reduce(ns = [], q IN paths | ns + nodes(q)) AS onPaths
RETURN ancestor, paths,
       COLLECT {
         UNWIND onPaths AS s
         MATCH (s:Summary)-[r:RELATED]->(t:Summary)
         WHERE t IN onPaths
         RETURN DISTINCT r
       } AS relations;

// strata: the summaries above an entity, layer by layer ($entityId)
// Clustering is soft, so an entity can have several summaries: one path per way to the top.
:param entityId => 'EDDA FENWICK';
MATCH p = (:Entity {id: $entityId})-[:SUMMARIZED_BY*1..]->(top:Summary)
WHERE NOT (top)-[:SUMMARIZED_BY]->()
RETURN p
LIMIT 100;

// strata: summary entities with their members
// At most 20 member names each, with the full count.
MATCH (s:Summary)
RETURN s.layer AS layer, s.name AS summary,
       COUNT { (:Entity)-[:SUMMARIZED_BY]->(s) } AS size,
       COLLECT { MATCH (m:Entity)-[:SUMMARIZED_BY]->(s) RETURN m.name ORDER BY m.name LIMIT 20 } AS members
ORDER BY layer DESC, summary
LIMIT 100;

// strata: connected components by size
MATCH (e:Entity)
RETURN e.componentId AS component, count(*) AS entities, collect(e.name)[..10] AS sample
ORDER BY entities DESC, component
LIMIT 25;

// strata: communities per level (0 = coarsest)
MATCH (c:Community)
RETURN c.level AS level, count(*) AS communities, avg(c.size) AS meanSize, max(c.size) AS largest
ORDER BY level;

// strata: best-rated community reports of a level ($level)
:param level => 0;
MATCH (c:Community)
WHERE c.level = $level
RETURN c.id AS id, c.title AS title, c.rating AS rating, c.size AS size, c.summary AS summary
ORDER BY rating DESC, size DESC, id
LIMIT 25;

// strata: the community tree below the coarsest communities
// Every community with its way up to a coarsest one (CHILD_OF points from finer to coarser); a
// coarsest community is its own zero-length path, so a hierarchy of one level shows too.
MATCH p = (:Community)-[:CHILD_OF*0..]->(top:Community)
WHERE top.level = 0
RETURN p
LIMIT 300;

// strata: one community, its members and the relations among them ($communityId)
// At most 100 members and 200 relations: a coarse community can hold most of the graph.
:param communityId => '0-0';
MATCH (c:Community {id: $communityId})
RETURN c,
       COLLECT { MATCH m = (:Entity)-[:IN_COMMUNITY]->(c) RETURN m LIMIT 100 } AS members,
       COLLECT {
         MATCH (c)<-[:IN_COMMUNITY]-(e:Entity)
         MATCH r = (e)-[:RELATED]->(t:Entity)
         WHERE (t)-[:IN_COMMUNITY]->(c)
         RETURN r
         LIMIT 200
       } AS relations;

// strata: the communities of an entity at every level ($entityId)
:param entityId => 'EDDA FENWICK';
MATCH (e:Entity {id: $entityId})-[:IN_COMMUNITY]->(c:Community)
RETURN c.level AS level, c.id AS id, c.title AS title, c.size AS size
ORDER BY level;

// strata: attributed communities per layer (ingest --arch)
// ArchRAG's hierarchy: layer 1 groups entities, each layer above groups the one below.
MATCH (c:ArchCommunity)
RETURN c.layer AS layer, count(*) AS communities,
       avg(COUNT { ()-[:ARCH_MEMBER_OF]->(c) }) AS meanSize,
       sum(COUNT { (c)-[:ARCH_RELATED]->() }) AS links
ORDER BY layer;

// strata: the attributed communities above an entity, with their links ($entityId)
// The entity's way up ARCH_MEMBER_OF to the top layer, and the ARCH_RELATED links of every
// community on it (at most 50 each): the part of the hierarchy arch mode descends through.
:param entityId => 'EDDA FENWICK';
MATCH p = (:Entity {id: $entityId})-[:ARCH_MEMBER_OF*1..]->(top:ArchCommunity)
WHERE NOT (top)-[:ARCH_MEMBER_OF]->()
RETURN p,
       COLLECT {
         UNWIND nodes(p)[1..] AS c
         MATCH r = (c)-[:ARCH_RELATED]-(:ArchCommunity)
         RETURN r
         LIMIT 50
       } AS links
LIMIT 10;

// strata: a shortest path between two entities, as bridge retrieval walks it ($from, $to)
// Retrieval takes paths of at most 4 hops over RELATED and SUMMARIZED_BY, in either direction,
// fewest hops first; no row means that it finds no bridge between the two either.
:param from => 'EDDA FENWICK';
:param to => 'KESTREL POINT LIGHTHOUSE';
MATCH (a:Entity {id: $from})
MATCH (b:Entity {id: $to})
WHERE b <> a
MATCH p = shortestPath((a)-[:RELATED|SUMMARIZED_BY*..4]-(b))
RETURN p;

// strata: full-text search over entity names and descriptions ($text)
// $text is plain words, any of which may match: it is lower-cased (so AND, OR and NOT are words,
// not operators), every character Lucene reads as syntax is escaped, and words with nothing to
// search are left out. Only its first 400 characters count: Lucene refuses a query of more than
// 1024 terms, and each character makes at most one term in each of the two indexed properties.
:param text => 'lighthouse keeper';
WITH [w IN split(left(toLower($text), 400), ' ') WHERE w =~ '(?s).*[\\p{L}\\p{N}\\p{So}].*'] AS words
WITH reduce(q = '', ch IN split(reduce(s = '', w IN words | s + ' ' + w), '') |
  q + CASE
    WHEN ch IN ['\\', '+', '-', '&', '|', '!', '(', ')', '{', '}', '[', ']', '^', '"', '~', '*', '?', ':', '/']
    THEN '\\' + ch
    ELSE ch
  END) AS query
WHERE size(query) > 0
CALL db.index.fulltext.queryNodes('entity_text', query, {limit: 20})
YIELD node, score
RETURN node.name AS name, node.type AS type, node.layer AS layer, node.description AS description, score
ORDER BY score DESC, name;

// strata: settings strata recorded (embedding model and others)
MATCH (m:StrataMeta)
RETURN m.key AS key, m.value AS value
ORDER BY key;
