// Package llmbench measures how close the LLM client comes to ideal throughput: with a server of
// fixed latency L and concurrency C, N calls cannot finish faster than N·L/C. The benchmarks
// report wall time against that bound as "%ideal" (100 = no overhead).
package llmbench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/extraction"
)

const (
	latency     = 50 * time.Millisecond
	concurrency = 16
	calls       = 160 // ten full waves
)

func setup(b *testing.B) *llm.Client {
	b.Helper()
	srv, _, err := fakeopenai.Start(fakeopenai.Options{Latency: latency})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "bench", Concurrency: concurrency})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// requests builds n distinct extraction requests (distinct so no cache or dedup helps).
func requests(b *testing.B, n, round int) []llm.ChatRequest {
	b.Helper()
	out := make([]llm.ChatRequest, n)
	for i := range out {
		p, err := extraction.Combined(extraction.Input{
			Text:        fmt.Sprintf("In round %d call %d, Ilsa Marrow hired Corvin Hale for the Saltmere Guild in Port Avel.", round, i),
			EntityTypes: []string{"person", "organization", "location"},
		})
		if err != nil {
			b.Fatal(err)
		}
		out[i] = llm.ChatRequest{
			Stage:     llm.StageExtract,
			Messages:  []llm.Message{{Role: llm.RoleSystem, Content: p.System}, {Role: llm.RoleUser, Content: p.User}},
			MaxTokens: 500,
		}
	}
	return out
}

func report(b *testing.B, wall time.Duration, n int) {
	ideal := time.Duration(n) * latency / concurrency
	b.ReportMetric(100*float64(ideal)/float64(wall), "%ideal")
	b.ReportMetric(float64(wall.Milliseconds()), "wall-ms")
	b.ReportMetric(float64(ideal.Milliseconds()), "ideal-ms")
}

// BenchmarkChat runs calls chat completions, all submitted at once as a pipeline stage does.
func BenchmarkChat(b *testing.B) {
	c := setup(b)
	var wall time.Duration
	for i := range b.N {
		reqs := requests(b, calls, i)
		start := time.Now()
		var wg sync.WaitGroup
		for _, r := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Chat(context.Background(), r); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		wall += time.Since(start)
	}
	report(b, wall/time.Duration(b.N), calls)
}

// BenchmarkEmbed embeds calls batches of 8 texts through one Embed call.
func BenchmarkEmbed(b *testing.B) {
	c := setup(b)
	const batch = 8
	var wall time.Duration
	for i := range b.N {
		texts := make([]string, calls*batch)
		for k := range texts {
			texts[k] = fmt.Sprintf("round %d text %d about the Saltmere Guild", i, k)
		}
		c2, err := llm.New(llm.Config{BaseURL: c.Config().BaseURL, APIKey: "bench", Concurrency: concurrency, EmbeddingBatch: batch})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := c2.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
	}
	report(b, wall/time.Duration(b.N), calls)
}
