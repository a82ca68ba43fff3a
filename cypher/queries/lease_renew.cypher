// Extends the writer lease while $token holds it; no row when another writer took it over.
// @param token STRING
// @param ttlMs INTEGER
MATCH (l:StrataLease {id: 'writer'})
WHERE l.token = $token
SET l.expiresAt = timestamp() + $ttlMs
RETURN l.expiresAt AS expiresAt
