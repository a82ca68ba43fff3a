package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	api "github.com/stratarag/strata"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/retrieval"
)

func queryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "answer a question from the graph",
		ArgsUsage: `"QUESTION"`,
		Description: "Retrieves context for the question and, when an LLM is configured, generates an answer that\n" +
			"cites its sources. Modes: hi (default; HiRAG: entities, community reports and the bridge paths\n" +
			"between them, plus source chunks), naive (chunk vector + full-text search), local (GraphRAG local\n" +
			"search: entities, their relations, chunks and community reports), global (GraphRAG global search:\n" +
			"community reports of one level, mapped to scored points by the model, ranked; offline, scored\n" +
			"by similarity; keep --max-context-tokens within the model's window, it also sizes the map\n" +
			"batches), arch (ArchRAG: the nearest nodes of every layer of a store ingested with --arch,\n" +
			"each layer searched on its own, filtered into scored points per layer, plus source\n" +
			"chunks), lca (LeanRAG: entities, the summaries on the paths up to their lowest common ancestor\n" +
			"and the relations among them, plus source chunks), and the ablations hi_local, hi_global,\n" +
			"hi_bridge, hi_nobridge. With --json, stdout holds exactly one JSON object.\n\n" +
			"On a terminal the answer is printed while the model writes it (--stream auto), its reasoning\n" +
			"and the citations it made up held back, so that the text ends up as it would be printed whole;\n" +
			"--stream always does the same into a pipe, --stream never prints it once it is complete.\n" +
			"--json never streams.",
		Flags: commonFlags(append(retrievalFlags(),
			&cli.BoolFlag{Name: "context-only", Usage: "retrieve the context but do not generate an answer"},
			&cli.BoolFlag{Name: flagJSON, Usage: "print one JSON object on stdout (shape in the README)"},
			&cli.StringFlag{Name: flagStream, Value: streamAuto,
				Usage: "print the answer while it is written: auto (when stdout is a terminal), always, never"},
		)...),
		Action: runQuery,
	}
}

// The values of query's --stream.
const (
	flagStream   = "stream"
	streamAuto   = "auto"
	streamAlways = "always"
	streamNever  = "never"
)

// streamAnswer tells whether query prints the answer while it is written: on a terminal unless
// --stream says otherwise, and never with --json, whose stdout is one object.
func streamAnswer(c *cli.Context) (bool, error) {
	switch v := c.String(flagStream); v {
	case streamAuto:
		return !c.Bool(flagJSON) && isTerminal(c.App.Writer), nil
	case streamAlways:
		if c.Bool(flagJSON) {
			return false, usageError{fmt.Errorf("--%s %s and --%s do not go together: --%s prints one object once the answer is complete", flagStream, v, flagJSON, flagJSON)}
		}
		return true, nil
	case streamNever:
		return false, nil
	default:
		return false, usageError{fmt.Errorf("--%s: want %s, %s or %s, got %q", flagStream, streamAuto, streamAlways, streamNever, v)}
	}
}

// answerPrinter prints an answer's text while it is written (retrieval.WithAnswerStream).
type answerPrinter struct {
	w, errw io.Writer
	printed bool // some text is on w, without the newline that ends the answer
}

func (p *answerPrinter) write(d retrieval.Delta) {
	if d.Reset {
		// What was printed cannot be taken back from a terminal: a note says that the answer
		// starts again below it.
		if p.printed {
			fmt.Fprint(p.w, "\n\n")
		}
		fmt.Fprintln(p.errw, "strata: warning: the model's answer broke off and was asked for again; it follows in full")
		p.printed = false
	}
	if d.Text != "" {
		fmt.Fprint(p.w, d.Text)
		p.printed = true
	}
}

// retrievalFlags are shared by query and eval. Their defaults are retrieval.DefaultOptions'; the
// entity count and the context budget depend on the mode, so 0 stands for the mode's.
func retrievalFlags() []cli.Flag {
	def := retrieval.DefaultOptions(retrieval.DefaultMode)
	loc := retrieval.DefaultOptions(retrieval.ModeLocal)
	lca := retrieval.DefaultOptions(retrieval.ModeLCA)
	names := make([]string, 0, len(retrieval.Modes()))
	for _, m := range retrieval.Modes() {
		names = append(names, m.String())
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "mode", Value: def.Mode.String(), Usage: "retrieval mode: " + strings.Join(names, ", ")},
		&cli.IntFlag{Name: "top-k", Value: def.TopK, Usage: "number of source chunks in the context"},
		&cli.IntFlag{Name: "entities", Usage: fmt.Sprintf("number of seed entities (default: %d in hi modes, %d in local, %d in lca), or of nodes per layer in arch (default %d)", def.Entities, loc.Entities, lca.Entities, retrieval.DefaultOptions(retrieval.ModeArch).Entities)},
		&cli.Float64Flag{Name: "ppr-weight", Category: "Retrieval", Usage: "weight of hi's personalized PageRank channel among its source rankings (0: off; the store must rank chunks by PPR; see docs/RETRIEVAL.md)"},
		&cli.IntFlag{Name: "max-context-tokens", Usage: fmt.Sprintf("token budget of the context text (default: %d, %d in lca)", retrieval.DefaultContextTokens, lca.MaxContextTokens)},
	}
}

