package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/retrieval"
)

func deleteCommand() *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Usage:     "remove documents, and everything only they said, from the graph",
		ArgsUsage: "DOC_ID... | --missing PATH...",
		Description: "Deletes the documents with the given ids (as `strata ingest` gave them: see the README,\n" +
			"Inputs) with their chunks. What those chunks said is taken back: every entity and relation they\n" +
			"mentioned is derived again from the evidence of the chunks that remain, and the ones left\n" +
			"without any are removed, so the graph is the one an ingest of the remaining documents builds.\n" +
			"The same command then recomputes the summary layers, components, communities, reports and\n" +
			"attributed communities with the settings the store records (with a model, only summaries and\n" +
			"reports whose members changed\n" +
			"cost a call: the rest come from the response cache). Use the model flags the store was built\n" +
			"with. An unknown id fails the command before anything is deleted.\n\n" +
			"With --missing, the arguments are files or folders: every stored document that came from under\n" +
			"them and is no longer there (its file is gone, or its JSON Lines record's id is) is deleted.\n" +
			"With --dry-run, nothing is written: the documents that would go are listed with what their\n" +
			"deletion would change and, with a model, the calls the structure update would make. Interrupted, it stops and says so; each document goes in one\n" +
			"transaction, so the store stays consistent: run the command again with the ids still stored\n" +
			"(--missing finds them by itself), or any ingest, and the structure is completed.\n\n" +
			"With --max-llm-tokens N the deletion first predicts its chat tokens as --dry-run does and is\n" +
			"refused (exit 2) before any call when they exceed N; once N are spent it starts no new call and\n" +
			"exits 1, the store consistent and its structure completed as after an interruption.",
		Flags: commonFlags(append(append(extractionFlags(), batchFlags()...), budgetFlag(),
			&cli.BoolFlag{Name: "missing", Usage: "the arguments are PATHs: delete the stored documents from under them that are no longer there"},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be deleted and changed without writing anything"},
			&cli.BoolFlag{Name: flagRestructure, Usage: restructureUsage},
			&cli.BoolFlag{Name: flagJSON, Usage: "print the report as one JSON object on stdout"},
		)...),
		Action: runDelete,
	}
}

type deletedDocument struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Source string `json:"source"`
}

type deleteOutput struct {
	Backend          backend           `json:"backend"`
	DryRun           bool              `json:"dry_run"`
	Deleted          []deletedDocument `json:"deleted"`
	Unknown          []string          `json:"unknown"`
	Chunks           int               `json:"chunks"`
	EntitiesUpdated  int               `json:"entities_updated"`
	EntitiesRemoved  int               `json:"entities_removed"`
	RelationsUpdated int               `json:"relations_updated"`
	RelationsRemoved int               `json:"relations_removed"`
	Components       int               `json:"components"`
	Communities      int               `json:"communities"`
	Structure        structureOutput   `json:"structure"`
	Usage            retrieval.Usage   `json:"usage"`
	LLM              *llm.Stats        `json:"llm,omitempty"`
	// Offline and Estimate (dry run only): the model calls of the structure update, in the shape
	// of ingest --dry-run's; Offline when no structure stage calls a model.
	Offline   *bool              `json:"offline,omitempty"`
	Estimate  *llm.Estimate      `json:"estimate,omitempty"`
	Store     *storeCounts       `json:"store,omitempty"`
	TimingsMS map[string]float64 `json:"timings_ms"`
	// Neo4jStages is each stage's share of the statements (Neo4j only).
	Neo4jStages map[string]stageStatements `json:"neo4j_stages,omitempty"`
}

