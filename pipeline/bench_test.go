package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkIngestTestdata measures a full offline ingest of the testdata corpus into a fresh
// embedded store (load, chunk, extract, resolve, embed, WCC, Leiden, reports).
func BenchmarkIngestTestdata(b *testing.B) {
	benchmarkIngest(b, corpusDir)
}

// BenchmarkIngestMultihop does the same for the shared multihop corpus (51 news articles), when
// ../shared/data is present.
func BenchmarkIngestMultihop(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "data", "multihop", "corpus.jsonl")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("shared data not found at %s", path)
	}
	benchmarkIngest(b, path)
}

func benchmarkIngest(b *testing.B, path string) {
	for b.Loop() {
		b.StopTimer()
		store := openStore(b, b.TempDir())
		in := newIngester(b, store, nil)
		b.StartTimer()
		if _, err := in.Run(context.Background(), []string{path}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIngestMix does the same for the shared mix corpus (61 books and articles, ~20 000
// entities offline), when ../shared/data is present.
func BenchmarkIngestMix(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "data", "mix", "corpus.jsonl")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("shared data not found at %s", path)
	}
	benchmarkIngest(b, path)
}
