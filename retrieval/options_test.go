package retrieval

import (
	"fmt"
	"math"
	"testing"
)

func TestDefaultOptions(t *testing.T) {
	tests := []struct {
		mode                    Mode
		entities, contextTokens int
	}{
		{ModeHi, 20, 12000},
		{ModeHiLocal, 20, 12000},
		{ModeHiGlobal, 20, 12000},
		{ModeHiBridge, 20, 12000},
		{ModeHiNoBridge, 20, 12000},
		{ModeNaive, 10, 12000},
		{ModeLocal, 10, 12000},
		{ModeGlobal, 10, 12000},
		{ModeArch, 10, 12000},
		{ModeLCA, 10, DefaultContextTokens},
	}
	for _, tc := range tests {
		opt := DefaultOptions(tc.mode)
		want := Options{Mode: tc.mode, TopK: 10, Entities: tc.entities, MaxContextTokens: tc.contextTokens}
		if opt != want {
			t.Errorf("DefaultOptions(%s) = %+v, want %+v", tc.mode, opt, want)
		}
		if err := opt.Validate(); err != nil {
			t.Errorf("DefaultOptions(%s) does not validate: %v", tc.mode, err)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	def := DefaultOptions(ModeLocal)
	with := func(change func(*Options)) Options {
		o := def
		change(&o)
		return o
	}
	tests := []struct {
		name    string
		opt     Options
		wantErr string // the whole message, naming the option; "" for valid options
	}{
		{"defaults", def, ""},
		{"smallest values", with(func(o *Options) { o.TopK, o.Entities, o.MaxContextTokens = 1, 1, 100 }), ""},
		{"context only", with(func(o *Options) { o.ContextOnly = true }), ""},
		{"zero top-k", with(func(o *Options) { o.TopK = 0 }), "top-k must be at least 1, got 0"},
		{"negative top-k", with(func(o *Options) { o.TopK = -3 }), "top-k must be at least 1, got -3"},
		{"zero entities", with(func(o *Options) { o.Entities = 0 }), "entities must be at least 1, got 0"},
		{"negative entities", with(func(o *Options) { o.Entities = -1 }), "entities must be at least 1, got -1"},
		{"small budget", with(func(o *Options) { o.MaxContextTokens = 99 }), "max context tokens must be at least 100, got 99"},
		{"zero budget", with(func(o *Options) { o.MaxContextTokens = 0 }), "max context tokens must be at least 100, got 0"},
		{"zero value", Options{}, "top-k must be at least 1, got 0"},
		{"largest values", with(func(o *Options) {
			o.TopK, o.Entities, o.MaxContextTokens, o.PPRWeight = MaxTopK, MaxEntities, MaxContextTokens, MaxPPRWeight
		}), ""},
		{"top-k past the bound", with(func(o *Options) { o.TopK = MaxTopK + 1 }), "top-k must be at most 1000, got 1001"},
		{"huge entities", with(func(o *Options) { o.Entities = 1_000_000_000 }), "entities must be at most 500, got 1000000000"},
		{"largest int entities", with(func(o *Options) { o.Entities = math.MaxInt }), fmt.Sprintf("entities must be at most 500, got %d", math.MaxInt)},
		{"budget past the bound", with(func(o *Options) { o.MaxContextTokens = MaxContextTokens + 1 }), "max context tokens must be at most 1000000, got 1000001"},
		{"ppr weight past the bound", with(func(o *Options) { o.PPRWeight = 100.5 }), "ppr weight must be at most 100, got 100.5"},
		{"infinite ppr weight", with(func(o *Options) { o.PPRWeight = math.Inf(1) }), "ppr weight must be at most 100, got +Inf"},
		{"NaN ppr weight", with(func(o *Options) { o.PPRWeight = math.NaN() }), "ppr weight must not be negative, got NaN"},
	}
	for _, tc := range tests {
		got := ""
		if err := tc.opt.Validate(); err != nil {
			got = err.Error()
		}
		if got != tc.wantErr {
			t.Errorf("%s: Validate() = %q, want %q", tc.name, got, tc.wantErr)
		}
	}
}

// NewOptions keeps each default a zero override leaves, applies the rest, and validates.
func TestNewOptions(t *testing.T) {
	zero, three := 0, 3
	tests := []struct {
		name    string
		mode    Mode
		o       Overrides
		want    func(*Options)
		invalid bool
	}{
		{name: "defaults", mode: ModeLCA, want: func(*Options) {}},
		{name: "every override", mode: ModeHi, o: Overrides{TopK: &three, Entities: 7, MaxContextTokens: 4000, PPRWeight: 0.1, ContextOnly: true},
			want: func(o *Options) {
				o.TopK, o.Entities, o.MaxContextTokens, o.PPRWeight, o.ContextOnly = 3, 7, 4000, 0.1, true
			}},
		{name: "top-k of zero given", mode: ModeNaive, o: Overrides{TopK: &zero}, invalid: true},
		{name: "too many entities", mode: ModeLocal, o: Overrides{Entities: MaxEntities + 1}, invalid: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewOptions(tc.mode, tc.o)
			if tc.invalid {
				if err == nil {
					t.Fatalf("NewOptions(%s, %+v) = %+v, want an error", tc.mode, tc.o, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultOptions(tc.mode)
			tc.want(&want)
			if got != want {
				t.Errorf("NewOptions(%s, %+v) = %+v, want %+v", tc.mode, tc.o, got, want)
			}
		})
	}
}
