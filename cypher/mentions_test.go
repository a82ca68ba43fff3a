package cypher

import (
	"testing"

	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestResidentDocumentLinks: a resident store's in-memory mentions answer what
// document_links.cypher answers, and follow writes made through another store.
func TestResidentDocumentLinks(t *testing.T) {
	plain, resident := residentPair(t)
	storetest.DocumentLinksFollowWrites(t, plain, resident, func() bool {
		resident.mentions.mu.Lock()
		defer resident.mentions.mu.Unlock()
		return resident.mentions.ix != nil
	})
}
