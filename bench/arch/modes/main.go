// Command modes is the Go half of bench/arch/run.sh: over an offline embedded store it runs the
// eval questions in each mode and prints recall@2/5/10 of gold documents (as `strata eval`),
// the mean query time, and the mean size of the context text in cl100k_base tokens with the
// mode's default options (as `strata query` builds it).
//
//	go run ./bench/arch/modes -data-dir DIR -questions FILE [-modes "naive hi arch"]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/eval"
)

// offlineDims is the dimension of the offline embedder the store was built with (cmd/strata).
const offlineDims = 384

func main() {
	dir := flag.String("data-dir", "", "embedded store built offline")
	qfile := flag.String("questions", "", "eval questions (JSON Lines)")
	modes := flag.String("modes", "naive hi arch", "modes to run")
	flag.Parse()
	if err := run(*dir, *qfile, strings.Fields(*modes)); err != nil {
		fmt.Fprintln(os.Stderr, "modes:", err)
		os.Exit(1)
	}
}

func run(dir, qfile string, modes []string) error {
	if dir == "" || qfile == "" {
		return fmt.Errorf("-data-dir and -questions are required")
	}
	ctx := context.Background()
	store, err := embedded.Open(ctx, dir, embedded.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer store.Close()
	tok, err := tokenizer.New()
	if err != nil {
		return err
	}
	questions, err := eval.ReadQuestions(qfile)
	if err != nil {
		return err
	}
	engine := &retrieval.Engine{Store: store, Embedder: embedding.NewOffline(offlineDims), Tokenizer: tok}
	fmt.Printf("%-12s %-6s %-6s %-6s %-9s %s\n", "mode", "R@2", "R@5", "R@10", "mean ms", "mean context tokens")
	for _, name := range modes {
		mode, err := retrieval.ParseMode(name)
		if err != nil {
			return err
		}
		rep, err := eval.Run(ctx, engine, tok, questions, retrieval.DefaultOptions(mode))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Printf("%-12s %.3f  %.3f  %.3f  %-9.1f %.0f\n", name, rep.Recall["recall@2"], rep.Recall["recall@5"], rep.Recall["recall@10"],
			rep.MeanMS, rep.MeanContextTokens)
	}
	return nil
}
