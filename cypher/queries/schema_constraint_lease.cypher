// Makes StrataLease.id unique, so that two writers taking the lease at once MERGE one node.
CREATE CONSTRAINT strata_lease_id IF NOT EXISTS
FOR (l:StrataLease) REQUIRE l.id IS UNIQUE
