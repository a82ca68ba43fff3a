// Command strata ingests documents into a hierarchical knowledge graph and answers questions
// from it. See the README for a tour and docs/ARCHITECTURE.md for the data model.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Exit codes: 0 success, 1 failure, 2 bad usage.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: tests call it with their own arguments and writers.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, args)
	if err == nil {
		return 0
	}
	var usage usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(stderr, "strata: %v\n", err)
		return exitUsage
	}
	var reported reportedError
	if !errors.As(err, &reported) {
		fmt.Fprintf(stderr, "strata: %v\n", err)
	}
	return exitFailure
}

// usageError marks errors in how strata was called (exit code 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// reportedError marks errors already shown to the user (for example as a JSON object).
type reportedError struct{ error }

func (e reportedError) Unwrap() error { return e.error }

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "strata",
		Usage: "build a hierarchical knowledge graph from documents and answer questions from it",
		Description: "strata ingests .txt, .md and .jsonl documents into a knowledge graph (chunks, entities,\n" +
			"relations, communities) stored in Neo4j or in an embedded store, and answers questions with\n" +
			"context assembled from it. Without Neo4j and without an LLM it runs fully offline.",
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideVersion:          true,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run decides exit codes
		Commands: []*cli.Command{
			ingestCommand(),
			queryCommand(),
			statusCommand(),
			evalCommand(),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
	}
	return app
}
