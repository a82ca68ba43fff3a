// Contract test only: whether the database holds nodes that the contract test did not write, in
// which case the test refuses to wipe it.
// @param marker STRING
RETURN
  EXISTS { MATCH (n) WHERE NOT n:StrataMeta OR n.key <> $marker } AS used,
  EXISTS { MATCH (:StrataMeta {key: $marker}) } AS marked
