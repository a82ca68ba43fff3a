// Package idlist holds many ids packed into one string: 4 bytes an id besides its text, where a
// []string costs a 16-byte header an id (and, built row by row, an allocation each). The graph of
// one huge document has millions of entities, whose ids would otherwise be much of what the
// stages that walk it hold.
package idlist

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
)

// List is a sequence of ids: id i is text[end(i-1):end(i)]. The zero List is empty.
type List struct {
	text string
	ends []uint32
}

// Builder appends ids to a List.
type Builder struct {
	b    strings.Builder
	ends []uint32
}

// Grow makes room for n more ids of size bytes in all, so that a list of known size is built
// in one allocation (grown by doubling, the text would keep up to half its size as slack).
func (b *Builder) Grow(n, size int) {
	b.ends = append(make([]uint32, 0, len(b.ends)+n), b.ends...)
	b.b.Grow(size)
}

// Add appends id. The text of all ids must stay below 4 GiB.
func (b *Builder) Add(id []byte) error {
	if err := b.room(len(id)); err != nil {
		return err
	}
	b.b.Write(id)
	b.ends = append(b.ends, uint32(b.b.Len()))
	return nil
}

// AddString appends id (see Add).
func (b *Builder) AddString(id string) error {
	if err := b.room(len(id)); err != nil {
		return err
	}
	b.b.WriteString(id)
	b.ends = append(b.ends, uint32(b.b.Len()))
	return nil
}

// room checks that an id of n bytes keeps the text addressable by the uint32 ends.
func (b *Builder) room(n int) error {
	if b.b.Len()+n > math.MaxUint32 {
		return fmt.Errorf("ids exceed %d bytes", uint64(math.MaxUint32))
	}
	return nil
}

// List returns the ids added so far. Later additions do not change it.
func (b *Builder) List() List {
	return List{text: b.b.String(), ends: b.ends[:len(b.ends):len(b.ends)]}
}

// New packs ids (tests and callers with a few ids).
func New(ids []string) (List, error) {
	var b Builder
	for _, id := range ids {
		if err := b.AddString(id); err != nil {
			return List{}, err
		}
	}
	return b.List(), nil
}

// Len returns the number of ids.
func (l List) Len() int { return len(l.ends) }

// At returns id i, a substring of the packed text (no allocation).
func (l List) At(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// Clone returns a copy of l in allocations of its size: a List built by appending holds up to
// twice that.
func (l List) Clone() List { return List{text: strings.Clone(l.text), ends: slices.Clone(l.ends)} }

// Strings returns the ids as a []string (a few ids: each is a substring of l's text).
func (l List) Strings() []string {
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// Equal reports whether l and m hold the same ids in the same order.
func (l List) Equal(m List) bool { return l.text == m.text && slices.Equal(l.ends, m.ends) }

// Search finds id in a list sorted by id: its position, or where it would go, and whether it is
// there.
func (l List) Search(id string) (int, bool) {
	lo, hi := 0, l.Len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.At(m) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < l.Len() && l.At(lo) == id
}

// Index finds the position of an id in a List by hashing: open addressing over int32 slots, 8 to
// 16 bytes an id where a map[string]int takes several times that.
type Index struct {
	ids   List
	seed  maphash.Seed
	slots []int32 // position+1 of the id hashed here, 0 when empty
	mask  uint64
}

// NewIndex indexes the ids of l, which must be distinct.
func NewIndex(l List) *Index {
	size := uint64(2)
	for size < 2*uint64(l.Len()) {
		size *= 2
	}
	x := &Index{ids: l, seed: maphash.MakeSeed(), slots: make([]int32, size), mask: size - 1}
	for i := range l.Len() {
		h := maphash.String(x.seed, l.At(i)) & x.mask
		for x.slots[h] != 0 {
			h = (h + 1) & x.mask
		}
		x.slots[h] = int32(i + 1)
	}
	return x
}

// Find returns the position of id, given as bytes so that rows scanned into sql.RawBytes need
// no string each.
func (x *Index) Find(id []byte) (int32, bool) {
	h := maphash.Bytes(x.seed, id) & x.mask
	for {
		p := x.slots[h]
		if p == 0 {
			return 0, false
		}
		if x.ids.At(int(p-1)) == string(id) {
			return p - 1, true
		}
		h = (h + 1) & x.mask
	}
}
