package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// storeCounts is what the store holds, as `ingest --json` and `status --json` both print it
// under "store": lowercase snake-case keys, nodes by kind, relationships by type.
type storeCounts struct {
	Nodes         map[string]int64 `json:"nodes"`
	Relationships map[string]int64 `json:"relationships"`
}

// nodeKeys name the node labels of graph.Stats in storeCounts, in display order.
func nodeKeys() []struct{ label, key string } {
	return []struct{ label, key string }{
		{"Document", "documents"},
		{"Chunk", "chunks"},
		{"Entity", "entities"},
		{"Summary", "summaries"},
		{"Community", "communities"},
	}
}

// newStoreCounts converts the store's label counts. Both backends label summary entities of the
// hierarchical index Entity and Summary (as Neo4j sees them); here "entities" are the extracted
// entities only (layer 0) and "summaries" the summary entities, so they never count twice.
func newStoreCounts(st graph.Stats) storeCounts {
	c := storeCounts{Nodes: map[string]int64{}, Relationships: map[string]int64{}}
	known := map[string]bool{}
	for _, k := range nodeKeys() {
		c.Nodes[k.key] = st.Nodes[k.label]
		known[k.label] = true
	}
	c.Nodes["entities"] -= st.Nodes["Summary"]
	for label, n := range st.Nodes {
		if !known[label] {
			c.Nodes[strings.ToLower(label)] = n
		}
	}
	for typ, n := range st.Relationships {
		c.Relationships[strings.ToLower(typ)] = n
	}
	return c
}

// summary is the one-line text form of the counts.
func (c storeCounts) summary() string {
	n, r := c.Nodes, c.Relationships
	return fmt.Sprintf("%d documents, %d chunks, %d entities, %d summaries, %d relations, %d communities",
		n["documents"], n["chunks"], n["entities"], n["summaries"], r["related"], n["communities"])
}

// write prints the counts as a table: nodes in display order, relationships by name.
func (c storeCounts) write(w io.Writer) {
	fmt.Fprintln(w, "Nodes:")
	for _, k := range nodeKeys() {
		fmt.Fprintf(w, "  %-14s %d\n", k.key, c.Nodes[k.key])
	}
	fmt.Fprintln(w, "Relationships:")
	printCounts(w, c.Relationships)
}
