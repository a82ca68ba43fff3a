// Contract test only: drops the vector index so that a subtest may use another dimension.
DROP INDEX community_embedding IF EXISTS
