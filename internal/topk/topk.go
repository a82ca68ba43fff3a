// Package topk keeps the k least items of a stream under a total order, in order, holding k items
// and no more: what sorting all of them would put first, without holding or sorting all of them.
// The reports stage picks a community's few heaviest relations and best-connected entities this
// way; the largest community of a huge document has hundreds of thousands of relations.
package topk

import "slices"

// Least keeps the K least items added so far. Build one with New.
type Least[T any] struct {
	k     int
	cmp   func(a, b T) int
	items []T
}

// New returns a Least keeping the k least items by cmp, a total order (ties broken, so that the
// result does not depend on the order items arrive in). k < 0 keeps every item.
func New[T any](k int, cmp func(a, b T) int) *Least[T] {
	return &Least[T]{k: k, cmp: cmp}
}

// Add offers one item: O(k) time at worst, O(log k) when it is not kept.
func (l *Least[T]) Add(it T) {
	if l.k < 0 {
		l.items = append(l.items, it)
		return
	}
	i, _ := slices.BinarySearchFunc(l.items, it, l.cmp)
	if i >= l.k {
		return
	}
	if len(l.items) == l.k {
		// The last is dropped; Insert writes over its slot, so nothing keeps it alive.
		l.items = l.items[:l.k-1]
	}
	l.items = slices.Insert(l.items, i, it)
}

// Items returns the kept items, least first. The Least must not be used after.
func (l *Least[T]) Items() []T {
	if l.k < 0 {
		slices.SortFunc(l.items, l.cmp)
	}
	return l.items
}

// Of returns the k least of items by cmp, in order.
func Of[T any](items []T, k int, cmp func(a, b T) int) []T {
	l := New(k, cmp)
	if k >= 0 {
		l.items = make([]T, 0, min(k, len(items)))
	}
	for _, it := range items {
		l.Add(it)
	}
	return l.Items()
}
