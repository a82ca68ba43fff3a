// Who holds the writer lease, if anyone, and how long until it expires (negative: expired).
MATCH (l:StrataLease {id: 'writer'})
RETURN l.host AS host, l.pid AS pid, l.startedAt AS startedAt, l.expiresAt - timestamp() AS expiresInMs
