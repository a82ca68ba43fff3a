// Takes the database's writer lease for $token when nobody holds it, this token already does, it
// has expired (its holder stopped renewing it), or its token is $replace (a holder the caller
// knows to be gone). Setting a property first takes the node's write lock, so a writer that
// waited on another reads what that one committed and two writers never both win. Times are the
// server's, so clocks of the writers' machines do not matter. Returns the holder after the call.
// @param token STRING
// @param replace STRING
// @param host STRING
// @param pid INTEGER
// @param ttlMs INTEGER
MERGE (l:StrataLease {id: 'writer'})
SET l.locking = true
WITH l, coalesce(l.token, '') AS held, timestamp() AS now
WITH l, now, held = '' OR held = $token OR held = $replace OR coalesce(l.expiresAt, 0) < now AS free
FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END |
  SET l.token = $token, l.host = $host, l.pid = $pid, l.startedAt = now, l.expiresAt = now + $ttlMs
)
REMOVE l.locking
RETURN free AS acquired, l.token AS token, l.host AS host, l.pid AS pid, l.startedAt AS startedAt,
       l.expiresAt - now AS expiresInMs