// queryOptions parses the mode, takes its defaults, applies the flags given and validates the
// result once; retrieval uses it as it is.
func queryOptions(c *cli.Context) (retrieval.Options, error) {
	mode, err := retrieval.ParseMode(c.String("mode"))
	if err != nil {
		return retrieval.Options{}, usageError{fmt.Errorf("--mode: %w", err)}
	}
	topK := c.Int("top-k")
	opt, err := retrieval.NewOptions(mode, retrieval.Overrides{TopK: &topK, Entities: c.Int("entities"),
		MaxContextTokens: c.Int("max-context-tokens"), PPRWeight: c.Float64("ppr-weight"), ContextOnly: c.Bool("context-only")})
	if err != nil {
		return opt, usageError{err}
	}
	return opt, nil
}

// newEngine opens the store read-only and sets up the retrieval engine; close releases the store.
// resident is for a caller that asks many questions (strata eval; see openEngine). ctx is the
// store's opening context: strata query opens in its one query's read scope.
func newEngine(ctx context.Context, c *cli.Context, resident bool) (engine *retrieval.Engine, m *models, closeFn func(), err error) {
	log, err := newLogger(c)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err = setupModels(c, log)
	if err != nil {
		return nil, nil, nil, err
	}
	// The tokenizer's tables load while the store opens and the context is retrieved; callers
	// check engine.Tokenizer.Err() once they have a result.
	tok := tokenizer.Load()
	engine, _, closeFn, err = openEngine(ctx, c, log, m, tok, resident, flagLocation(c))
	if err != nil {
		return nil, nil, nil, err
	}
	return engine, m, closeFn, nil
}

// openEngine opens the store read-only, checks that it holds vectors of the configured embedding
// model, and returns the engine over it; close releases the store. strata serve calls it again
// while the store cannot be opened. A resident engine (strata serve) keeps the embedded store's
// read structures in memory between queries (embedded.Options.Resident). loc is the store's
// location, flagLocation's but for strata serve's workspaces.
func openEngine(ctx context.Context, c *cli.Context, log zerolog.Logger, m *models, tok *tokenizer.Tokenizer, resident bool, loc storeLocation) (*retrieval.Engine, backend, func(), error) {
	store, be, err := openStoreAt(ctx, c, log, embedded.Options{ReadOnly: true, Resident: resident}, loc)
	if err != nil {
		return nil, be, nil, err
	}
	// The model name is checked before the dimension probe, which needs the API; the
	// dimension after it. Both read the store's record once: on Neo4j each read is a round
	// trip a fresh query process waits for.
	var stored map[string]string
	for _, step := range []func() error{
		func() (err error) {
			stored, err = graph.MetaValues(ctx, store, graph.MetaEmbeddingModel, graph.MetaEmbeddingDims)
			return err
		},
		func() error { return useStoredEmbedder(c, log, m, stored) },
		func() error {
			_, err := graph.CompareEmbeddingModel(stored, m.embedder.Model(), m.embedder.Dimensions())
			if err != nil && !c.IsSet(flagEmbeddingModel) {
				// The user chose no model: the default was taken, and the flag that picks the
				// store's is what they need to know.
				err = fmt.Errorf("%w; this run chose none (--%s)", err, flagEmbeddingModel)
			}
			return err
		},
		func() error { return m.prepareEmbedder(ctx) },
		func() error {
			_, err := graph.CompareEmbeddingModel(stored, m.embedder.Model(), m.embedder.Dimensions())
			return err
		},
	} {
		if err := step(); err != nil {
			closeStore(store, log)
			return nil, be, nil, err
		}
	}
	engine := m.parts(tok, extract.LLMOptions{}, structureChoice{}, 0, log).Engine(store)
	return engine, be, func() { closeStore(store, log) }, nil
}

// useStoredEmbedder embeds questions with the hashing embedder when the store was built with
// it and the run did not name an embedding model: a store built offline (make demo) stays
// readable once a chat endpoint is set for answers, which would otherwise pick the API's default
// embedding model and be refused. A model named with --embedding-model (or
// STRATA_EMBEDDING_MODEL) is never overridden: the check that follows refuses it. vals holds the
// store's graph.MetaEmbeddingModel and graph.MetaEmbeddingDims.
func useStoredEmbedder(c *cli.Context, log zerolog.Logger, m *models, vals map[string]string) error {
	if c.IsSet(flagEmbeddingModel) || m.embedder.Model() == embedding.OfflineModel {
		return nil
	}
	if vals[graph.MetaEmbeddingModel] != embedding.OfflineModel {
		return nil
	}
	dims, err := strconv.Atoi(vals[graph.MetaEmbeddingDims])
	if err != nil || dims <= 0 {
		dims = api.OfflineDimensions
	}
	m.embedder = embedding.NewOffline(dims)
	m.weighEmbedder(c, log)
	log.Info().Msg("the store was built with the hashing embedder: questions are embedded with it too (--embedding-model offline); the chat model answers")
	return nil
}

