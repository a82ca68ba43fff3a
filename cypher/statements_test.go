package cypher

import (
	"reflect"
	"testing"
	"time"
)

func TestStatementsAccount(t *testing.T) {
	var s statements
	for _, r := range []struct {
		name    string
		rows    int
		elapsed time.Duration
	}{
		{"apply_entities", 500, 30 * time.Millisecond},
		{"read_meta", 1, time.Millisecond},
		{"apply_entities", 200, 20 * time.Millisecond},
		{"gds_drop", 0, 2 * time.Millisecond},
		{"read_meta", 0, time.Millisecond},
	} {
		s.record(r.name, r.rows, r.elapsed)
	}
	want := []StatementStat{
		{Name: "apply_entities", Calls: 2, Rows: 700, Elapsed: 50 * time.Millisecond},
		{Name: "gds_drop", Calls: 1, Rows: 0, Elapsed: 2 * time.Millisecond},
		{Name: "read_meta", Calls: 2, Rows: 1, Elapsed: 2 * time.Millisecond},
	}
	if got := s.stats(); !reflect.DeepEqual(got, want) {
		t.Errorf("stats() = %+v, want %+v", got, want)
	}
}
