package retrieval_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stratarag/strata/internal/teststore"
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
	f, err := teststore.Ingest(ctx, dir, 384) // the corpus, ingested offline
	if err != nil {
		log.Fatal(err)
	}
	defer f.Store.Close()
	engine := &retrieval.Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer}

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
