package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/pipeline"
)

// runDryRun prints what ingesting the inputs would take (pipeline.Ingester.Estimate), without
// calling a model or opening the store.
func runDryRun(c *cli.Context, in *pipeline.Ingester) error {
	est, err := in.Estimate(c.Context, c.Args().Slice())
	if err != nil {
		return err
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, est)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Dry run: %d documents, %d chunks, %d corpus tokens, %d inputs skipped, %d ignored\n", est.Documents, est.Chunks, est.CorpusTokens, len(est.Problems), len(est.Ignored))
	if est.Offline {
		fmt.Fprintln(w, "Offline: ingesting makes no LLM calls.")
		return nil
	}
	if err := writeEstimateTable(w, est.LLM); err != nil {
		return err
	}
	fmt.Fprintf(w, "Extraction: %.1f LLM tokens per corpus token\n", est.TokensPerCorpusToken)
	return nil
}

// keepCacheUnwritten turns the LLM response cache off (--no-cache) for a dry run when its
// directory does not exist yet. Opening the cache creates its directory (llm.OpenCache), and a
// dry run writes nothing; a cache that does not exist answers nothing, so the estimate is the
// same without it. A cache that exists is left on: the dry run only reads it (Client.Lookup,
// HasVector) to count the calls it already answers. It must run before setupModels.
func keepCacheUnwritten(c *cli.Context) error {
	if c.Bool(flagNoCache) {
		return nil
	}
	// The same default as setupModels'.
	dir := c.String(flagCacheDir)
	if dir == "" {
		dir = filepath.Join(c.String(flagDataDir), "llm-cache")
	}
	_, err := os.Stat(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or unreadable: opening it creates nothing, or says what is wrong
	}
	if err := c.Set(flagNoCache, "true"); err != nil {
		return fmt.Errorf("dry run without the absent LLM cache %s: %w", dir, err)
	}
	return nil
}
