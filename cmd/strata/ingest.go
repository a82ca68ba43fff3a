package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/retrieval"
)

func ingestCommand() *cli.Command {
	def := pipeline.DefaultOptions()
	return &cli.Command{
		Name:      "ingest",
		Usage:     "load documents into the graph (files, folders, .txt/.md/.jsonl/.pdf/.html/.docx)",
		ArgsUsage: "PATH...",
		Description: "Loads every .txt, .md, .jsonl, .pdf, .html/.htm and .docx file under the given paths (the\n" +
			"text of PDF, HTML and Word documents; encrypted, corrupt or image-only ones are skipped), chunks\n" +
			"it, extracts entities and relations, merges them into the graph, embeds them, and recomputes\n" +
			"components, communities and community reports. Unchanged documents are skipped, so re-running is cheap; an interrupted run\n" +
			"resumes where it stopped. Bad inputs are reported and skipped: the run goes on and exits with\n" +
			"code 3; it fails (exit 1) when nothing could be ingested. A model that cannot follow the answer\n" +
			"format (half or more of a stage's answers unreadable, and at least 3 of them or all) also makes\n" +
			"the run exit 3, naming the stage and what to try. Interrupted (Ctrl-C), it stops\n" +
			"and says so; the same command resumes it.\n\n" +
			"A document's id is its path relative to the folder given, its path relative to the current\n" +
			"directory for a file named directly, or a JSON Lines record's \"id\"; a file already stored keeps\n" +
			"its id. A run is refused (exit 1) before it writes anything when two inputs share an id, when an\n" +
			"id belongs to another file (--replace), or when the chunk settings differ from the store's\n" +
			"(--rebuild); other --layers, --aggregate, --aggregate-k, --arch or --seed recompute the structure.\n" +
			"With --max-llm-tokens N the run first predicts its chat tokens as --dry-run does and is refused\n" +
			"(exit 2) before any call when they exceed N; once N are spent it starts no new call, lets the\n" +
			"calls in flight finish, keeps what it did and exits 1: the same command resumes it.\n" +
			"Hidden entries, symbolic links and other file types in folders are listed as ignored. See the\n" +
			"README, Inputs.",
		Flags: commonFlags(append(append(extractionFlags(), batchFlags()...), budgetFlag(),
			&cli.BoolFlag{Name: "dry-run", Usage: "estimate LLM calls and tokens for the inputs without calling anything or writing the store"},
			&cli.IntFlag{Name: "chunk-size", Value: def.Chunk.Size, Usage: "chunk size in cl100k_base tokens"},
			&cli.IntFlag{Name: "chunk-overlap", Value: def.Chunk.Overlap, Usage: "tokens shared by consecutive chunks"},
			&cli.IntFlag{Name: "concurrency", Value: def.Concurrency, Usage: "documents extracted in parallel"},
			&cli.Int64Flag{Name: "seed", Value: def.Seed, Usage: "random seed of community detection and of the hierarchical index"},
			&cli.IntFlag{Name: "layers", Value: def.Layers.MaxLayers, Usage: "summary layers of the hierarchical index at most (0: none)"},
			&cli.BoolFlag{Name: "aggregate", Value: def.Aggregate, Usage: "LeanRAG's aggregation: relate summary entities whose members share many relations (--aggregate=false: HiRAG's hierarchy alone)"},
			&cli.Float64Flag{Name: "aggregate-k", Value: def.Layers.AggregateK, Usage: "threshold of the aggregation per layer: pairs of summaries whose members share at least mean + k·sd (and 2) relations are related"},
			&cli.IntFlag{Name: "arch", Value: def.Arch.MaxLayers, Usage: fmt.Sprintf("layers of ArchRAG attributed communities at most, for --mode arch (0: none; %d neighbours per node, see the README)", arch.DefaultOptions().K)},
			&cli.BoolFlag{Name: flagRestructure, Usage: restructureUsage},
			&cli.BoolFlag{Name: "rebuild", Usage: "re-chunk (and extract again) every document of the run when --chunk-size or --chunk-overlap differ from the store's, and rebuild a store an older strata built (no per-chunk evidence) from the run's documents; without it such a run is refused"},
			&cli.BoolFlag{Name: "replace", Usage: "let an input take over a document id the store holds for another file; without it such a run is refused"},
			&cli.BoolFlag{Name: flagJSON, Usage: "print the run report as one JSON object on stdout"},
		)...),
		Action: runIngest,
	}
}

