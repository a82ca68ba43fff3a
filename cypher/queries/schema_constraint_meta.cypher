// Makes StrataMeta.key unique: one value per key.
CREATE CONSTRAINT strata_meta_key IF NOT EXISTS
FOR (m:StrataMeta) REQUIRE m.key IS UNIQUE
