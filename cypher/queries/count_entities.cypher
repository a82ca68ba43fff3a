// Number of entities; algorithms on an empty entity graph are skipped.
RETURN COUNT { (:Entity) } AS entities
