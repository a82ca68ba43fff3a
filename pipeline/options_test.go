package pipeline_test

import (
	"strings"
	"testing"

	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/layers"
)

func TestDefaultOptions(t *testing.T) {
	opt := pipeline.DefaultOptions()
	if err := opt.Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	if opt.Chunk != chunk.DefaultOptions() || opt.Layers != layers.DefaultOptions() || opt.Seed != 42 {
		t.Errorf("defaults %+v", opt)
	}
}

func TestOptionsValidate(t *testing.T) {
	with := func(change func(*pipeline.Options)) pipeline.Options {
		o := pipeline.DefaultOptions()
		change(&o)
		return o
	}
	tests := []struct {
		name    string
		opt     pipeline.Options
		wantErr string // "" for valid options; else a part of the message naming the option
	}{
		{"defaults", pipeline.DefaultOptions(), ""},
		{"no layers", with(func(o *pipeline.Options) { o.Layers.MaxLayers = 0 }), ""},
		{"any seed", with(func(o *pipeline.Options) { o.Seed = -7 }), ""},
		{"smallest values", with(func(o *pipeline.Options) {
			o.Chunk, o.Concurrency, o.EmbedBatch = chunk.Options{Size: 1, Overlap: 0}, 1, 1
		}), ""},
		{"zero chunk size", with(func(o *pipeline.Options) { o.Chunk.Size = 0 }), "chunk size must be positive, got 0"},
		{"overlap equal to size", with(func(o *pipeline.Options) { o.Chunk = chunk.Options{Size: 10, Overlap: 10} }), "chunk overlap must be in [0, size), got 10 with size 10"},
		{"negative overlap", with(func(o *pipeline.Options) { o.Chunk.Overlap = -1 }), "chunk overlap"},
		{"zero concurrency", with(func(o *pipeline.Options) { o.Concurrency = 0 }), "concurrency must be at least 1, got 0"},
		{"zero embed batch", with(func(o *pipeline.Options) { o.EmbedBatch = 0 }), "embed batch must be at least 1, got 0"},
		{"negative layers", with(func(o *pipeline.Options) { o.Layers.MaxLayers = -1 }), "layers must not be negative, got -1"},
		{"zero aggregate k", with(func(o *pipeline.Options) { o.Layers.AggregateK = 0 }), ""},
		{"negative aggregate k", with(func(o *pipeline.Options) { o.Layers.AggregateK = -1 }), "aggregate k must not be negative, got -1"},
		{"max cluster below cluster", with(func(o *pipeline.Options) { o.Layers.MaxClusterSize = 19 }), "max cluster size 19 is below cluster size 20"},
		{"zero layer dimensions", with(func(o *pipeline.Options) { o.Layers.Dims = 0 }), "layer dimensions must be at least 1, got 0"},
		{"no layers, other fields unset", with(func(o *pipeline.Options) { o.Layers = layers.Options{} }), ""},
		{"threshold of 1", with(func(o *pipeline.Options) { o.Layers.Threshold = 1 }), "membership threshold must be in [0, 1), got 1"},
		{"zero value", pipeline.Options{}, "chunk size"},
	}
	for _, tc := range tests {
		err := tc.opt.Validate()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
		}
	}
}
