package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// parseGrass reads a style sheet as Neo4j Browser 5 does when one is dropped on it
// (parseGrassCSS in neo4j-browser's grassUtils): quotes only toggle a string, braces outside
// strings open and close a rule, and a rule's body is split at every ";" and then at every ":";
// a property whose text holds another ":" is silently dropped.
func parseGrass(text string) (rules map[string]map[string]string, dropped []string) {
	rules = map[string]map[string]string{}
	var keyword, props strings.Builder
	insideString, insideProps, insideBinding := false, false, false
	bodies := map[string]string{}
	for _, c := range text {
		skip := true
		switch c {
		case '{':
			if insideString {
				skip = false
			} else if insideProps {
				insideBinding = true
			} else {
				insideProps = true
			}
		case '}':
			if insideString {
				skip = false
			} else if insideBinding {
				insideBinding = false
			} else {
				insideProps = false
				bodies[keyword.String()] = props.String()
				keyword.Reset()
				props.Reset()
			}
		case '\'', '"':
			insideString = !insideString
		default:
			skip = false
		}
		if skip {
			continue
		}
		if insideProps {
			props.WriteRune(c)
		} else if !strings.ContainsRune(" \t\r\n", c) {
			keyword.WriteRune(c)
		}
	}
	for sel, body := range bodies {
		rules[sel] = map[string]string{}
		for _, p := range strings.Split(body, ";") {
			kv := strings.Split(p, ":")
			if len(kv) != 2 {
				if strings.TrimSpace(p) != "" {
					dropped = append(dropped, sel+": "+strings.TrimSpace(p))
				}
				continue
			}
			rules[sel][strings.TrimSpace(kv[0])] = strings.TrimSpace(kv[1])
		}
	}
	return rules, dropped
}

// TestBrowserStyleSheet checks docker/strata.grass as Browser reads it: every label and
// relationship type strata writes (cypher/lint/schema.json) has a rule that sets its caption, no
// property is dropped, captions name only properties strata writes, and no two labels share a
// colour.
func TestBrowserStyleSheet(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docker", "strata.grass"))
	if err != nil {
		t.Fatal(err)
	}
	rules, dropped := parseGrass(string(b))
	for _, d := range dropped {
		t.Errorf("Browser drops %q (a value may hold no \":\" or \";\")", d)
	}
	s, err := os.ReadFile(filepath.Join("..", "..", "cypher", "lint", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct{ Labels, RelationshipTypes, PropertyKeys []string }
	if err := json.Unmarshal(s, &schema); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, k := range schema.PropertyKeys {
		known[k] = true
	}
	binding := regexp.MustCompile(`\{([^{}]*)\}`)
	check := func(sel string) map[string]string {
		r, ok := rules[sel]
		if !ok {
			t.Errorf("no rule %q in docker/strata.grass", sel)
			return nil
		}
		if _, ok := r["caption"]; !ok {
			t.Errorf("%s has no caption (\"\" for none)", sel)
		}
		for _, m := range binding.FindAllStringSubmatch(r["caption"], -1) {
			if !known[m[1]] {
				t.Errorf("%s is captioned by {%s}, which strata does not write", sel, m[1])
			}
		}
		return r
	}
	colours := map[string]string{}
	for _, l := range schema.Labels {
		r := check("node." + l)
		if r == nil {
			continue
		}
		if other, ok := colours[r["color"]]; ok {
			t.Errorf("%s and %s share the colour %s", other, l, r["color"])
		}
		colours[r["color"]] = l
	}
	for _, rt := range schema.RelationshipTypes {
		check("relationship." + rt)
	}
}
