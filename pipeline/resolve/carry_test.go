package resolve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/extract"
)

// countingReader counts the evidence items a Resolver reads.
type countingReader struct {
	Reader
	mentions, relations int
}

func (c *countingReader) EntityEvidence(ctx context.Context, ids []string) ([]graph.Mention, error) {
	ms, err := c.Reader.EntityEvidence(ctx, ids)
	c.mentions += len(ms)
	return ms, err
}

func (c *countingReader) RelationEvidence(ctx context.Context, keys []graph.RelationKey) ([]graph.RelationEvidence, error) {
	evs, err := c.Reader.RelationEvidence(ctx, keys)
	c.relations += len(evs)
	return evs, err
}

// carryChunks is a document of n chunks naming a few recurring entities: names in varying case,
// types that tie and change their majority, descriptions that repeat and, for some entities,
// exceed the budget, and relations with fractional strengths.
func carryChunks(doc string, n int, seed uint64) []ChunkResult {
	rng := rand.New(rand.NewPCG(seed, 7))
	names := []string{"Vell", "Orin", "Saltmere", "Gull", "Ilsa Marrow", "Kest", "Amberlyn", "Dorr"}
	types := []string{"person", "location", "other", "organization", ""}
	var out []ChunkResult
	for seq := range n {
		var es []extract.Entity
		var rels []extract.Relation
		picked := rng.Perm(len(names))[:2+rng.IntN(3)]
		for _, i := range picked {
			name := names[i]
			if rng.IntN(3) == 0 {
				name = strings.ToUpper(name)
			}
			desc := fmt.Sprintf("%s fact %d.", names[i], rng.IntN(6))
			if rng.IntN(4) == 0 {
				desc += "\n" + strings.Repeat("long words here ", 4+rng.IntN(4)) + fmt.Sprint(rng.IntN(5))
			}
			es = append(es, extract.Entity{Name: name, Type: types[rng.IntN(len(types))], Description: desc})
		}
		for k := 1; k < len(picked); k++ {
			rels = append(rels, extract.Relation{Source: names[picked[0]], Target: names[picked[k]],
				Description: fmt.Sprintf("tie %d", rng.IntN(8)), Strength: float64(rng.IntN(10)) / 10})
		}
		out = append(out, chunk(fmt.Sprintf("%s-%03d", doc, seq), doc, seq, es, rels...))
	}
	return out
}

// snapshotAll is every entity (without embedding), relation, relation evidence and mention.
func snapshotAll(t *testing.T, s *embedded.Store) []any {
	t.Helper()
	ctx := context.Background()
	es, err := s.EntitiesByLayer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range es {
		es[i].Embedding = nil
		ids = append(ids, es[i].ID)
	}
	var keys []graph.RelationKey
	for _, a := range ids {
		for _, b := range ids {
			if a < b {
				keys = append(keys, graph.NewRelationKey(a, b))
			}
		}
	}
	rs, err := s.Relations(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.RelationEvidence(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := s.EntityEvidence(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	return []any{es, rs, evs, ms}
}

type carryStep struct {
	results []ChunkResult
	deleted []string
}

// compareCarry applies steps with a Resolver that carries and one that does not, compares the
// graphs they leave and returns the evidence each read.
func compareCarry(t *testing.T, steps []carryStep, budget int) (carried, plain *countingReader) {
	t.Helper()
	run := func(carry bool) ([]any, *countingReader) {
		s := store(t)
		cr := &countingReader{Reader: s}
		r := newResolver(t, cr)
		r.Carry = carry
		r.MaxDescriptionTokens = budget
		for _, st := range steps {
			change(t, r, s, st.results, st.deleted...)
		}
		return snapshotAll(t, s), cr
	}
	want, plain := run(false)
	got, carried := run(true)
	for i, what := range []string{"entities", "relations", "relation evidence", "mentions"} {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s with Carry =\n%+v\nwant\n%+v", what, got[i], want[i])
		}
	}
	return carried, plain
}

// TestCarryDerivesAsFromAllEvidence: a Resolver that carries builds, change by change, the graph
// one that reads all the evidence every time builds: batches of one document in order, a
// document that sorts before it (evidence before what was carried), one after it, deleted
// chunks and chunks written again; and it reads less evidence doing so.
func TestCarryDerivesAsFromAllEvidence(t *testing.T) {
	m := carryChunks("m", 120, 1)
	a := carryChunks("a", 10, 2)
	z := carryChunks("z", 10, 3)
	var steps []carryStep
	for i := 0; i < 80; i += 8 {
		steps = append(steps, carryStep{results: m[i : i+8]})
	}
	steps = append(steps, carryStep{results: a[:5]}, carryStep{results: m[80:90]}, carryStep{results: z}, carryStep{results: m[90:100]},
		carryStep{deleted: []string{"m-003", "m-050", "m-095"}}, carryStep{results: m[100:110]},
		carryStep{results: m[95:96]}, carryStep{results: a[5:]}, carryStep{results: m[110:]})
	carried, plain := compareCarry(t, steps, 40) // some descriptions fill up after a few chunks
	if carried.mentions*5 > plain.mentions*3 || carried.relations*5 > plain.relations*3 {
		t.Errorf("Carry read %d mentions and %d relation evidence, without it %d and %d: want under three fifths",
			carried.mentions, carried.relations, plain.mentions, plain.relations)
	}
	t.Logf("evidence read: %d mentions, %d relation evidence with Carry; %d, %d without",
		carried.mentions, carried.relations, plain.mentions, plain.relations)
}

// TestCarryFullDescription: once an entity's or relation's description parts exceeded the
// budget, a short part that comes later is not kept, although it would fit after the parts kept.
func TestCarryFullDescription(t *testing.T) {
	long := strings.Repeat("many words ", 20)
	var steps []carryStep
	for seq, desc := range []string{"Short a.", "Short a.", "Short a.", "Short a.", long, "Short b.", "Short c."} {
		steps = append(steps, carryStep{results: []ChunkResult{chunk(fmt.Sprintf("c%d", seq), "d", seq,
			[]extract.Entity{{Name: "Vell", Type: "location", Description: desc}},
			extract.Relation{Source: "Vell", Target: "Orin", Description: desc, Strength: 1})}})
	}
	carried, plain := compareCarry(t, steps, 20)
	if carried.mentions >= plain.mentions {
		t.Errorf("Carry read %d mentions, without it %d", carried.mentions, plain.mentions)
	}
}
