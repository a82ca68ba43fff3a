// Renames the components in $from to $to (UpdateComponents: the part of a touched component its
// search did not visit).
// @param from LIST<INTEGER>
// @param to INTEGER
MATCH (e:Entity)
WHERE e.componentId IN $from
SET e.componentId = $to