func runDelete(c *cli.Context) error {
	if c.NArg() == 0 {
		if c.Bool("missing") {
			return usageError{errors.New("delete --missing needs at least one PATH (a file or a folder)")}
		}
		return usageError{errors.New("delete needs at least one DOC_ID (or --missing PATH...)")}
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	if _, err := extractionOptions(c); err != nil {
		return err
	}
	structure, err := parseStructure(c)
	if err != nil {
		return err
	}
	budget, err := tokenBudget(c)
	if err != nil {
		return err
	}
	dryRun := c.Bool("dry-run")
	m, err := setupModels(c, log)
	if err != nil {
		return err
	}
	tok, err := tokenizer.New()
	if err != nil {
		return err
	}
	store, be, err := openStore(c.Context, c, log, dryRun)
	if err != nil {
		return err
	}
	defer closeStore(store, log)
	opt := pipeline.DefaultOptions() // the structure settings come from the store
	opt.ModelStructureAll = structure.all
	fanOut := batchFanOut(c, m, &opt)
	// Without the flags, the defaults: the extractor names what the store must have been built
	// with.
	extOpt, err := extractionOptions(c)
	if err != nil {
		return err
	}
	in, err := m.parts(tok, extOpt, structure, fanOut, log).Ingester(store, opt)
	if err != nil {
		return err
	}
	in.Memory = memoryPolicy() // its stages only: a delete keeps the process's target
	in.Options.Restructure = c.Bool(flagRestructure)
	ids := c.Args().Slice()
	if c.Bool("missing") {
		docs, err := in.MissingDocuments(c.Context, ids)
		if err != nil {
			return err
		}
		ids = ids[:0]
		for _, d := range docs {
			ids = append(ids, d.ID)
		}
		if len(ids) == 0 {
			log.Info().Strs("paths", c.Args().Slice()).Msg("no stored document is missing from these paths")
		}
	}
	if !dryRun {
		if budget > 0 && m.chat != nil {
			if err := predictDelete(c, in, ids, budget, log); err != nil {
				return err
			}
		}
		// After the prediction, so that a deletion refused by it has made no model call; the
		// store's model check and vector indexes need the dimension only from the first write.
		if err := m.prepareEmbedder(c.Context); err != nil {
			return err
		}
	}
	rep, err := in.Delete(c.Context, ids, dryRun)
	if err != nil {
		return err
	}
	if !dryRun {
		defer writeQueryFilesEarly(c.Context, store, log)() // before closeStore
	}
	out := deleteOutput{
		Backend: be, DryRun: dryRun, Deleted: []deletedDocument{}, Unknown: append([]string{}, rep.Unknown...),
		Chunks: rep.DeletedChunks, EntitiesUpdated: rep.Entities, EntitiesRemoved: rep.DeletedEntities,
		RelationsUpdated: rep.Relations, RelationsRemoved: rep.DeletedRelations,
		Components: rep.Components, Communities: rep.Communities, Structure: newStructureOutput(rep.Structure), Usage: m.usage(),
		TimingsMS: map[string]float64{"total": ms(rep.Duration)},
	}
	if dryRun && len(rep.Deleted) > 0 {
		out.Offline, out.Estimate = &rep.Offline, &rep.Estimate
	}
	for _, d := range rep.Deleted {
		out.Deleted = append(out.Deleted, deletedDocument{ID: d.ID, Title: d.Title, Source: d.Source})
	}
	if !dryRun && len(rep.Deleted) > 0 {
		if d := writeSnapshots(c, store, log); d > 0 {
			out.TimingsMS["snapshots"] = ms(d)
		}
	}
	for stage, d := range rep.StageDuration {
		out.TimingsMS[stage] = ms(d)
	}
	out.Neo4jStages = neo4jStages(rep.StageStatements)
	if m.client != nil {
		st := m.client.Stats()
		out.LLM = &st
		_ = writeUsageTable(c.App.ErrWriter, st)
	}
	if st, err := store.Stats(c.Context); err != nil {
		log.Warn().Err(err).Msg("read store stats")
	} else {
		counts := newStoreCounts(st)
		out.Store = &counts
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, out)
	}
	return printDelete(c, out)
}

func printDelete(c *cli.Context, out deleteOutput) error {
	w := c.App.Writer
	verb := "Deleted"
	if out.DryRun {
		verb = "Would delete (dry run, nothing written)"
	}
	fmt.Fprintf(w, "%s from the %s: %d document(s)\n", verb, describe(out.Backend), len(out.Deleted))
	for _, d := range out.Deleted {
		fmt.Fprintf(w, "  %s  (%s)\n", d.ID, d.Source)
	}
	if len(out.Unknown) > 0 {
		fmt.Fprintf(w, "  not in the store: %s\n", strings.Join(out.Unknown, ", "))
	}
	fmt.Fprintf(w, "  chunks     %d\n", out.Chunks)
	fmt.Fprintf(w, "  entities   %d updated, %d removed\n", out.EntitiesUpdated, out.EntitiesRemoved)
	fmt.Fprintf(w, "  relations  %d updated, %d removed\n", out.RelationsUpdated, out.RelationsRemoved)
	if !out.DryRun && len(out.Deleted) > 0 {
		fmt.Fprintf(w, "  structure  %d components, %d communities (recomputed)\n", out.Components, out.Communities)
	}
	if out.Offline != nil && *out.Offline {
		fmt.Fprintln(w, "Offline: updating the structure makes no LLM calls.")
	} else if out.Estimate != nil {
		fmt.Fprintln(w, "Structure update, predicted:")
		if err := writeEstimateTable(w, *out.Estimate); err != nil {
			return err
		}
	}
	if out.Store != nil {
		fmt.Fprintf(w, "  store now  %s\n", out.Store.summary())
	}
	writeTimings(w, out.TimingsMS, out.Neo4jStages)
	return nil
}
