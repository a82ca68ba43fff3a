// Tests only: whether the database holds nodes that strata's tests did not write, in which case
// the tests refuse to wipe it.
// @param marker STRING
RETURN
  EXISTS { MATCH (n) WHERE NOT n:StrataMeta OR n.key <> $marker } AS used,
  EXISTS { MATCH (:StrataMeta {key: $marker}) } AS marked
