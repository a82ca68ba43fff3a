// Command strata ingests documents into a hierarchical knowledge graph and answers questions
// from it. See the README for a tour and docs/ARCHITECTURE.md for the data model.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/cypher"
)

// Exit codes (the README lists them; TestExitCodes holds each one).
const (
	exitFailure = 1 // the command failed
	exitUsage   = 2 // bad command line: unknown command or flag, missing or invalid argument
	exitPartial = 3 // ingest finished, but some inputs failed or were skipped, or the model's answers were unusable
	// exitSignal + the signal's number: interrupted by SIGINT (130) or SIGTERM (143).
	exitSignal = 128
)

func main() {
	ctx, stop := notifyInterrupt(context.Background())
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// notifyInterrupt cancels the context on the first SIGINT or SIGTERM with an interruptedError
// as its cause, so that run can tell an interruption from a failure. The handler is removed then:
// a second signal kills the process the usual way.
func notifyInterrupt(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(interruptedError{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// run is main without the process: tests call it with their own arguments and writers. Every
// failure ends here: one line on stderr and, with --json, exactly one {"error", "code"} object on
// stdout (a partial ingest's report carries both already).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	cl, err := parseCommandLine(app, args)
	if err == nil {
		err = app.RunContext(ctx, cl.args)
	}
	if err == nil {
		return 0
	}
	code, msg := classify(ctx, cl.command, err)
	fmt.Fprintf(stderr, "strata: %s\n", msg)
	var partial partialError
	if cl.json && !errors.As(err, &partial) {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if werr := enc.Encode(jsonError{Error: msg, Code: code}); werr != nil {
			fmt.Fprintf(stderr, "strata: write JSON error: %v\n", werr)
		}
	}
	return code
}

// jsonError is what a failed command prints on stdout with --json.
type jsonError struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
}

// classify returns the exit code and message of a failed command. Any failure after SIGINT or
// SIGTERM is an interruption, whatever error the interrupted step returned ("context canceled"
// or a driver's own), since that is what the user needs to know.
func classify(ctx context.Context, command string, err error) (int, string) {
	var sig interruptedError
	if errors.As(context.Cause(ctx), &sig) {
		msg := "interrupted"
		if command == "ingest" {
			msg += "; re-run to resume"
		}
		return sig.code(), msg
	}
	var usage usageError
	if errors.As(err, &usage) {
		return exitUsage, err.Error()
	}
	var partial partialError
	if errors.As(err, &partial) {
		return exitPartial, err.Error()
	}
	if spent, ok := budgetSpent(err); ok {
		// The stage's own wrapping (chunk, document, call) says nothing the user acts on.
		return exitFailure, budgetMessage(command, spent)
	}
	if cause, lost := cypher.Disconnected(err); lost {
		// The driver's own errors say the same thing several times over; the innermost one is
		// kept for diagnosis.
		then := "run it again once the server is back"
		if command == "ingest" || command == "delete" {
			then = "what it committed is kept, each batch whole: run the same command again once the server is back, and it resumes"
		}
		return exitFailure, fmt.Sprintf("lost the connection to Neo4j (the server stopped, restarted or cannot be reached: %v); %s", cause, then)
	}
	return exitFailure, err.Error()
}

// usageError marks errors in how strata was called (exit code 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// partialError marks an ingest that finished with some inputs failed or skipped, or with a stage
// whose model answers were mostly unreadable (exit code 3); its report, printed already, names
// them.
type partialError struct{ error }

func (e partialError) Unwrap() error { return e.error }

// interruptedError is the cause of the context's cancellation on SIGINT or SIGTERM.
type interruptedError struct{ sig os.Signal }

func (e interruptedError) Error() string { return "interrupted by " + e.sig.String() }

// code is the conventional exit code of a process stopped by the signal: 128 + its number.
func (e interruptedError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return exitSignal + int(s)
	}
	return exitSignal + int(syscall.SIGINT)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "strata",
		Usage: "build a hierarchical knowledge graph from documents and answer questions from it",
		Description: "strata ingests .txt, .md, .jsonl, PDF, HTML and Word (.docx) documents into a knowledge\n" +
			"graph (chunks, entities, relations, communities) stored in Neo4j or in an embedded store, and\n" +
			"answers questions with context assembled from it. Without Neo4j and without an LLM it runs\n" +
			"fully offline.\n\n" +
			"A command's options may come before or after its arguments; -- ends them. Exit codes: 0\n" +
			"success, 1 failure, 2 bad usage, 3 ingest finished with some inputs failed or skipped (or a\n" +
			"model that cannot follow the answer format),\n" +
			"130/143 interrupted (SIGINT/SIGTERM). With --json, stdout holds exactly one JSON object; a\n" +
			"failure is {\"error\": \"...\", \"code\": <exit code>}.",
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		Version:              version(),
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run decides exit codes
		Commands: []*cli.Command{
			ingestCommand(),
			queryCommand(),
			serveCommand(),
			deleteCommand(),
			statusCommand(),
			evalCommand(),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
	}
	return app
}