type ingestOutput struct {
	Backend     backend         `json:"backend"`
	Documents   int             `json:"documents"`
	Unchanged   int             `json:"unchanged"`
	Failed      int             `json:"failed"`
	Skipped     []string        `json:"skipped"`
	Ignored     []string        `json:"ignored"`                   // folder entries left out by rule: listed, not failures
	Unmapped    map[string]int  `json:"unmapped_glyphs,omitempty"` // by source: glyphs of a PDF with no Unicode mapping, left out
	Chunks      int             `json:"chunks"`
	Entities    int             `json:"entities"`
	Relations   int             `json:"relations"`
	Components  int             `json:"components"`
	Communities int             `json:"communities"`
	Arch        []arch.Layer    `json:"arch,omitempty"` // attributed-community layers built (--arch)
	Structure   structureOutput `json:"structure"`
	// Neo4jStatements is what each Cypher statement cost, the most time first (Neo4j only).
	Neo4jStatements []statementOutput `json:"neo4j_statements,omitempty"`
	Usage           retrieval.Usage   `json:"usage"`
	LLM             *llm.Stats        `json:"llm,omitempty"` // per-stage accounting, with a model
	// LLMPerCorpusToken is each stage's chat tokens (prompt + completion) per token of the chunks
	// the run wrote, and their total: the cost of the index, with a model.
	LLMPerCorpusToken map[string]float64 `json:"llm_tokens_per_corpus_token,omitempty"`
	Store             *storeCounts       `json:"store,omitempty"` // what the store holds after the run
	TimingsMS         map[string]float64 `json:"timings_ms"`
	// Neo4jStages is each stage's share of the statements (Neo4j only).
	Neo4jStages map[string]stageStatements `json:"neo4j_stages,omitempty"`
	Malformed   malformedByStage           `json:"malformed_answers"`
	// Unusable lists the stages whose answers the model mostly could not give in the format
	// asked for (see unusable); any makes the run exit 3.
	Unusable []string `json:"unusable_stages"`
	// Error and Code are set when some inputs failed or were skipped, or some stage was unusable
	// (exit code 3), so that the
	// report is also the one {"error", "code"} object every failure prints with --json.
	Error string `json:"error,omitempty"`
	Code  int    `json:"code,omitempty"`
}

