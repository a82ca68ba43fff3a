// strata's indexes and uniqueness constraints that exist (a constraint's backing index carries
// its name as owningConstraint) and their state, so that Open runs only the schema statements
// whose object is missing and waits for indexes only when one is not online yet.
SHOW INDEXES
YIELD name, owningConstraint, state
RETURN name, owningConstraint, state
