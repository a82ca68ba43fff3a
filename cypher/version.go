package cypher

import (
	"fmt"
	"strconv"
	"strings"
)

// minMajor.minMinor is the oldest Neo4j that strata's queries run on. Vector indexes alone would need
// 5.13, but the queries use variable-scope subqueries, CALL (x) { … }, which arrived in 5.23 (the
// older CALL { WITH x … } form is deprecated there and rejected by the linter). 5.26 LTS is the
// tested target; calendar versions (2025.01 and later) are newer than every 5.x.
const minMajor, minMinor = 5, 23

// serverVersion is a Neo4j version reduced to what the check needs.
type serverVersion struct{ major, minor int }

func (v serverVersion) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

func (v serverVersion) less(w serverVersion) bool {
	return v.major < w.major || v.major == w.major && v.minor < w.minor
}

// parseVersion reads "5.26.0", "5.26.1-enterprise", "2025.01.0" or "2025.10.1-aura".
func parseVersion(s string) (serverVersion, error) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return serverVersion{}, fmt.Errorf("unrecognized Neo4j version %q", s)
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return serverVersion{}, fmt.Errorf("unrecognized Neo4j version %q", s)
	}
	minorDigits := parts[1]
	if i := strings.IndexFunc(minorDigits, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minorDigits = minorDigits[:i]
	}
	minor, err := strconv.Atoi(minorDigits)
	if err != nil {
		return serverVersion{}, fmt.Errorf("unrecognized Neo4j version %q", s)
	}
	return serverVersion{major, minor}, nil
}

// checkComponents finds the kernel in the rows of dbms.components() and rejects versions older
// than minVersion. It returns the version string for Store.ServerVersion.
func checkComponents(rows []map[string]any) (string, error) {
	for _, row := range rows {
		f := fields{m: row}
		if name := f.str("name"); name != "Neo4j Kernel" {
			continue
		}
		versions := f.strs("versions")
		if f.err != nil {
			return "", f.err
		}
		if len(versions) == 0 {
			return "", fmt.Errorf("dbms.components() gave no version for the Neo4j Kernel")
		}
		v, err := parseVersion(versions[0])
		if err != nil {
			return "", err
		}
		if minimum := (serverVersion{minMajor, minMinor}); v.less(minimum) {
			return "", fmt.Errorf("Neo4j %s is too old: strata needs %s or later "+
				"(vector indexes need 5.13, its queries use CALL (…) {…} subqueries from 5.23; "+
				"5.26 LTS is the tested version, see docker/compose.yml)", versions[0], minimum)
		}
		return versions[0] + " " + f.str("edition"), nil
	}
	return "", fmt.Errorf("dbms.components() lists no Neo4j Kernel; is this a Neo4j server?")
}
