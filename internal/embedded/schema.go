package embedded

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaVersion is stored in PRAGMA user_version. A change to the schema is a new entry in
// migrations and a new version; schemaSQL stays the schema of version 1, so new and upgraded
// stores are built by the same statements.
const schemaVersion = 9

// oldestReadable is the oldest schema version a read-only Store can use as it is (readers cannot
// upgrade a store). Raise it when a migration changes something readers depend on.
const oldestReadable = 1

// applicationID marks the database file as a strata store (PRAGMA application_id, "STRA"), so
// that an unrelated SQLite file in the data directory is refused instead of written into.
const applicationID = 0x53545241

// schemaSQL returns the statements that create an empty store of version 1.
//
// Tables that are indexed by FTS5 carry an INTEGER PRIMARY KEY (rid) because an external-content
// FTS5 table needs a stable integer rowid; the node id is a UNIQUE column next to it. Relationship
// endpoints are not foreign keys: Apply checks references itself (checkReferences), which lets it
// name every missing id of a batch in one error, and readers join with the node tables anyway.
func schemaSQL() []string {
	return []string{
		`CREATE TABLE meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	) WITHOUT ROWID`,

		// generations counts writes per cached structure (see generation.go).
		`CREATE TABLE generations (
		name TEXT PRIMARY KEY,
		gen  INTEGER NOT NULL
	) WITHOUT ROWID`,
		`INSERT INTO generations (name, gen) VALUES
			('chunk_embedding', 0), ('entity_embedding', 0), ('community_embedding', 0), ('entity_graph', 0)`,

		`CREATE TABLE documents (
		id          TEXT PRIMARY KEY,
		title       TEXT NOT NULL,
		source      TEXT NOT NULL,
		sha256      TEXT NOT NULL,
		metadata    TEXT NOT NULL,
		ingested_at TEXT NOT NULL
	) WITHOUT ROWID`,

		`CREATE TABLE chunks (
		rid         INTEGER PRIMARY KEY,
		id          TEXT NOT NULL UNIQUE,
		document_id TEXT NOT NULL,
		seq         INTEGER NOT NULL,
		text        TEXT NOT NULL,
		tokens      INTEGER NOT NULL,
		embedding   BLOB
	)`,
		`CREATE INDEX chunks_document ON chunks (document_id, seq)`,
		`CREATE VIRTUAL TABLE chunk_text USING fts5(text, content='chunks', content_rowid='rid', tokenize='unicode61 remove_diacritics 2')`,
		`CREATE TRIGGER chunks_text_insert AFTER INSERT ON chunks BEGIN
		INSERT INTO chunk_text (rowid, text) VALUES (new.rid, new.text);
	END`,
		`CREATE TRIGGER chunks_text_delete AFTER DELETE ON chunks BEGIN
		INSERT INTO chunk_text (chunk_text, rowid, text) VALUES ('delete', old.rid, old.text);
	END`,
		`CREATE TRIGGER chunks_text_update AFTER UPDATE OF text ON chunks BEGIN
		INSERT INTO chunk_text (chunk_text, rowid, text) VALUES ('delete', old.rid, old.text);
		INSERT INTO chunk_text (rowid, text) VALUES (new.rid, new.text);
	END`,

		`CREATE TABLE entities (
		rid          INTEGER PRIMARY KEY,
		id           TEXT NOT NULL UNIQUE,
		name         TEXT NOT NULL,
		type         TEXT NOT NULL,
		description  TEXT NOT NULL,
		layer        INTEGER NOT NULL,
		embedding    BLOB,
		component_id INTEGER NOT NULL DEFAULT -1,
		degree       INTEGER NOT NULL DEFAULT 0
	)`,
		`CREATE INDEX entities_layer ON entities (layer, id)`,
		`CREATE VIRTUAL TABLE entity_text USING fts5(name, description, content='entities', content_rowid='rid', tokenize='unicode61 remove_diacritics 2')`,
		`CREATE TRIGGER entities_text_insert AFTER INSERT ON entities BEGIN
		INSERT INTO entity_text (rowid, name, description) VALUES (new.rid, new.name, new.description);
	END`,
		`CREATE TRIGGER entities_text_delete AFTER DELETE ON entities BEGIN
		INSERT INTO entity_text (entity_text, rowid, name, description) VALUES ('delete', old.rid, old.name, old.description);
	END`,
		`CREATE TRIGGER entities_text_update AFTER UPDATE OF name, description ON entities BEGIN
		INSERT INTO entity_text (entity_text, rowid, name, description) VALUES ('delete', old.rid, old.name, old.description);
		INSERT INTO entity_text (rowid, name, description) VALUES (new.rid, new.name, new.description);
	END`,

		// relations hold RELATED with source < target; chunk_ids is a JSON array.
		`CREATE TABLE relations (
		source      TEXT NOT NULL,
		target      TEXT NOT NULL,
		description TEXT NOT NULL,
		weight      REAL NOT NULL,
		chunk_ids   TEXT NOT NULL,
		PRIMARY KEY (source, target)
	) WITHOUT ROWID`,
		`CREATE INDEX relations_target ON relations (target)`,

		`CREATE TABLE mentions (
		chunk_id  TEXT NOT NULL,
		entity_id TEXT NOT NULL,
		PRIMARY KEY (chunk_id, entity_id)
	) WITHOUT ROWID`,
		`CREATE INDEX mentions_entity ON mentions (entity_id, chunk_id)`,

		`CREATE TABLE summary_links (
		member      TEXT NOT NULL,
		summary     TEXT NOT NULL,
		description TEXT NOT NULL,
		weight      REAL NOT NULL,
		PRIMARY KEY (member, summary)
	) WITHOUT ROWID`,
		`CREATE INDEX summary_links_summary ON summary_links (summary)`,

		`CREATE TABLE communities (
		id           TEXT PRIMARY KEY,
		level        INTEGER NOT NULL,
		community_id INTEGER NOT NULL,
		parent_id    TEXT NOT NULL,
		title        TEXT NOT NULL DEFAULT '',
		summary      TEXT NOT NULL DEFAULT '',
		report       TEXT NOT NULL DEFAULT '',
		rating       REAL NOT NULL DEFAULT 0,
		size         INTEGER NOT NULL,
		embedding    BLOB
	) WITHOUT ROWID`,
		`CREATE INDEX communities_level ON communities (level, community_id)`,
		`CREATE INDEX communities_parent ON communities (parent_id)`,

		// community_members holds IN_COMMUNITY.
		`CREATE TABLE community_members (
		community_id TEXT NOT NULL,
		entity_id    TEXT NOT NULL,
		PRIMARY KEY (community_id, entity_id)
	) WITHOUT ROWID`,
		`CREATE INDEX community_members_entity ON community_members (entity_id)`,
	}
}

