package retrieval_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stratarag/strata"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/retrieval"
)

// ExampleEngine_Query asks a question in the default mode (HiRAG's local, global and bridge
// levels) over the test corpus ingested offline, and prints the documents behind the top
// chunks. Without an Answerer the result holds the context and no answer.
func ExampleEngine_Query() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "strata-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := strata.OpenEmbedded(ctx, dir, strata.EmbeddedOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	tok, err := strata.NewTokenizer()
	if err != nil {
		log.Fatal(err)
	}
	emb := strata.NewOfflineEmbedder()
	in, err := strata.Models{Embedder: emb, Tokenizer: tok}.Ingester(store, pipeline.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	if _, err := in.Run(ctx, []string{"../testdata/corpus"}); err != nil {
		log.Fatal(err)
	}
	engine := &retrieval.Engine{Store: store, Embedder: emb, Tokenizer: tok}

	opt := retrieval.DefaultOptions(retrieval.ModeHi)
	if err := opt.Validate(); err != nil {
		log.Fatal(err)
	}
	res, err := engine.Query(ctx, "What plague struck the town where the Grey Heron was built?", opt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("mode:", res.Mode, "answer:", res.Answer == nil)
	for _, c := range res.Context.Chunks[:2] {
		fmt.Println(c.DocumentID)
	}
	// Output:
	// mode: hi answer: true
	// dunmarrow.md
	// grey-heron.md
}
