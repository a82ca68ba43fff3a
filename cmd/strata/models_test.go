package main

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// Every extractor goes with every embedder, and the store records the pair it was built with.
func TestExtractorAndEmbedderCombine(t *testing.T) {
	tests := []struct {
		name            string
		chat, embed     bool // a chat endpoint (OPENAI_BASE_URL) and an embedding endpoint of its own
		args            []string
		wantExtractor   string // prefix
		wantEmbedding   string
		wantChatCalls   bool
		wantEmbedCalls  bool
		wantWarningFlag string
	}{
		{"offline extraction, model embeddings", false, true, []string{"--offline"}, "offline", "embed-test", false, true, ""},
		{"no chat endpoint, model embeddings", false, true, nil, "offline", "embed-test", false, true, ""},
		{"model extraction, hashing embedder", true, false, []string{"--embedding-model", "offline"}, "llm:", embedding.OfflineModel, true, false, ""},
		{"model extraction, embeddings elsewhere", true, true, nil, "llm:", "embed-test", true, true, ""},
		{"offline, embedding flags unused", false, false, []string{"--offline", "--embedding-dims", "64"}, "offline", embedding.OfflineModel, false, false, "--embedding-dims"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chatFake, _ := fakeopenai.New(fakeopenai.Options{})
			embedFake, _ := fakeopenai.New(fakeopenai.Options{EmbeddingDims: 48})
			chatSrv, embedSrv := httptest.NewServer(chatFake), httptest.NewServer(embedFake)
			t.Cleanup(chatSrv.Close)
			t.Cleanup(embedSrv.Close)
			t.Setenv("NEO4J_URI", "")
			t.Setenv("STRATA_OFFLINE", "")
			t.Setenv("OPENAI_BASE_URL", "")
			t.Setenv("OPENAI_API_KEY", "")
			t.Setenv("STRATA_EMBEDDING_BASE_URL", "")
			if tc.chat {
				t.Setenv("OPENAI_BASE_URL", chatSrv.URL)
			}
			if tc.embed {
				t.Setenv("STRATA_EMBEDDING_BASE_URL", embedSrv.URL)
			}
			dir := t.TempDir()
			args := append([]string{"ingest", "--data-dir", dir, "--embedding-model", "embed-test"}, tc.args...)
			code, out, errOut := runCLI(t, append(args, corpusDir+"/edda-fenwick.txt", corpusDir+"/harbor-guild.md")...)
			if code != 0 {
				t.Fatalf("ingest exit %d\n%s\n%s", code, out, errOut)
			}
			_, out, _ = runCLI(t, "status", "--data-dir", dir, "--json")
			var st struct{ Meta map[string]string }
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !strings.HasPrefix(st.Meta["extractor"], tc.wantExtractor) || st.Meta["embedding.model"] != tc.wantEmbedding {
				t.Errorf("store records extractor %q, embedding model %q", st.Meta["extractor"], st.Meta["embedding.model"])
			}
			if got := chatFake.Counts().Chat > 0; got != tc.wantChatCalls {
				t.Errorf("chat calls %d, want some: %v", chatFake.Counts().Chat, tc.wantChatCalls)
			}
			if chatFake.Counts().Embeddings > 0 && tc.embed {
				t.Errorf("%d embedding requests went to the chat endpoint", chatFake.Counts().Embeddings)
			}
			if got := embedFake.Counts().Embeddings+chatFake.Counts().Embeddings > 0; got != tc.wantEmbedCalls {
				t.Errorf("embedding calls: %v, want %v", got, tc.wantEmbedCalls)
			}
			if embedFake.Counts().Chat > 0 {
				t.Errorf("%d chat requests went to the embedding endpoint", embedFake.Counts().Chat)
			}
			if tc.wantWarningFlag != "" && !strings.Contains(errOut, tc.wantWarningFlag) {
				t.Errorf("no warning about the unused %s:\n%s", tc.wantWarningFlag, errOut)
			}
		})
	}
}

// The marking of queries and passages is recorded with the model's name, defaults by family,
// follows the flags, and a store built with one marking refuses a run with another.
func TestEmbeddingMarkingRecorded(t *testing.T) {
	fake, _ := fakeopenai.New(fakeopenai.Options{EmbeddingDims: 48})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	t.Setenv("NEO4J_URI", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("STRATA_EMBEDDING_BASE_URL", srv.URL)
	tests := []struct {
		name  string
		args  []string
		model string
	}{
		{"e5 default", []string{"--embedding-model", "e5-small-v2"}, `e5-small-v2 prefix="query: "|"passage: "`},
		{"input type", []string{"--embedding-model", "e5-small-v2", "--embedding-input-type", "query,passage"}, "e5-small-v2 input_type=query|passage"},
		{"prefix flags", []string{"--embedding-model", "gte-small", "--embedding-query-prefix", "Q: "}, `gte-small prefix="Q: "|""`},
		{"none", []string{"--embedding-model", "text-embedding-3-small"}, "text-embedding-3-small"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"ingest", "--offline", "--data-dir", dir}, tc.args...)
			if code, out, errOut := runCLI(t, append(args, corpusDir+"/harbor-guild.md")...); code != 0 {
				t.Fatalf("ingest exit %d\n%s\n%s", code, out, errOut)
			}
			_, out, _ := runCLI(t, "status", "--data-dir", dir, "--json")
			var st struct{ Meta map[string]string }
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got := st.Meta["embedding.model"]; got != tc.model {
				t.Errorf("embedding.model = %q, want %q", got, tc.model)
			}
			// Another marking of the same model is another model to the store.
			other := append([]string{"query", "--offline", "--data-dir", dir, "--context-only"}, tc.args...)
			other = append(other, "--embedding-input-type", "search_query,search_document", "Who founded the guild?")
			if code, _, errOut := runCLI(t, other...); code == 0 || !strings.Contains(errOut, "embedding model") {
				t.Errorf("query with another marking: exit %d, %s", code, errOut)
			}
		})
	}
}