func runIngest(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError{errors.New("ingest needs at least one PATH (a file or a folder)")}
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	// The options are validated here, once, before anything is opened: the Ingester uses them
	// as they are.
	opt := pipeline.DefaultOptions()
	opt.Chunk.Size, opt.Chunk.Overlap = c.Int("chunk-size"), c.Int("chunk-overlap")
	opt.Concurrency = c.Int("concurrency")
	opt.EmbedBatch, opt.EmbedTokens = c.Int(flagEmbeddingBatch), c.Int(flagEmbeddingToks)
	opt.Layers.MaxLayers = c.Int("layers")
	opt.Aggregate, opt.Layers.AggregateK = c.Bool("aggregate"), c.Float64("aggregate-k")
	opt.Arch.MaxLayers = c.Int("arch")
	opt.Seed = c.Int64("seed")
	opt.Rebuild, opt.Replace, opt.Restructure = c.Bool("rebuild"), c.Bool("replace"), c.Bool(flagRestructure)
	if err := opt.Validate(); err != nil {
		return usageError{err}
	}
	extOpt, err := extractionOptions(c)
	if err != nil {
		return err
	}
	structure, err := parseStructure(c)
	if err != nil {
		return err
	}
	opt.ModelStructureAll = structure.all
	budget, err := tokenBudget(c)
	if err != nil {
		return err
	}
	m, err := setupModels(c, log)
	if err != nil {
		return err
	}
	tok, err := tokenizer.New()
	if err != nil {
		return err
	}
	fanOut := batchFanOut(c, m, &opt)
	in, err := m.parts(tok, extOpt, structure, fanOut, log).Ingester(nil, opt) // the store comes below
	if err != nil {
		return err
	}
	if c.Bool("dry-run") {
		// A store that exists is read, never written: the estimate leaves out what it holds.
		store, err := openExistingReadOnly(c, log)
		if err != nil {
			return err
		}
		if store != nil {
			defer closeStore(store, log)
			in.Store = store
		}
		return runDryRun(c, in)
	}
	if budget > 0 && m.chat != nil {
		if err := predictIngest(c, in, budget, log); err != nil {
			return err
		}
	}
	if err := m.prepareEmbedder(c.Context); err != nil {
		return err
	}
	// Started before the store opens and stopped after it closes: opening checks the database
	// and closing writes the query files, both part of what an ingest costs.
	if path := os.Getenv(heapProfileEnv); path != "" {
		stop := profileHeap(c.Context, path, log)
		defer stop()
	}
	if prefix := os.Getenv(cpuProfileEnv); prefix != "" {
		stop := profileCPU(c.Context, prefix, log)
		defer stop()
	}
	store, be, err := openStore(c.Context, c, log, false)
	if err != nil {
		return err
	}
	defer closeIngestStore(store, log)
	in.Store = store
	in.Memory = memoryPolicy()
	in.Memory.Apply()
	if isTerminal(c.App.ErrWriter) {
		in.Progress = &progressBar{writer: c.App.ErrWriter}
	}
	rep, err := in.Run(c.Context, c.Args().Slice())
	defer writeQueryFilesEarly(c.Context, store, log)() // before closeIngestStore
	out := ingestOutput{
		Backend: be, Documents: rep.Documents, Unchanged: rep.Unchanged, Failed: rep.Failed, Skipped: []string{}, Ignored: []string{},
		Unmapped: rep.Unmapped, Chunks: rep.Chunks, Entities: rep.Entities, Relations: rep.Relations, Components: rep.Components,
		Communities: rep.Communities, Arch: rep.Arch, Structure: newStructureOutput(rep.Structure), Usage: m.usage(),
		TimingsMS: map[string]float64{"total": ms(rep.Duration)},
	}
	for _, p := range rep.Problems {
		out.Skipped = append(out.Skipped, p.String())
	}
	for _, p := range rep.Ignored {
		out.Ignored = append(out.Ignored, p.String())
	}
	if m.client != nil {
		st := m.client.Stats()
		out.LLM = &st
		out.LLMPerCorpusToken = perCorpusToken(st, rep.ChunkTokens)
	}
	out.Malformed = malformedAnswers(out.LLM)
	out.Unusable = unusableStages(out.LLM)
	if err == nil {
		st, serr := store.Stats(c.Context)
		if serr != nil {
			log.Warn().Err(serr).Msg("read store stats")
		} else {
			counts := newStoreCounts(st)
			out.Store = &counts
		}
		if d := writeSnapshots(c, store, log); d > 0 {
			out.TimingsMS["snapshots"] = ms(d)
		}
	}
	for stage, d := range rep.StageDuration {
		out.TimingsMS[stage] = ms(d)
	}
	out.Neo4jStages = neo4jStages(rep.StageStatements)
	out.Neo4jStatements = neo4jStatements(store)
	if m.client != nil {
		_ = writeUsageTable(c.App.ErrWriter, m.client.Stats())
		if line := perCorpusTokenLine(out.LLMPerCorpusToken); line != "" {
			fmt.Fprintln(c.App.ErrWriter, line)
		}
	}
	if err != nil {
		return err
	}
	// Some inputs lost is not success, and neither is a graph the model contributed next to
	// nothing to: exit 3 tells a script so, with or without --json.
	var problems []string
	if out.Failed > 0 || len(out.Skipped) > 0 {
		problems = append(problems, fmt.Sprintf("%d document(s) failed and %d input(s) skipped; see the report, fix the inputs and run the same command again", out.Failed, len(out.Skipped)))
	}
	if line := describeUnusable(out.LLM, extOpt.Mode); line != "" {
		problems = append(problems, line)
	}
	var partial error
	if len(problems) > 0 {
		partial = partialError{errors.New(strings.Join(problems, "; and "))}
		out.Error, out.Code = partial.Error(), exitPartial
	}
	if c.Bool(flagJSON) {
		reportMalformed(log, nil, out.LLM)
		if err := writeJSON(c, out); err != nil {
			return err
		}
		return partial
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Ingested into the %s\n", describe(be))
	fmt.Fprintf(w, "  documents  %d written, %d unchanged, %d failed, %d inputs skipped, %d ignored\n", out.Documents, out.Unchanged, out.Failed, len(out.Skipped), len(out.Ignored))
	if len(out.Unmapped) > 0 {
		glyphs := 0
		for _, n := range out.Unmapped {
			glyphs += n
		}
		fmt.Fprintf(w, "  text       %d glyphs with no Unicode mapping left out of %d PDF(s) (unmapped_glyphs in --json)\n", glyphs, len(out.Unmapped))
	}
	fmt.Fprintf(w, "  written    %d chunks, %d entity and %d relation updates\n", out.Chunks, out.Entities, out.Relations)
	if out.Components > 0 {
		fmt.Fprintf(w, "  structure  %d components, %d communities (recomputed)\n", out.Components, out.Communities)
	} else {
		fmt.Fprintln(w, "  structure  unchanged")
	}
	if len(out.Arch) > 0 {
		fmt.Fprintf(w, "  arch      ")
		for _, l := range out.Arch {
			fmt.Fprintf(w, " layer %d: %d communities over %d nodes;", l.Layer, l.Communities, l.Nodes)
		}
		fmt.Fprintln(w)
	}
	if out.Store != nil {
		fmt.Fprintf(w, "  store now  %s\n", out.Store.summary())
	}
	writeTimings(w, out.TimingsMS, out.Neo4jStages)
	reportMalformed(log, w, out.LLM)
	if out.Failed > 0 {
		fmt.Fprintf(w, "  %d document(s) failed; run the same command again to retry them\n", out.Failed)
	}
	return partial
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeTimings prints a run's stage times on one line, stages by name, and on Neo4j each
// stage's statements on another.
func writeTimings(w io.Writer, timings map[string]float64, statements map[string]stageStatements) {
	stages := make([]string, 0, len(timings))
	for s := range timings {
		stages = append(stages, s)
	}
	sort.Strings(stages)
	fmt.Fprint(w, "  time      ")
	for _, s := range stages {
		fmt.Fprintf(w, " %s %s", s, time.Duration(timings[s]*float64(time.Millisecond)).Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	if len(statements) == 0 {
		return
	}
	fmt.Fprint(w, "  neo4j     ")
	for _, s := range stages {
		if st, ok := statements[s]; ok && st.Statements > 0 {
			fmt.Fprintf(w, " %s %d statements (%s)", s, st.Statements, time.Duration(st.MS*float64(time.Millisecond)).Round(time.Millisecond))
		}
	}
	fmt.Fprintln(w)
}

func writeJSON(c *cli.Context, v any) error {
	enc := json.NewEncoder(c.App.Writer)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return nil
}

// progressBar shows document progress on a terminal.
type progressBar struct {
	writer interface{ Write([]byte) (int, error) }
	bar    *progressbar.ProgressBar
}

func (p *progressBar) Start(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.writer),
		progressbar.OptionSetDescription("documents"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *progressBar) Add(n int) { _ = p.bar.Add(n) }

func (p *progressBar) Finish() { _ = p.bar.Finish() }
