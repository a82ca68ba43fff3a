// ArchLayer, ArchSearch and ArchPartition filter attributed communities on layer.
CREATE RANGE INDEX arch_community_layer IF NOT EXISTS
FOR (c:ArchCommunity) ON (c.layer)
