package cypher

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("NEO4J_URI", "neo4j://db.example:7687")
	t.Setenv("NEO4J_USERNAME", "neo4j")
	t.Setenv("NEO4J_PASSWORD", "s3cret")
	t.Setenv("NEO4J_DATABASE", "strata")
	t.Setenv("STRATA_NEO4J_BATCH_SIZE", "42")
	want := Config{URI: "neo4j://db.example:7687", Username: "neo4j", Password: "s3cret", Database: "strata", BatchSize: 42}
	if got := ConfigFromEnv(); !reflect.DeepEqual(got, want) {
		t.Errorf("ConfigFromEnv() = %+v, want %+v", got, want)
	}
}

func TestConfigNeverPrintsPassword(t *testing.T) {
	c := Config{URI: "neo4j://admin:uripass@db:7687", Username: "neo4j", Password: "s3cret"}
	for _, s := range []string{c.String(), fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c)} {
		if strings.Contains(s, "s3cret") || strings.Contains(s, "uripass") {
			t.Errorf("config printed a password: %s", s)
		}
	}
	if !strings.Contains(c.String(), "password=***") {
		t.Errorf("String() = %s, want it to say a password is set", c.String())
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		uri     string
		wantErr string
	}{
		{"neo4j://localhost:7687", ""},
		{"neo4j+s://x.databases.neo4j.io", ""},
		{"bolt://127.0.0.1:7687", ""},
		{"", "NEO4J_URI"},
		{"http://localhost:7474", "scheme"},
		{"localhost:7687", "scheme"},
		{"neo4j://user:pw@%zz", "invalid"},
	} {
		err := Config{URI: tc.uri}.validate()
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("validate(%q) = %v, want error containing %q", tc.uri, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("validate(%q) leaked the password: %v", tc.uri, err)
		}
	}
}

func TestBatchSizeDefault(t *testing.T) {
	if got := (Config{}).batchSize(); got != DefaultBatchSize {
		t.Errorf("batchSize() = %d, want %d", got, DefaultBatchSize)
	}
	if got := (Config{BatchSize: 7}).batchSize(); got != 7 {
		t.Errorf("batchSize() = %d, want 7", got)
	}
}
