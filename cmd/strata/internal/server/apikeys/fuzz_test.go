package apikeys

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: a keys file either parses into keys that each line's key finds, on its line, or is
// refused with a message that names a line within the file (or the file as a whole) and never
// holds the text of a key.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"# keys\n0123456789abcdef0123 docs, wiki\nfedcba9876543210fedc *\n",
		"0123456789abcdef0123\n",
		"0123456789abcdef0123 ,\n",
		" , ,\n",
		"0123456789abcdef0123 docs\r\n0123456789abcdef0123 wiki\r\n",
		"short docs\n",
		"0123456789abcdef0123\tdocs\t*\n",
		"0123456789abcdef0123 wi/ki\n",
		"0123456789abcdef\x00 docs\n",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, file string) {
		set, err := Parse(strings.NewReader(file))
		lines := strings.Split(file, "\n")
		if err != nil {
			var le *LineError
			if errors.As(err, &le) && (le.Line < 1 || le.Line > len(lines)) {
				t.Fatalf("%v: line %d of a file of %d", err, le.Line, len(lines))
			}
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			if le == nil {
				return
			}
			// The refused line's key, in a message that quotes nothing of the line (one about a
			// workspace quotes its name, which may hold anything).
			line := lines[le.Line-1]
			fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
			if len(fields) > 0 && len(fields[0]) >= MinKeyLen && !strings.Contains(err.Error(), `"`) && strings.Contains(err.Error(), fields[0]) {
				t.Fatalf("the message %q holds the key of line %d", err, le.Line)
			}
			return
		}
		n := 0
		for i, line := range lines {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			n++
			token := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })[0]
			k := set.Lookup(token)
			if k == nil || k.Line != i+1 || k.ID != ID(token) {
				t.Fatalf("line %d's key: %+v", i+1, k)
			}
			if len(k.Workspaces()) == 0 {
				t.Fatalf("line %d's key grants nothing", i+1)
			}
		}
		if n != set.Len() {
			t.Fatalf("%d keys from %d key lines", set.Len(), n)
		}
	})
}
