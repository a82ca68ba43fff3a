// Server name, versions and edition, for the minimum-version check in Open.
CALL dbms.components()
YIELD name, versions, edition
RETURN name, versions, edition
