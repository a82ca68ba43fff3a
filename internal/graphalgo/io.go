package graphalgo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// ReadEdgeList reads an undirected edge list: one edge a line as "u v" or "u v w", fields
// separated by white space or commas, nodes as non-negative integers, w a number (default 1).
// Fields past the third are ignored. Blank lines and lines starting with '#' or '%' are
// comments, except that a comment of the form "# nodes N" sets the node count (so that isolated
// nodes with the highest ids survive a round trip through WriteEdgeList); otherwise the graph
// has max id + 1 nodes.
func ReadEdgeList(r io.Reader) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var edges []Edge
	n, declared := 0, -1
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		if s[0] == '#' || s[0] == '%' {
			f := strings.Fields(s[1:])
			if len(f) == 2 && f[0] == "nodes" {
				v, err := strconv.Atoi(f[1])
				if err != nil || v < 0 {
					return nil, fmt.Errorf("edge list line %d: bad node count %q", line, f[1])
				}
				declared = v
			}
			continue
		}
		f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		if len(f) < 2 {
			return nil, fmt.Errorf("edge list line %d: want \"u v [w]\", got %q", line, s)
		}
		u, err := parseNode(f[0])
		if err != nil {
			return nil, fmt.Errorf("edge list line %d: %w", line, err)
		}
		v, err := parseNode(f[1])
		if err != nil {
			return nil, fmt.Errorf("edge list line %d: %w", line, err)
		}
		w := 1.0
		if len(f) >= 3 {
			w, err = strconv.ParseFloat(f[2], 64)
			if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
				return nil, fmt.Errorf("edge list line %d: bad weight %q", line, f[2])
			}
		}
		edges = append(edges, Edge{U: u, V: v, W: w})
		n = max(n, u+1, v+1)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading edge list: %w", err)
	}
	if declared >= 0 {
		if declared < n {
			return nil, fmt.Errorf("edge list declares %d nodes but uses node %d", declared, n-1)
		}
		n = declared
	}
	return NewGraphChecked(n, edges)
}

func parseNode(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v >= math.MaxInt32 {
		return 0, fmt.Errorf("bad node id %q (want a non-negative integer)", s)
	}
	return v, nil
}

