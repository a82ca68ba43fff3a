// CommunitiesByLevel filters on level.
CREATE RANGE INDEX community_level IF NOT EXISTS
FOR (c:Community) ON (c.level)
