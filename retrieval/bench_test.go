package retrieval_test

import (
	"context"
	"testing"

	"github.com/stratarag/strata/retrieval"
)

// BenchmarkQuery measures one context-only query per mode on the testdata graph.
func BenchmarkQuery(b *testing.B) {
	engine := testEngine(b)
	for _, mode := range retrieval.Modes() {
		opt := retrieval.DefaultOptions(mode)
		opt.ContextOnly = true
		b.Run(mode.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := engine.Query(context.Background(), "Who rescued the crew of the Seventh Lantern?", opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