// migrations returns, at index v-1, the statements that upgrade a store of version v to v+1.
func migrations() [][]string {
	return [][]string{
		// 1 to 2: index_dims records the dimension of each vector index, so that Apply can refuse
		// embeddings of another model without scanning the stored vectors.
		{
			`CREATE TABLE index_dims (
				name TEXT PRIMARY KEY,
				dim  INTEGER NOT NULL
			) WITHOUT ROWID`,
			`INSERT INTO index_dims (name, dim)
				SELECT 'chunk_embedding', length(embedding) / 4 FROM chunks WHERE embedding IS NOT NULL LIMIT 1`,
			`INSERT INTO index_dims (name, dim)
				SELECT 'entity_embedding', length(embedding) / 4 FROM entities WHERE embedding IS NOT NULL LIMIT 1`,
			`INSERT INTO index_dims (name, dim)
				SELECT 'community_embedding', length(embedding) / 4 FROM communities WHERE embedding IS NOT NULL LIMIT 1`,
		},
		// 2 to 3: chunks carry their document's title, and chunk_text indexes it beside the text:
		// in corpora whose titles name what a document is about, the title is often the only
		// place the question's key phrase appears. The index is rebuilt from the chunk rows.
		{
			`ALTER TABLE chunks ADD COLUMN title TEXT NOT NULL DEFAULT ''`,
			`UPDATE chunks SET title = coalesce((SELECT d.title FROM documents d WHERE d.id = chunks.document_id), '')`,
			`DROP TRIGGER chunks_text_insert`,
			`DROP TRIGGER chunks_text_delete`,
			`DROP TRIGGER chunks_text_update`,
			`DROP TABLE chunk_text`,
			`CREATE VIRTUAL TABLE chunk_text USING fts5(title, text, content='chunks', content_rowid='rid', tokenize='unicode61 remove_diacritics 2')`,
			`CREATE TRIGGER chunks_text_insert AFTER INSERT ON chunks BEGIN
				INSERT INTO chunk_text (rowid, title, text) VALUES (new.rid, new.title, new.text);
			END`,
			`CREATE TRIGGER chunks_text_delete AFTER DELETE ON chunks BEGIN
				INSERT INTO chunk_text (chunk_text, rowid, title, text) VALUES ('delete', old.rid, old.title, old.text);
			END`,
			`CREATE TRIGGER chunks_text_update AFTER UPDATE OF title, text ON chunks BEGIN
				INSERT INTO chunk_text (chunk_text, rowid, title, text) VALUES ('delete', old.rid, old.title, old.text);
				INSERT INTO chunk_text (rowid, title, text) VALUES (new.rid, new.title, new.text);
			END`,
			`INSERT INTO chunk_text (chunk_text) VALUES ('rebuild')`,
		},
		// 3 → 4: per-chunk evidence. A mention holds what its chunk's extraction said about the
		// entity; relation_evidence what each chunk said about a relation. Entities and
		// relations are derived from their evidence, so a deleted chunk takes what it said
		// with it. A store upgraded from 3 holds no evidence yet (meta "evidence" is unset):
		// ingest refuses to merge into it until it is rebuilt (pipeline/settings.go).
		{
			`ALTER TABLE mentions ADD COLUMN name TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE mentions ADD COLUMN type TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE mentions ADD COLUMN description TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE mentions ADD COLUMN subject INTEGER NOT NULL DEFAULT 0`,
			`CREATE TABLE relation_evidence (
				source      TEXT NOT NULL,
				target      TEXT NOT NULL,
				chunk_id    TEXT NOT NULL,
				description TEXT NOT NULL,
				weight      REAL NOT NULL,
				PRIMARY KEY (source, target, chunk_id)
			) WITHOUT ROWID`,
			`CREATE INDEX relation_evidence_chunk ON relation_evidence (chunk_id)`,
		},
		// 4 → 5: the attributed-community hierarchy (arch.go).
		archMigration(),
		// 5 → 6: the mentions generation (mentionindex.go).
		version6Migration(),
		// 6 → 7: the full-text indexes are updated only when the text they index changes. An
		// upsert names every column, so the triggers fired on every rewrite of a row: the embed
		// stage, which rewrites each entity with its embedding, spent a quarter of its CPU (the
		// 50 MiB adversarial document's 1.7 million entities) taking unchanged names and
		// descriptions out of entity_text and putting them back.
		{
			`DROP TRIGGER entities_text_update`,
			`CREATE TRIGGER entities_text_update AFTER UPDATE OF name, description ON entities
				WHEN old.name IS NOT new.name OR old.description IS NOT new.description BEGIN
				INSERT INTO entity_text (entity_text, rowid, name, description) VALUES ('delete', old.rid, old.name, old.description);
				INSERT INTO entity_text (rowid, name, description) VALUES (new.rid, new.name, new.description);
			END`,
			`DROP TRIGGER chunks_text_update`,
			`CREATE TRIGGER chunks_text_update AFTER UPDATE OF title, text ON chunks
				WHEN old.title IS NOT new.title OR old.text IS NOT new.text BEGIN
				INSERT INTO chunk_text (chunk_text, rowid, title, text) VALUES ('delete', old.rid, old.title, old.text);
				INSERT INTO chunk_text (rowid, title, text) VALUES (new.rid, new.title, new.text);
			END`,
		},
		// 7 → 8: chunks of paged documents (PDF) record the pages their text lies on
		// (pagesVersion); 0 for other chunks and for those written before.
		{
			`ALTER TABLE chunks ADD COLUMN first_page INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE chunks ADD COLUMN last_page INTEGER NOT NULL DEFAULT 0`,
		},
		// 8 → 9: covering indexes for two reads of every entity or community that each
		// structure update makes, from tables whose rows also hold descriptions, reports and
		// embeddings: the reports' digest pass reads every entity's id and degree, and the
		// communities stage every community's place in the hierarchy (on mix, 0.25 and 0.18 s
		// of adding one document).
		{
			`CREATE INDEX entities_degree ON entities (id, degree)`,
			`DROP INDEX communities_level`,
			`CREATE INDEX communities_level ON communities (level, community_id, parent_id, size)`,
		},
	}
}

