package graph

import "strings"

// CompareHits orders hits by score, best first, then by id: the order of the embedded store's
// searches (vector, attributed-community and in-memory full-text), a total order so that a
// search split in parts gives the same hits however it is split.
func CompareHits(a, b Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}
