package retrieval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/retrieval"
)

// plainStore hides every method of a store but graph.ReadSearcher's: a store that cannot rank
// chunks by PPR.
type plainStore struct{ graph.ReadSearcher }

// TestPPR: the ppr mode and hi's PPR channel retrieve from a store that ranks chunks by PPR, and
// say what they need from one that does not; hi without the channel does not need it.
func TestPPR(t *testing.T) {
	ranking := testEngine(t)
	plain := *ranking
	plain.Store = plainStore{ranking.Store}
	withPPR := retrieval.DefaultOptions(retrieval.ModeHi)
	withPPR.PPRWeight = 0.1
	const question = "Who designed the Kestrel Point Lighthouse, and who taught her?"
	for _, tc := range []struct {
		name    string
		engine  *retrieval.Engine
		opt     retrieval.Options
		wantErr bool
		timing  bool // the result times the ppr channel
	}{
		{"ppr mode", ranking, retrieval.DefaultOptions(retrieval.ModePPR), false, false},
		{"hi with the channel", ranking, withPPR, false, true},
		{"hi without it", ranking, retrieval.DefaultOptions(retrieval.ModeHi), false, false},
		{"ppr mode, plain store", &plain, retrieval.DefaultOptions(retrieval.ModePPR), true, false},
		{"hi with the channel, plain store", &plain, withPPR, true, false},
		{"hi without it, plain store", &plain, retrieval.DefaultOptions(retrieval.ModeHi), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.ContextOnly = true
			res, err := tc.engine.Query(context.Background(), question, opt)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "ppr needs") {
					t.Fatalf("error %v, want one saying what ppr needs", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Context.Chunks) == 0 {
				t.Fatal("no chunks")
			}
			if _, ok := res.TimingsMS["ppr"]; ok != tc.timing {
				t.Errorf("ppr timing present %v, want %v", ok, tc.timing)
			}
		})
	}
}

func TestPPRWeightValidated(t *testing.T) {
	opt := retrieval.DefaultOptions(retrieval.ModeHi)
	opt.PPRWeight = -1
	if err := opt.Validate(); err == nil {
		t.Error("negative ppr weight accepted")
	}
}
