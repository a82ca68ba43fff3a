package main

import (
	"fmt"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/graph"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show what the store holds: documents, chunks, entities, summaries, communities, relationships per type",
		Flags: append(append(backendFlags(), logFlags()...),
			&cli.BoolFlag{Name: flagJSON, Usage: "print one JSON object on stdout"}),
		Action: runStatus,
	}
}

// statusOutput is status --json; "store" has the shape of ingest --json's.
type statusOutput struct {
	Backend backend           `json:"backend"`
	Store   storeCounts       `json:"store"`
	Meta    map[string]string `json:"meta"`
}

// statusMeta is the settings status shows: the ones the store was built with, which a later
// ingest must use or change knowingly (README, Inputs).
func statusMeta() []string {
	return []string{graph.MetaEmbeddingModel, graph.MetaEmbeddingDims, graph.MetaExtractor,
		graph.MetaChunking, graph.MetaLayers, graph.MetaSeed}
}

func runStatus(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError{fmt.Errorf("status takes no arguments, got %q; name the store with --%s", c.Args().First(), flagDataDir)}
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	store, be, err := openStore(c.Context, c, log, true)
	if err != nil {
		return err
	}
	defer closeStore(store, log)
	stats, err := store.Stats(c.Context)
	if err != nil {
		return fmt.Errorf("read store stats: %w", err)
	}
	counts := newStoreCounts(stats)
	meta := map[string]string{}
	for _, k := range statusMeta() {
		v, ok, err := store.Meta(c.Context, k)
		if err != nil {
			return err
		}
		if ok {
			meta[k] = v
		}
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, statusOutput{Backend: be, Store: counts, Meta: meta})
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Backend: %s\n", describe(be))
	for _, k := range statusMeta() {
		if v, ok := meta[k]; ok {
			fmt.Fprintf(w, "  %-16s %s\n", k, v)
		}
	}
	counts.write(w)
	return nil
}

func printCounts(w interface{ Write([]byte) (int, error) }, counts map[string]int64) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-14s %d\n", k, counts[k])
	}
}
