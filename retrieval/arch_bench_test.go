package retrieval_test

import (
	"context"
	"os"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/eval"
)

// BenchmarkArchSearch compares arch mode's ways to find each layer's nodes: a search of every
// layer on its own (flat, the default; layer 0 fused with full-text search), the same by vector
// search alone (flat-vector), and a layered descent, on an offline embedded store
// built with --arch: STRATA_ARCH_STORE names its directory and STRATA_ARCH_QUESTIONS an eval
// questions file (bench/arch/run.sh builds both on the mix and multihop corpora). Each
// iteration runs every question; recall@10 is reported beside the time (it is the same each
// iteration). Without the variables the benchmark is skipped.
func BenchmarkArchSearch(b *testing.B) {
	dir, qfile := os.Getenv("STRATA_ARCH_STORE"), os.Getenv("STRATA_ARCH_QUESTIONS")
	if dir == "" || qfile == "" {
		b.Skip("set STRATA_ARCH_STORE and STRATA_ARCH_QUESTIONS")
	}
	ctx := context.Background()
	store, err := embedded.Open(ctx, dir, embedded.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	tok, err := tokenizer.New()
	if err != nil {
		b.Fatal(err)
	}
	questions, err := eval.ReadQuestions(qfile)
	if err != nil {
		b.Fatal(err)
	}
	engine := &retrieval.Engine{Store: store, Embedder: embedding.NewOffline(384), Tokenizer: tok}
	for _, tc := range []struct {
		name string
		opt  retrieval.Options
	}{
		{"flat", retrieval.DefaultOptions(retrieval.ModeArch)},
		{"flat-vector", retrieval.FlatVectorArchSearch(retrieval.DefaultOptions(retrieval.ModeArch))},
		{"descent", retrieval.DescentArchSearch(retrieval.DefaultOptions(retrieval.ModeArch))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var rep eval.Report
			var search float64
			for b.Loop() {
				if rep, err = eval.Run(ctx, engine, tok, questions, tc.opt); err != nil {
					b.Fatal(err)
				}
				search = 0
				for _, q := range questions {
					res, err := engine.Query(ctx, q.Question, tc.opt)
					if err != nil {
						b.Fatal(err)
					}
					search += res.TimingsMS["search"]
				}
			}
			b.ReportMetric(search/float64(len(questions)), "search-ms/query")
			b.ReportMetric(rep.Recall["recall@10"], "recall@10")
			b.ReportMetric(rep.Recall["recall@2"], "recall@2")
		})
	}
}
