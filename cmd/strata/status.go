package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/graph"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show what the store holds (documents, chunks, entities, summaries, communities, relationships per type) and whether the last ingest finished",
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
	Ingest  graph.IngestState `json:"ingest"`
	// Unsupported counts the entities and relations without evidence: always 0 for a store whose
	// graph is derived from evidence, null for one built before strata kept evidence.
	Unsupported *unsupportedCounts `json:"unsupported"`
	// Writer is the process holding the Neo4j database's writer lease (an ingest or delete
	// running, or one that died and whose lease the next writer takes over); null when none.
	Writer   *cypher.Lease `json:"writer"`
	Warnings []string      `json:"warnings"`
}

type unsupportedCounts struct {
	Entities  int64 `json:"entities"`
	Relations int64 `json:"relations"`
}

// statusMeta is the settings status shows: the ones the store was built with, which a later
// ingest must use or change knowingly (docs/INGEST.md, "Settings kept by the store").
func statusMeta() []string {
	return []string{graph.MetaEmbeddingModel, graph.MetaEmbeddingDims, graph.MetaExtractor,
		graph.MetaChunking, graph.MetaLayers, graph.MetaSeed, graph.MetaArch}
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
	// The embedded store is checked whole here (SQLite quick_check): status is where a user looks
	// when something seems off, and a damaged page that no count touches would hide otherwise.
	// The check reads the whole file, so it runs beside the counts; its error comes first.
	var check errgroup.Group
	if chk, ok := store.(interface{ QuickCheck(context.Context) error }); ok {
		check.Go(func() error { return chk.QuickCheck(c.Context) })
	}
	out, err := readStatus(c.Context, store, be)
	if cerr := check.Wait(); cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, out)
	}
	counts, meta, state, warnings := out.Store, out.Meta, out.Ingest, out.Warnings
	w := c.App.Writer
	fmt.Fprintf(w, "Backend: %s\n", describe(be))
	for _, k := range statusMeta() {
		if v, ok := meta[k]; ok {
			fmt.Fprintf(w, "  %-16s %s\n", k, v)
		}
	}
	fmt.Fprintf(w, "Last ingest: %s\n", describeIngest(state))
	if l := out.Writer; l != nil {
		fmt.Fprintf(w, "Writer: strata (pid %d on %s) since %s%s\n", l.PID, l.Host, l.Started.Format(time.RFC3339), leaseState(*l))
	}
	for _, line := range warnings {
		fmt.Fprintf(w, "  warning: %s\n", line)
	}
	counts.write(w)
	if u := out.Unsupported; u != nil {
		fmt.Fprintf(w, "  without evidence: %d entities, %d relations\n", u.Entities, u.Relations)
	}
	return nil
}

// readStatus gathers what status prints (strata serve's GET /status answers with it too).
func readStatus(ctx context.Context, store graph.Store, be backend) (statusOutput, error) {
	stats, err := store.Stats(ctx)
	if err != nil {
		return statusOutput{}, fmt.Errorf("read store stats: %w", err)
	}
	meta := map[string]string{}
	for _, k := range statusMeta() {
		v, ok, err := store.Meta(ctx, k)
		if err != nil {
			return statusOutput{}, err
		}
		if ok {
			meta[k] = v
		}
	}
	state, err := graph.ReadIngestState(ctx, store)
	if err != nil {
		return statusOutput{}, err
	}
	out := statusOutput{Backend: be, Store: newStoreCounts(stats), Meta: meta, Ingest: state,
		Warnings: append([]string{}, state.Warnings()...)}
	if lr, ok := store.(interface {
		WriterLease(context.Context) (cypher.Lease, bool, error)
	}); ok {
		l, held, err := lr.WriterLease(ctx)
		if err != nil {
			return statusOutput{}, err
		}
		if held {
			out.Writer = &l
		}
	}
	if evidence, _, err := store.Meta(ctx, graph.MetaEvidence); err != nil {
		return statusOutput{}, err
	} else if evidence != "" || stats.Nodes["Document"] == 0 {
		e, r, err := store.Unsupported(ctx)
		if err != nil {
			return statusOutput{}, err
		}
		out.Unsupported = &unsupportedCounts{Entities: e, Relations: r}
		if e+r > 0 {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%d entities and %d relations have no evidence left (an interrupted "+
				"ingest or delete leaves none; a completed one never does): run the same command again", e, r))
		}
	} else {
		out.Warnings = append(out.Warnings, "the store was built by an older strata that kept no per-chunk evidence: "+
			"ingest and delete refuse to change it until `strata ingest --rebuild PATH...` rebuilds it from the documents named")
	}
	return out, nil
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

// leaseState says whether a writer lease is live or left behind by a process that stopped.
func leaseState(l cypher.Lease) string {
	if l.ExpiresIn < 0 {
		return " (its process stopped renewing the lease; the next writer takes it over)"
	}
	return ""
}

// describeIngest sums up the last ingest in a few words; the warnings say what to do.
func describeIngest(s graph.IngestState) string {
	switch {
	case s.Unfinished:
		return "unfinished (started " + s.Started + ")"
	case s.StructureStale:
		return "structure stale"
	case s.Started == "":
		return "not recorded" // a store written before ingest runs were recorded, or never ingested
	case s.FailedDocuments > 0:
		return fmt.Sprintf("finished %s, %d document(s) failed", s.Finished, s.FailedDocuments)
	}
	return "finished " + s.Finished
}
