package embedding

import (
	"context"
	"math"
	"reflect"
	"testing"
)

func TestOfflineEmbedder(t *testing.T) {
	e := NewOffline(128)
	texts := []string{
		"The Saltmere Cartographers' Guild sells sea charts.",
		"Sea charts are sold by the guild of cartographers in Saltmere.",
		"A plague of fever spread through the shipyards.",
		"",
	}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := e.Embed(context.Background(), texts)
	if !reflect.DeepEqual(vecs, again) {
		t.Fatal("offline embeddings are not deterministic")
	}
	for i, v := range vecs[:3] {
		if len(v) != 128 {
			t.Fatalf("vector %d has %d dimensions", i, len(v))
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("vector %d has norm² %v, want 1", i, norm)
		}
	}
	if Cosine(vecs[3], vecs[0]) != 0 {
		t.Error("the empty text should embed to the zero vector")
	}
	if near, far := Cosine(vecs[0], vecs[1]), Cosine(vecs[0], vecs[2]); near <= far {
		t.Errorf("paraphrase similarity %.3f not above unrelated %.3f", near, far)
	}
	if e.Dimensions() != 128 || NewOffline(0).Dimensions() != 384 || e.Model() != OfflineModel {
		t.Error("dimensions or model name wrong")
	}
}

func TestEmbedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewOffline(8).Embed(ctx, []string{"x"}); err == nil {
		t.Error("cancelled context not reported")
	}
}

func TestWords(t *testing.T) {
	got := Words("The Guild's charts, and THE 3 lamps of Port-Avel!")
	want := []string{"guild", "charts", "lamps", "port", "avel"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 0}, []float32{-2, 0}, -1},
		{[]float32{1, 0}, []float32{1, 0, 0}, 0},
		{[]float32{0, 0}, []float32{1, 0}, 0},
	}
	for _, tc := range tests {
		if got := Cosine(tc.a, tc.b); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
