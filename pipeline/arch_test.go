package pipeline_test

import (
	"context"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/arch"
)

// TestArchSetting: the attributed-community hierarchy is built when the option asks for it,
// recorded in the store's settings, and removed again by a run without it; switching it on or
// off recomputes the structure over unchanged documents.
func TestArchSetting(t *testing.T) {
	ctx := context.Background()
	store := openStore(t, t.TempDir())
	layerCount := func() int {
		t.Helper()
		n := 0
		for l := 1; ; l++ {
			comms, err := store.ArchLayer(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			if len(comms) == 0 {
				return n
			}
			n++
		}
	}
	steps := []struct {
		name      string
		opt       arch.Options
		setting   string
		wantBuilt bool
	}{
		{"off", arch.Options{}, "off", false},
		{"on", arch.DefaultOptions(), arch.DefaultOptions().String(), true},
		{"off again", arch.Options{}, "off", false},
	}
	for i, st := range steps {
		in := newIngester(t, store, nil)
		in.Options.Arch = st.opt
		rep, err := in.Run(ctx, []string{corpusDir})
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if i > 0 && (rep.Documents != 0 || rep.Communities == 0) {
			t.Errorf("%s: report %+v; want the structure recomputed over unchanged documents", st.name, rep)
		}
		if got := layerCount(); (got > 0) != st.wantBuilt || len(rep.Arch) != got {
			t.Errorf("%s: %d layers stored, %d reported; want built %v", st.name, got, len(rep.Arch), st.wantBuilt)
		}
		if v, _, err := store.Meta(ctx, graph.MetaArch); err != nil || v != st.setting {
			t.Errorf("%s: meta %s = %q, %v; want %q", st.name, graph.MetaArch, v, err, st.setting)
		}
	}
}
