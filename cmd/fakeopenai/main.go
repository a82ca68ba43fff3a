// Command fakeopenai serves the deterministic fake OpenAI-compatible API of
// internal/llm/fakeopenai, for demos and benchmarks without a model:
//
//	go run ./cmd/fakeopenai -addr :8089 -latency 50ms
//	OPENAI_BASE_URL=http://localhost:8089/v1 OPENAI_API_KEY=fake strata ingest ./docs
//
// Fault flags inject 429s, 500s, hangs, and malformed or unreadable answers at the given rates;
// the -batch flags make Batch API jobs slow, fail, expire or fail some of their lines.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(1)
	}
}

func run(args []string, logw io.Writer) error {
	fs := flag.NewFlagSet("fakeopenai", flag.ContinueOnError)
	addr := fs.String("addr", ":8089", "listen address")
	var o fakeopenai.Options
	fs.Int64Var(&o.Seed, "seed", 1, "seed for fault injection")
	fs.DurationVar(&o.Latency, "latency", 0, "fixed latency added to every response")
	fs.Float64Var(&o.RateLimitRate, "rate-429", 0, "fraction of requests answered 429 with Retry-After")
	fs.Float64Var(&o.ServerErrorRate, "rate-500", 0, "fraction of requests answered 500")
	fs.Float64Var(&o.TimeoutRate, "rate-timeout", 0, "fraction of requests that hang until the client gives up")
	fs.Float64Var(&o.MalformedRate, "rate-malformed", 0, "fraction of chat answers that are malformed")
	fs.Float64Var(&o.UnreadableRate, "rate-unreadable", 0, "fraction of chat answers cut off while reasoning, with nothing readable")
	fs.DurationVar(&o.RetryAfter, "retry-after", 20*time.Millisecond, "Retry-After sent with 429s")
	fs.DurationVar(&o.Hang, "hang", time.Minute, "longest hang of a time-out fault")
	fs.IntVar(&o.EmbeddingDims, "dims", 64, "embedding dimensions")
	fs.IntVar(&o.Batch.Polls, "batch-polls", 0, "polls of a batch job answered in_progress before it ends")
	fs.StringVar(&o.Batch.End, "batch-end", "completed", "how batch jobs end: completed, failed, expired or cancelled (the last two answer half their lines)")
	fs.Float64Var(&o.Batch.LineErrorRate, "rate-batch-line-error", 0, "fraction of batch lines answered with a 500 error line")
	logPath := fs.String("log", "", "file to append one JSON line per chat answer to (task, tokens, finish, first user message)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch o.Batch.End {
	case "completed", "failed", "expired", "cancelled":
	default:
		return fmt.Errorf("-batch-end %q: want completed, failed, expired or cancelled", o.Batch.End)
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open -log file: %w", err)
		}
		defer f.Close()
		o.Log = f
	}
	s, err := fakeopenai.New(o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	fmt.Fprintf(logw, "fake OpenAI API on http://%s/v1 (latency %s)\n", ln.Addr(), o.Latency)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	b, _ := json.MarshalIndent(s.Counts(), "", "  ")
	fmt.Fprintf(logw, "served: %s\n", b)
	return nil
}
