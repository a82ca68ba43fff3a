package main

import "github.com/stratarag/strata/pipeline"

const (
	flagRestructure  = "restructure"
	restructureUsage = "build the summary layers, communities and reports from scratch instead of updating them with what the run changes " +
		"(an update keeps clusters and communities where they are; run this after large changes, or to get exactly what a fresh ingest builds)"
)

// structureOutput is how a run brought the structure up to date (pipeline.StructureReport).
type structureOutput struct {
	// Mode is "update" (only what changed), "build" (from scratch) or "" (up to date).
	Mode   string `json:"mode"`
	Reason string `json:"reason,omitempty"` // why a build
	// ChangedEntities is the number of changed entities an update applied.
	ChangedEntities int                  `json:"changed_entities"`
	Summaries       structureSummaries   `json:"summaries"`
	Communities     structureCommunities `json:"communities"`
}

// structureSummaries counts what an update did to the summary layers' clusters, all layers
// together.
type structureSummaries struct {
	ClustersKept        int `json:"clusters_kept"`
	ClustersRegenerated int `json:"clusters_regenerated"`
	EntitiesPlaced      int `json:"entities_placed"` // new entities placed in an existing cluster
	Written             int `json:"written"`
	Removed             int `json:"removed"`
}

// structureCommunities counts the communities a run kept and the ones it reported again.
type structureCommunities struct {
	Total    int  `json:"total"`
	Kept     int  `json:"kept"`     // kept a stored id (reported again when they hold a changed entity)
	Reported int  `json:"reported"` // reports written: Total - Reported kept their report
	Removed  int  `json:"removed"`
	Fresh    bool `json:"fresh"` // an update computed them from scratch (drift bound)
}

func newStructureOutput(r pipeline.StructureReport) structureOutput {
	out := structureOutput{Mode: r.Mode, Reason: r.Reason, ChangedEntities: r.Changed}
	for _, l := range r.Layers {
		out.Summaries.ClustersKept += l.Kept
		out.Summaries.ClustersRegenerated += l.Regenerated
		out.Summaries.EntitiesPlaced += l.Assigned
		out.Summaries.Written += l.Written
		out.Summaries.Removed += l.Removed
	}
	c := r.Communities
	out.Communities = structureCommunities{Total: c.Total, Kept: c.Kept, Reported: len(c.Report), Removed: c.Removed, Fresh: c.Fresh}
	return out
}
