package cypher

// Names of the statements of the attributed-community hierarchy (arch.go), kept apart from
// querynames.go; queries_test.go checks them with the others.
const (
	qSchemaConstraintArch     = "schema_constraint_arch"
	qSchemaIndexArchLayer     = "schema_index_arch_layer"
	qArchProjectEntities      = "arch_project_entities"
	qArchProjectCommunities   = "arch_project_communities"
	qArchKNNStream            = "arch_knn_stream"
	qArchLinksEntities        = "arch_links_entities"
	qArchLinksCommunities     = "arch_links_communities"
	qArchProjectWeighted      = "arch_project_weighted"
	qArchLeidenStream         = "arch_leiden_stream"
	qArchDelete               = "arch_delete"
	qArchMissingEntities      = "arch_missing_entities"
	qArchMissingCommunities   = "arch_missing_communities"
	qArchCreate               = "arch_create"
	qArchMembersEntities      = "arch_members_entities"
	qArchMembersCommunities   = "arch_members_communities"
	qArchLinksCreate          = "arch_links_create"
	qArchReadLayer            = "arch_read_layer"
	qArchReadByID             = "arch_read_by_id"
	qArchSearchEntities       = "arch_search_entities"
	qArchSearchEntitiesWithin = "arch_search_entities_within"
	qArchSearchCommunities    = "arch_search_communities"
	qArchNodesEntities        = "arch_nodes_entities"
	qArchNodesCommunities     = "arch_nodes_communities"
)

// archQueryNames lists the constants above.
var archQueryNames = []string{
	qSchemaConstraintArch, qSchemaIndexArchLayer, qArchProjectEntities, qArchProjectCommunities,
	qArchKNNStream, qArchLinksEntities, qArchLinksCommunities, qArchProjectWeighted, qArchLeidenStream,
	qArchDelete, qArchMissingEntities, qArchMissingCommunities, qArchCreate, qArchMembersEntities,
	qArchMembersCommunities, qArchLinksCreate, qArchReadLayer, qArchReadByID,
	qArchSearchEntities, qArchSearchEntitiesWithin, qArchSearchCommunities, qArchNodesEntities, qArchNodesCommunities,
}
