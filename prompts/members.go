package prompts

import (
	"fmt"
	"strings"
)

// MemberLines lists the members of a cluster or community as the summary prompts read them, one
// line each ("- NAME (TYPE): DESCRIPTION", the description on one line), in the order given, for
// as long as they fit in budget tokens as count counts them; the first is always listed.
func MemberLines[M any](count func(string) int, budget int, members []M, fields func(M) (name, typ, description string)) string {
	var sb strings.Builder
	used := 0
	for _, m := range members {
		name, typ, desc := fields(m)
		line := fmt.Sprintf("- %s (%s): %s\n", name, typ, strings.Join(strings.Fields(desc), " "))
		n := count(line)
		if used+n > budget && used > 0 {
			break
		}
		sb.WriteString(line)
		used += n
	}
	return sb.String()
}