// pagesVersion is the first schema version whose chunks hold first_page and last_page: a reader
// of an older store reads its chunks without pages.
const pagesVersion = 8

// initSchema creates the schema in an empty database, upgrades an older one, or checks that an
// existing one is a strata store this code can read, and returns the version the store is at.
// dir names the store in errors.
func initSchema(ctx context.Context, db *sql.DB, dir string, readOnly bool) (int64, error) {
	version, appID, err := readVersion(ctx, db)
	if err != nil {
		return 0, fmt.Errorf("open store %s: read schema version: %w", dir, err)
	}
	if version == 0 {
		var tables int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
			return 0, fmt.Errorf("open store %s: %w", dir, err)
		}
		if tables > 0 {
			return 0, fmt.Errorf("open store %s: %s is not a strata store (it holds other tables)", dir, dbFile)
		}
		if readOnly {
			return 0, fmt.Errorf("open store %s: no strata store here yet; run `strata ingest` first", dir)
		}
		return schemaVersion, upgrade(ctx, db, dir, 0)
	}
	if appID != applicationID {
		return 0, fmt.Errorf("open store %s: %s is not a strata store (application id %#x)", dir, dbFile, appID)
	}
	switch {
	case version > schemaVersion:
		return 0, fmt.Errorf("open store %s: schema version %d is newer than this strata supports (%d); upgrade strata", dir, version, schemaVersion)
	case version == schemaVersion:
		return version, nil
	case readOnly && version < oldestReadable:
		return 0, fmt.Errorf("open store %s: schema version %d is too old to read; run `strata ingest` once to upgrade it", dir, version)
	case readOnly:
		return version, nil
	}
	return schemaVersion, upgrade(ctx, db, dir, version)
}

func readVersion(ctx context.Context, db *sql.DB) (version, appID int64, err error) {
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return 0, 0, err
	}
	if err := db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return 0, 0, err
	}
	return version, appID, nil
}

// upgrade brings a store of version from (0: an empty database) to schemaVersion in one
// transaction, so a store is always at one version, never between two.
func upgrade(ctx context.Context, db *sql.DB, dir string, from int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("open store %s: upgrade schema: %w", dir, err)
	}
	defer tx.Rollback()
	start := from
	var stmts []string
	if from == 0 {
		stmts = append(schemaSQL(), fmt.Sprintf(`PRAGMA application_id = %d`, applicationID))
		from = 1
	}
	for _, m := range migrations()[from-1:] {
		stmts = append(stmts, m...)
	}
	stmts = append(stmts, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion))
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("open store %s: upgrade schema from version %d: %w", dir, start, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("open store %s: upgrade schema: %w", dir, err)
	}
	return nil
}
