// Command compare is the Go half of bench/parity/run.sh: it checks that the embedded store and
// the Neo4j backend hold the same graph and search alike, and prints the parity table of a run.
//
//	compare stores -name NAME -data-dir DIR [-json FILE]
//	    opens the embedded store in DIR (read-only) and the Neo4j database of NEO4J_URI,
//	    NEO4J_USERNAME, NEO4J_PASSWORD and NEO4J_DATABASE through the graph contract and prints
//	    counts per label and type, entities, relations, components, summary layers and
//	    communities (count and modularity per level) side by side; -json writes the same as JSON.
//	compare search -data-dir DIR -questions FILE [-k 40] [-json FILE]
//	    runs the vector and full-text searches that retrieval starts from, for every question, on
//	    both stores and counts the questions whose hits agree (offline embedder only).
//	compare report -dir DIR [-modes "naive local hi global"] CORPUS...
//	    reads what run.sh wrote under DIR/CORPUS (ingest-*.json, wall.json, eval-*-*.json,
//	    graph.json, search.json) and prints the ingest and recall tables and the summary table.
//
// Both stores are read the same way, so a difference in the output is a difference in the data.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

const usage = `usage:
  go run ./bench/parity/compare stores -name NAME -data-dir DIR [-json FILE]
  go run ./bench/parity/compare search -data-dir DIR -questions FILE [-k 40] [-json FILE]
  go run ./bench/parity/compare report -dir DIR [-modes "naive local hi global"] CORPUS...
The Neo4j side is read from NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD and NEO4J_DATABASE.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "stores":
		err = runStores(os.Args[2:])
	case "search":
		err = runSearch(os.Args[2:])
	case "report":
		err = runReport(os.Args[2:])
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// writeJSONFile writes v as indented JSON to path; an empty path writes nothing.
func writeJSONFile(path string, v any) error {
	if path == "" {
		return nil
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
