package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stratarag/strata/retrieval"
)

// FuzzDecodeQuery: any body POST /query may get is either refused with 400 or 413 and a
// message, or decoded into options that every retrieval mode can run within the documented
// bounds.
func FuzzDecodeQuery(f *testing.F) {
	for _, seed := range []string{
		`{"question": "Who founded the guild?"}`,
		`{"question": "x", "mode": "lca", "top_k": 1000, "entities": 500, "max_context_tokens": 1000000, "context_only": true, "stream": true}`,
		`{"question": "x", "entities": 1000000000}`,
		`{"question": "x", "top_k": -9223372036854775808}`,
		`{"question": "x", "top_k": 1e30}`,
		`{"question": "x", "max_context_tokens": 0, "entities": 0}`,
		`{"question": "x"} {"question": "y"}`,
		`{"question": "\u0000", "mode": ""}`,
		`{"question": null, "top_k": null}`,
		`[]`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/query", strings.NewReader(string(body)))
		q, err := decodeQuery(httptest.NewRecorder(), r)
		var opt retrieval.Options
		if err == nil {
			if opt, err = q.options(); err != nil {
				err = httpError{http.StatusBadRequest, err}
			}
		}
		if err != nil {
			var he httpError
			if !errors.As(err, &he) || he.status != http.StatusBadRequest && he.status != http.StatusRequestEntityTooLarge || err.Error() == "" {
				t.Fatalf("refused with %v (%T), want a 400 or 413 with a message", err, err)
			}
			return
		}
		if err := opt.Validate(); err != nil {
			t.Fatalf("options %+v accepted, yet: %v", opt, err)
		}
		if opt.TopK > retrieval.MaxTopK || opt.Entities > retrieval.MaxEntities || opt.MaxContextTokens > retrieval.MaxContextTokens {
			t.Fatalf("options %+v past the bounds", opt)
		}
		if strings.TrimSpace(q.Question) == "" || utf8.RuneCountInString(q.Question) > MaxQuestionChars {
			t.Fatalf("question of %d characters accepted", utf8.RuneCountInString(q.Question))
		}
		if _, err := retrieval.ParseMode(opt.Mode.String()); err != nil {
			t.Fatalf("mode %v accepted: %v", opt.Mode, err)
		}
	})
}
