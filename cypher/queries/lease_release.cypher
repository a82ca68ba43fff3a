// Gives the writer lease up, if $token still holds it.
// @param token STRING
MATCH (l:StrataLease {id: 'writer'})
WHERE l.token = $token
DELETE l
