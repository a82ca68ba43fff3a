package embedded

import (
	"fmt"
	"hash/maphash"
	"math"
	"strings"
)

// idList holds the ids of the entity graph's nodes packed into one string: id i is
// text[end(i-1):end(i)]. One allocation for all of them and 4 bytes an id besides their text,
// where a []string costs 16 bytes a header plus an allocation per id, which for the 1.8 million
// entities of one 50 MiB document is most of what the graph holds.
type idList struct {
	text string
	ends []uint32
}

// idListBuilder appends ids in order.
type idListBuilder struct {
	b    strings.Builder
	ends []uint32
}

func (b *idListBuilder) add(id []byte) error {
	if b.b.Len()+len(id) > math.MaxUint32 {
		return fmt.Errorf("entity ids exceed %d bytes", uint64(math.MaxUint32))
	}
	b.b.Write(id)
	b.ends = append(b.ends, uint32(b.b.Len()))
	return nil
}

func (b *idListBuilder) list() idList { return idList{text: b.b.String(), ends: b.ends} }

// newIDList packs ids (tests and callers with a few ids).
func newIDList(ids []string) (idList, error) {
	var b idListBuilder
	for _, id := range ids {
		if err := b.add([]byte(id)); err != nil {
			return idList{}, err
		}
	}
	return b.list(), nil
}

func (l idList) len() int { return len(l.ends) }

// at returns id i, a substring of the packed text (no allocation).
func (l idList) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// search finds id in a list sorted by id.
func (l idList) search(id string) (int, bool) {
	lo, hi := 0, l.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.at(m) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < l.len() && l.at(lo) == id
}

// idIndex finds the position of an id in an idList by hashing: open addressing over int32
// slots, 8 to 16 bytes an id where a map[string]int takes several times that.
type idIndex struct {
	ids   idList
	seed  maphash.Seed
	slots []int32 // position+1 of the id hashed here, 0 when empty
	mask  uint64
}

func newIDIndex(ids idList) *idIndex {
	size := uint64(2)
	for size < 2*uint64(ids.len()) {
		size *= 2
	}
	x := &idIndex{ids: ids, seed: maphash.MakeSeed(), slots: make([]int32, size), mask: size - 1}
	for i := range ids.len() {
		h := maphash.String(x.seed, ids.at(i)) & x.mask
		for x.slots[h] != 0 {
			h = (h + 1) & x.mask
		}
		x.slots[h] = int32(i + 1)
	}
	return x
}

// find returns the position of id, given as bytes so that rows scanned into sql.RawBytes need
// no string each.
func (x *idIndex) find(id []byte) (int32, bool) {
	h := maphash.Bytes(x.seed, id) & x.mask
	for {
		p := x.slots[h]
		if p == 0 {
			return 0, false
		}
		if x.ids.at(int(p-1)) == string(id) {
			return p - 1, true
		}
		h = (h + 1) & x.mask
	}
}