// WriteEdgeList writes g in the format ReadEdgeList reads: a "# nodes N" header, then every edge
// once (self-loops included) as "u v", with the weight as a third field only when some weight
// differs from 1.
func WriteEdgeList(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	edges := g.Edges()
	weighted := false
	for _, e := range edges {
		if e.W != 1 {
			weighted = true
			break
		}
	}
	fmt.Fprintf(bw, "# nodes %d\n# edges %d\n", g.NumNodes(), len(edges))
	buf := make([]byte, 0, 64)
	for _, e := range edges {
		buf = strconv.AppendInt(buf[:0], int64(e.U), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(e.V), 10)
		if weighted {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, e.W, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("writing edge list: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing edge list: %w", err)
	}
	return nil
}

// ReadGML reads an undirected graph in the Graph Modelling Language as written by networkx and
// igraph. Nodes are numbered 0..n-1 in the order they appear, whatever their GML ids; edges
// refer to GML ids through source and target and take their weight from a numeric weight
// attribute (default 1). A directed flag is ignored: edges are read as undirected.
//
// labels maps every integer-valued node attribute (including "id") to its value per node, for
// example the ground-truth "community" or "value" of benchmark graphs. A key repeated within a
// node, which is how networkx writes a list or set, gives the smallest of its values: for the
// LFR benchmark graphs, whose community attribute lists the members of the node's community,
// that is a canonical community id. Nodes that lack an attribute other nodes have get -1.
func ReadGML(r io.Reader) (g *Graph, labels map[string][]int, err error) {
	p := &gmlParser{r: bufio.NewReader(r), line: 1}
	root, err := p.parseList(false)
	if err != nil {
		return nil, nil, fmt.Errorf("reading GML: %w", err)
	}
	var graph []gmlPair
	found := false
	for _, kv := range root {
		if kv.key == "graph" && kv.list != nil {
			graph, found = kv.list, true
			break
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("reading GML: %w", errEmptyInput)
	}

	index := make(map[int64]int) // GML id -> node number
	type nodeAttrs map[string]int
	var attrs []nodeAttrs
	for _, kv := range graph {
		if kv.key != "node" {
			continue
		}
		if kv.list == nil {
			return nil, nil, fmt.Errorf("reading GML line %d: node is not a list", kv.line)
		}
		a := nodeAttrs{}
		hasID := false
		for _, f := range kv.list {
			if f.list != nil || f.str {
				continue
			}
			v, err := strconv.ParseInt(f.val, 10, 64)
			if err != nil {
				continue // a real-valued attribute: not a label
			}
			if f.key == "id" {
				if hasID {
					return nil, nil, fmt.Errorf("reading GML line %d: node with two ids", f.line)
				}
				hasID = true
				if _, dup := index[v]; dup {
					return nil, nil, fmt.Errorf("reading GML line %d: duplicate node id %d", f.line, v)
				}
				index[v] = len(attrs)
			}
			if old, ok := a[f.key]; !ok || int(v) < old {
				a[f.key] = int(v)
			}
		}
		if !hasID {
			return nil, nil, fmt.Errorf("reading GML line %d: node without an integer id", kv.line)
		}
		attrs = append(attrs, a)
	}

	var edges []Edge
	for _, kv := range graph {
		if kv.key != "edge" {
			continue
		}
		if kv.list == nil {
			return nil, nil, fmt.Errorf("reading GML line %d: edge is not a list", kv.line)
		}
		var src, dst int64
		var hasSrc, hasDst bool
		w := 1.0
		for _, f := range kv.list {
			if f.list != nil || f.str {
				continue
			}
			switch f.key {
			case "source", "target":
				v, err := strconv.ParseInt(f.val, 10, 64)
				if err != nil {
					return nil, nil, fmt.Errorf("reading GML line %d: bad %s %q", f.line, f.key, f.val)
				}
				if f.key == "source" {
					src, hasSrc = v, true
				} else {
					dst, hasDst = v, true
				}
			case "weight":
				v, err := strconv.ParseFloat(f.val, 64)
				if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
					return nil, nil, fmt.Errorf("reading GML line %d: bad weight %q", f.line, f.val)
				}
				w = v
			}
		}
		if !hasSrc || !hasDst {
			return nil, nil, fmt.Errorf("reading GML line %d: edge without source or target", kv.line)
		}
		u, ok1 := index[src]
		v, ok2 := index[dst]
		if !ok1 || !ok2 {
			return nil, nil, fmt.Errorf("reading GML line %d: edge %d-%d refers to an unknown node", kv.line, src, dst)
		}
		edges = append(edges, Edge{U: u, V: v, W: w})
	}

	g, err = NewGraphChecked(len(attrs), edges)
	if err != nil {
		return nil, nil, fmt.Errorf("reading GML: %w", err)
	}
	labels = make(map[string][]int)
	for i, a := range attrs {
		for k, v := range a {
			col, ok := labels[k]
			if !ok {
				col = make([]int, len(attrs))
				for j := range col {
					col[j] = -1
				}
				labels[k] = col
			}
			col[i] = v
		}
	}
	return g, labels, nil
}

// gmlPair is one key/value of a GML list: a scalar (val, str set for quoted strings) or a
// nested list.
type gmlPair struct {
	key  string
	val  string
	str  bool
	list []gmlPair // non-nil for a list value
	line int
}

// gmlParser is a small recursive-descent parser for GML: key value pairs where a value is a
// number, a quoted string or a bracketed list of pairs. Lines starting with '#' are comments.
type gmlParser struct {
	r    *bufio.Reader
	line int
}

type gmlToken struct {
	text   string
	quoted bool
	line   int
}

var (
	errGMLEOF     = errors.New("unexpected end of input")
	errEmptyInput = errors.New("no graph in input")
)

// token returns the next token: "[", "]", a quoted string (without quotes) or a bare word.
// io.EOF at a clean end of input.
func (p *gmlParser) token() (gmlToken, error) {
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			return gmlToken{}, err
		}
		switch {
		case c == '\n':
			p.line++
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#':
			for c != '\n' {
				if c, err = p.r.ReadByte(); err != nil {
					return gmlToken{}, err
				}
			}
			p.line++
		case c == '[' || c == ']':
			return gmlToken{text: string(c), line: p.line}, nil
		case c == '"':
			start := p.line
			var sb strings.Builder
			for {
				c, err = p.r.ReadByte()
				if err != nil {
					return gmlToken{}, fmt.Errorf("line %d: unterminated string: %w", start, errGMLEOF)
				}
				if c == '"' {
					return gmlToken{text: sb.String(), quoted: true, line: start}, nil
				}
				if c == '\n' {
					p.line++
				}
				sb.WriteByte(c)
			}
		default:
			var sb strings.Builder
			sb.WriteByte(c)
			for {
				c, err = p.r.ReadByte()
				if err == io.EOF {
					return gmlToken{text: sb.String(), line: p.line}, nil
				}
				if err != nil {
					return gmlToken{}, err
				}
				if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '[' || c == ']' || c == '"' {
					if err := p.r.UnreadByte(); err != nil {
						return gmlToken{}, err
					}
					return gmlToken{text: sb.String(), line: p.line}, nil
				}
				sb.WriteByte(c)
			}
		}
	}
}

// parseList parses pairs until "]" (nested) or the end of input (top level).
func (p *gmlParser) parseList(nested bool) ([]gmlPair, error) {
	out := []gmlPair{}
	for {
		key, err := p.token()
		if err == io.EOF {
			if nested {
				return nil, fmt.Errorf("line %d: missing ']': %w", p.line, errGMLEOF)
			}
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if key.text == "]" && !key.quoted {
			if !nested {
				return nil, fmt.Errorf("line %d: unexpected ']'", key.line)
			}
			return out, nil
		}
		if key.quoted || key.text == "[" {
			return nil, fmt.Errorf("line %d: expected a key, got %q", key.line, key.text)
		}
		val, err := p.token()
		if err == io.EOF {
			return nil, fmt.Errorf("line %d: key %q without value: %w", key.line, key.text, errGMLEOF)
		}
		if err != nil {
			return nil, err
		}
		pair := gmlPair{key: key.text, line: key.line}
		switch {
		case val.text == "[" && !val.quoted:
			if pair.list, err = p.parseList(true); err != nil {
				return nil, err
			}
		case val.text == "]" && !val.quoted:
			return nil, fmt.Errorf("line %d: key %q without value", key.line, key.text)
		default:
			pair.val, pair.str = val.text, val.quoted
		}
		out = append(out, pair)
	}
}
