package prompts

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// ErrNoJSON is returned when an answer holds no JSON value at all.
var ErrNoJSON = errors.New("no JSON object or array in the answer")

// maxJSONCandidates bounds how many opening brackets ExtractJSON tries before giving up, so
// bracket-heavy prose cannot make it quadratic.
const maxJSONCandidates = 16

// ExtractJSON finds the first JSON object or array in a model answer and returns it as valid
// JSON. It looks inside code fences, skips prose and reasoning blocks around the value, removes
// trailing commas, and repairs a value cut off by the token limit by dropping the incomplete tail
// (a cut string value is kept up to the cut) and closing what is still open.
func ExtractJSON(answer string) (string, error) {
	s := textutil.StripThinking(answer)
	if body, ok := FencedBlock(s); ok {
		if v, err := extractJSON(body); err == nil {
			return v, nil
		}
	}
	return extractJSON(s)
}

// FencedBlock returns the content of the first ``` code fence in s; an unclosed fence runs to
// the end of s.
func FencedBlock(s string) (string, bool) {
	i := strings.Index(s, "```")
	if i < 0 {
		return "", false
	}
	rest := s[i+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
		rest = rest[nl+1:] // language tag such as ```json
	}
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	return rest, true
}

func extractJSON(s string) (string, error) {
	tried := 0
	for i := 0; i < len(s) && tried < maxJSONCandidates; i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		tried++
		if v, ok := scanJSON(s[i:]); ok {
			return v, nil
		}
	}
	return "", ErrNoJSON
}

// scanJSON reads the JSON value at the start of s and returns it, repaired if need be.
func scanJSON(s string) (string, bool) {
	var sc scanner
	var cands []string
	if end := sc.run(s); end >= 0 {
		cands = []string{s[:end]}
	} else {
		cands = sc.repairs(s)
	}
	for _, c := range cands {
		if json.Valid([]byte(c)) {
			return c, true
		}
		if fixed := dropTrailingCommas(c); json.Valid([]byte(fixed)) {
			return fixed, true
		}
	}
	return "", false
}

// scanner tracks just enough JSON structure to find where a value ends and, when it does not,
// the last point at which the text so far was a complete prefix.
type scanner struct {
	stack     []byte // open containers: '{' or '['
	expectKey []bool // per container: the next string in an object is a key
	inString  bool
	isKey     bool // the open string is an object key
	escape    bool
	strStart  int
	// safeEnd is the length of the longest prefix that becomes valid JSON once the first
	// safeDepth containers are closed.
	safeEnd   int
	safeDepth int
	literal   bool // inside a number or true/false/null
}

func (sc *scanner) markSafe(end int) {
	sc.safeEnd, sc.safeDepth = end, len(sc.stack)
}

// run scans s and returns the length of the first complete value, or -1 if s ends first.
func (sc *scanner) run(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if sc.inString {
			switch {
			case sc.escape:
				sc.escape = false
			case c == '\\':
				sc.escape = true
			case c == '"':
				sc.inString = false
				if !sc.isKey {
					sc.markSafe(i + 1)
				}
			}
			continue
		}
		if sc.literal {
			if isLiteralByte(c) {
				continue
			}
			sc.literal = false
			sc.markSafe(i)
		}
		switch c {
		case '{', '[':
			sc.stack = append(sc.stack, c)
			sc.expectKey = append(sc.expectKey, c == '{')
			sc.markSafe(i + 1)
		case '}', ']':
			if len(sc.stack) == 0 {
				return -1
			}
			sc.stack = sc.stack[:len(sc.stack)-1]
			sc.expectKey = sc.expectKey[:len(sc.expectKey)-1]
			if len(sc.stack) == 0 {
				return i + 1
			}
			sc.markSafe(i + 1)
		case '"':
			sc.inString, sc.strStart = true, i
			top := len(sc.stack) - 1
			sc.isKey = top >= 0 && sc.stack[top] == '{' && sc.expectKey[top]
			if sc.isKey {
				sc.expectKey[top] = false
			}
		case ',':
			if top := len(sc.stack) - 1; top >= 0 && sc.stack[top] == '{' {
				sc.expectKey[top] = true
			}
		case ':', ' ', '\t', '\n', '\r':
		default:
			if isLiteralByte(c) {
				sc.literal = true
			}
		}
	}
	return -1
}

func isLiteralByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') ||
		('A' <= c && c <= 'Z')
}

// repairs returns ways to complete a value cut off at the end of s, best first.
func (sc *scanner) repairs(s string) []string {
	var out []string
	if sc.inString && !sc.isKey {
		// Keep the cut string value: for reports, half a finding is better than none.
		body := s
		if sc.escape {
			body = body[:len(body)-1]
		}
		body = trimPartialEscape(body, sc.strStart)
		out = append(out, body+`"`+closers(sc.stack))
	}
	return append(out, s[:sc.safeEnd]+closers(sc.stack[:sc.safeDepth]))
}

// closers returns the brackets that close the open containers of stack, innermost first.
func closers(stack []byte) string {
	b := make([]byte, len(stack))
	for i, c := range stack {
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		b[len(stack)-1-i] = closer
	}
	return string(b)
}

// trimPartialEscape drops an incomplete \uXXXX escape at the end of a string body.
func trimPartialEscape(body string, strStart int) string {
	for k := 1; k <= 5 && len(body)-k > strStart; k++ {
		if body[len(body)-k] == '\\' {
			if strings.HasPrefix(body[len(body)-k:], `\u`) {
				return body[:len(body)-k]
			}
			break
		}
	}
	return body
}

// dropTrailingCommas removes commas that directly precede a closing bracket, outside strings.
func dropTrailingCommas(s string) string {
	var b strings.Builder
	inString, escape := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