func runQuery(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError{errors.New(`query needs exactly one argument, the question (quote it: strata query "Who founded the guild?")`)}
	}
	if strings.TrimSpace(c.Args().First()) == "" {
		return usageError{errors.New("the question is empty")}
	}
	opt, err := queryOptions(c)
	if err != nil {
		return err
	}
	stream, err := streamAnswer(c)
	if err != nil {
		return err
	}
	// The store opens in the query's read scope, and the ingest state is read beside the query:
	// a Neo4j store that reads the generations anyway answers the embedding model's record and
	// the ingest state from the same statement. A streamed answer waits for the state, since its
	// warnings are printed before the answer starts.
	ctx := graph.WithReadScope(c.Context)
	engine, m, closeFn, err := newEngine(ctx, c, false)
	if err != nil {
		return err
	}
	defer closeFn()
	type stateRead struct {
		warnings []string
		err      error
	}
	state := make(chan stateRead, 1)
	go func() {
		w, err := readStoreWarnings(ctx, engine.Store)
		state <- stateRead{w, err}
	}()
	var warnings []string
	printWarnings := func() error {
		st := <-state
		warnings = st.warnings
		printStoreWarnings(c, warnings)
		return st.err
	}
	var printer *answerPrinter
	if stream {
		if err := printWarnings(); err != nil {
			return err
		}
		printer = &answerPrinter{w: c.App.Writer, errw: c.App.ErrWriter}
		ctx = retrieval.WithAnswerStream(ctx, printer.write)
	}
	res, err := engine.Query(ctx, c.Args().First(), opt)
	if !stream {
		if werr := printWarnings(); werr != nil && err == nil {
			err = werr
		}
	}
	if err == nil {
		err = engine.Tokenizer.Err()
	}
	if err != nil {
		if printer != nil && printer.printed {
			fmt.Fprintln(c.App.Writer) // the error line is not to follow the answer's start
		}
		return err
	}
	res.Usage = m.usage()
	if c.Bool(flagJSON) {
		err = writeJSON(c, queryOutput{Result: res, Warnings: warnings})
	} else {
		// A streamed answer is on stdout already, exactly (retrieval.WithAnswerStream).
		writeQueryText(c.App.Writer, res, opt, printer != nil && printer.printed)
	}
	// After the answer, on stderr: its text alone looks complete whether it was cut or not.
	writeAnswerWarnings(c.App.ErrWriter, res.AnswerNotes)
	return err
}

// writeQueryText prints the answer and its sources, or without an answer the context. streamed:
// the answer's text is printed already, without its newline.
func writeQueryText(w io.Writer, res *retrieval.Result, opt retrieval.Options, streamed bool) {
	switch {
	case res.Answer != nil:
		if streamed {
			fmt.Fprintln(w)
		} else {
			fmt.Fprintln(w, *res.Answer)
		}
		if len(res.Context.Chunks) > 0 {
			fmt.Fprintln(w)
			fmt.Fprintln(w, "Sources:")
		}
		for _, ch := range res.Context.Chunks {
			fmt.Fprintf(w, "  %s %s\n", ch.Cite(), ch.Title)
		}
	default:
		if !opt.ContextOnly {
			fmt.Fprintln(w, "No answer generated: no LLM configured (offline). Retrieved context:")
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, res.ContextText)
	}
}

// writeAnswerWarnings prints on stderr what the answer's notes say a reader must know: that it
// was cut at the token limit, that made-up citations were removed.
func writeAnswerWarnings(w io.Writer, notes *retrieval.AnswerNotes) {
	for _, line := range notes.Warnings() {
		fmt.Fprintf(w, "strata: warning: %s\n", line)
	}
}

// queryOutput is query's --json object: the result, and "warnings" only when there are any, so
// the shape of a healthy store's answer does not change.
type queryOutput struct {
	*retrieval.Result
	Warnings []string `json:"warnings,omitempty"`
}

// storeWarnings prints on stderr what is wrong with the store's ingest state (a stale structure,
// an unfinished run, failed documents) and returns it. A query still answers: the warning says
// from what.
func storeWarnings(c *cli.Context, store graph.MetaReader) ([]string, error) {
	warnings, err := readStoreWarnings(c.Context, store)
	if err != nil {
		return nil, err
	}
	printStoreWarnings(c, warnings)
	return warnings, nil
}

// readStoreWarnings reads what storeWarnings prints.
func readStoreWarnings(ctx context.Context, store graph.MetaReader) ([]string, error) {
	state, err := graph.ReadIngestState(ctx, store)
	if err != nil {
		return nil, err
	}
	return state.Warnings(), nil
}

func printStoreWarnings(c *cli.Context, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(c.App.ErrWriter, "strata: warning: %s\n", w)
	}
}
