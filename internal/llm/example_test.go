package llm_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/answer"
	"github.com/stratarag/strata/pipeline/extract"
)

// Wiring the LLM layer into a pipeline: one client serves extraction, embeddings,
// summarization and answers, and keeps the accounts.
func Example() {
	srv, _, err := fakeopenai.Start(fakeopenai.Options{}) // stands in for OpenAI, Ollama, vLLM…
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	cfg := llm.ConfigFromEnv() // OPENAI_API_KEY, OPENAI_BASE_URL
	cfg.BaseURL, cfg.APIKey = srv.URL, "sk-example"
	cfg.CacheDir, _ = os.MkdirTemp("", "strata-llm-cache")
	defer os.RemoveAll(cfg.CacheDir)
	client, err := llm.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	x := extract.NewLLM(client, extract.LLMOptions{Mode: extract.ModeCombined, Gleaning: 1, EstimateSamples: -1})
	texts := []string{"Ilsa Marrow founded the Saltmere Guild in 1102. Ilsa Marrow hired Corvin Hale."}
	est, _ := x.Estimate(ctx, texts) // no sample (EstimateSamples -1): nothing is called
	fmt.Println("estimated calls:", est.Total().Calls)

	r, err := x.Extract(ctx, texts[0])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("entities:", len(r.Entities), "relations:", len(r.Relations))

	vecs, _ := client.Embed(ctx, texts) // client is an embedding.Embedder
	fmt.Println("dimensions:", len(vecs[0]) == client.Dimensions())

	a, _ := answer.Generate(ctx, client, "Who founded the Saltmere Guild?",
		"[doc:guild chunk:c1] Ilsa Marrow founded the Saltmere Guild in 1102.")
	fmt.Println(a)

	t := client.Stats().Total
	fmt.Println("llm calls:", t.LLMCalls, "embedding calls:", t.EmbeddingCalls)
	// Output:
	// estimated calls: 2
	// entities: 3 relations: 2
	// dimensions: true
	// According to the sources, Ilsa Marrow founded the Saltmere Guild in 1102. [doc:guild]
	// llm calls: 3 embedding calls: 1
}
