// Version of the Graph Data Science plugin; fails with ProcedureNotFound when it is not installed.
CALL gds.version()
YIELD gdsVersion
RETURN gdsVersion
