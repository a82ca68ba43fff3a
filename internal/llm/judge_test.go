package llm

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// TestJudgedAnswersAreCountedAndNotCached: an answer the caller's Judge finds damaged is
// returned, counted per stage and logged, but not cached, so the next client over the same
// cache asks again; a whole answer is cached as before.
func TestJudgedAnswersAreCountedAndNotCached(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verdict Verdict
		want    StageUsage // the damage counters of the first call
	}{
		{"whole", Verdict{}, StageUsage{}},
		{"salvaged", Verdict{Salvaged: true, Dropped: 3, Reason: "3 malformed records"}, StageUsage{Salvaged: 1, DroppedRecords: 3}},
		{"unreadable", Verdict{Unreadable: true, Reason: "no JSON"}, StageUsage{Unreadable: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var warnings atomic.Int32
			cfg := Config{CacheDir: dir, OnWarning: func(error) { warnings.Add(1) }}
			req := extractRequest(t, "Ilsa Marrow founded the Saltmere Guild.")
			req.Judge = func(ChatResponse) Verdict { return tc.verdict }

			first, _ := fake(t, fakeopenai.Options{}, cfg)
			if _, err := first.Chat(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			got := first.Stats().Stages[StageExtract]
			if got.Salvaged != tc.want.Salvaged || got.Unreadable != tc.want.Unreadable || got.DroppedRecords != tc.want.DroppedRecords {
				t.Errorf("stage usage %+v, want damage %+v", got, tc.want)
			}
			if wantWarn := int32(tc.want.Damaged()); warnings.Load() != wantWarn {
				t.Errorf("%d warnings, want %d", warnings.Load(), wantWarn)
			}

			second, s := fake(t, fakeopenai.Options{}, cfg)
			r, err := second.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			damaged := tc.verdict.Damaged()
			if r.Cached == damaged || (s.Counts().Chat == 1) != damaged {
				t.Errorf("second client: cached %v, %d server calls; the answer is damaged: %v", r.Cached, s.Counts().Chat, damaged)
			}
			if _, ok := second.Lookup(req); ok == damaged {
				t.Errorf("Lookup found %v for a damaged (%v) answer", ok, damaged)
			}
		})
	}
}

// TestDamagedCacheEntryIsAMiss: an entry cached before answers were judged (here: by a request
// without a Judge) and found damaged now is asked for again, and Lookup does not report it.
func TestDamagedCacheEntryIsAMiss(t *testing.T) {
	dir := t.TempDir()
	c, s := fake(t, fakeopenai.Options{}, Config{CacheDir: dir})
	req := extractRequest(t, "Corvin Hale joined the guild.")
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Lookup(req); !ok {
		t.Fatal("an unjudged answer was not cached")
	}
	req.Judge = func(ChatResponse) Verdict { return Verdict{Salvaged: true, Dropped: 1} }
	if _, ok := c.Lookup(req); ok {
		t.Error("Lookup reports a damaged entry as cached")
	}
	r, err := c.Chat(context.Background(), req)
	if err != nil || r.Cached || s.Counts().Chat != 2 {
		t.Errorf("damaged entry served: cached %v, %d server calls, err %v", r.Cached, s.Counts().Chat, err)
	}
	if st := c.Stats().Stages[StageExtract]; st.Salvaged != 1 || st.CacheHits != 0 {
		t.Errorf("stage usage %+v", st)
	}
}
