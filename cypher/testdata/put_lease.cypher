// Makes another writer the holder of the writer lease, as its process would have left it.
// @param host STRING
// @param pid INTEGER
// @param expiresInMs INTEGER
MERGE (l:StrataLease {id: 'writer'})
SET l.token = 'other-writer', l.host = $host, l.pid = $pid, l.startedAt = timestamp(),
    l.expiresAt = timestamp() + $expiresInMs
