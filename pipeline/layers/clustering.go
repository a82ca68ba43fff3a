package layers

import (
	"cmp"
	"context"
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/graph"
)

// Clustering a layer: its members' embeddings read from the store in passes, reduced and split
// into clusters of bounded size by Gaussian mixtures.

// cluster splits the members into clusters of bounded size (soft: a member may be in several).
// The mixtures have diagonal covariances: a component of about ClusterSize members cannot
// determine the 55 values of a full 10×10 covariance (it collapses onto the few directions its
// members span), but can determine 10 variances; and a diagonal EM step costs Dims times less,
// which matters with hundreds of fits per layer.
//
// The embeddings are read from the store in passes (cluster.PCAStream, the same reduction
// cluster.Bounded makes from memory, bit for bit), so a layer of millions of entities is never
// held with its embeddings.
func (b *Builder) cluster(ctx context.Context, set layerSet, dims int, opt Options) ([]cluster.Group, error) {
	bopt := cluster.BoundedOptions{
		Size: opt.ClusterSize, MaxSize: opt.MaxClusterSize, Dims: opt.Dims,
		MaxComponents: opt.MaxComponents, Threshold: opt.Threshold,
		GMM: cluster.GMMOptions{Covariance: cluster.Diag, Seed: b.Seed},
	}
	n := len(set.conns)
	x, err := cluster.PCAStream(n, dims, b.embeddings(ctx, set, dims), cluster.BoundedDims(n, bopt))
	if err != nil {
		return nil, err
	}
	return cluster.BoundedProjected(ctx, x, bopt)
}

// dimensions returns the dimensions of the embeddings of set, those of its first entity's (0
// for an empty set).
func (b *Builder) dimensions(ctx context.Context, set layerSet) (int, error) {
	if set.ids.Len() == 0 {
		return 0, nil
	}
	id := set.ids.At(0)
	es, err := b.Store.Entities(ctx, []string{id})
	if err != nil {
		return 0, fmt.Errorf("read entity %s of layer %d: %w", id, set.layer, err)
	}
	if len(es) != 1 || len(es[0].Embedding) == 0 {
		return 0, fmt.Errorf("read entity %s of layer %d: gone, or without its embedding, since the layer was read", id, set.layer)
	}
	return len(es[0].Embedding), nil
}

// digestID adds an id to a digest of ids in order.
func digestID(h hash.Hash64, id string) {
	h.Write([]byte(id))
	h.Write([]byte{0})
}

// embeddings is the cluster.RowSource of the embeddings of a layer's entities, read from the
// store: layer 0 in id order (its ids need not be held: the pass's digest must be the layer's),
// a summary layer by id. The index is the store's one writer while it runs, so every pass reads
// the same rows; a pass that finds others is an error all the same.
//
// A layer whose embeddings fit in heldEmbeddings bytes is read once and its later passes
// (cluster.PCAStream makes three) come from memory; a larger one is read in every pass.
func (b *Builder) embeddings(ctx context.Context, set layerSet, dims int) cluster.RowSource {
	read := b.readEmbeddings(ctx, set)
	n := len(set.conns)
	if n*dims*4 > cmp.Or(b.holdAt, heldEmbeddings) || dims == 0 {
		return read
	}
	var held []float32 // n×dims, once the first pass is through
	return func(fn func(int, []float32) error) error {
		if held != nil {
			for i := range n {
				if err := fn(i, held[i*dims:(i+1)*dims:(i+1)*dims]); err != nil {
					return err
				}
			}
			return nil
		}
		rows := make([]float32, n*dims)
		err := read(func(i int, row []float32) error {
			if len(row) != dims {
				return fmt.Errorf("read layer %d: an embedding of %d dimensions, %d expected", set.layer, len(row), dims)
			}
			copy(rows[i*dims:], row)
			return fn(i, row)
		})
		if err == nil {
			held = rows
		}
		return err
	}
}

// heldEmbeddings is how many bytes of a layer's embeddings the clustering holds between its
// passes: on Neo4j reading them costs most of the clustering's time (boxed floats on the wire
// and in the driver), held they cost 4 bytes a value. 32 MiB is 20 000 entities of 384
// dimensions; a larger layer is streamed in every pass, as before.
const heldEmbeddings = 32 << 20

// readEmbeddings is the cluster.RowSource that reads the embeddings of a layer from the store in
// every pass.
func (b *Builder) readEmbeddings(ctx context.Context, set layerSet) cluster.RowSource {
	return func(fn func(int, []float32) error) error {
		n, i := len(set.conns), 0
		h := fnv.New64a()
		visit := func(es []graph.Entity) error {
			for _, e := range es {
				if i >= n {
					return fmt.Errorf("read layer %d: more than the %d entities with embeddings it had when first read", set.layer, n)
				}
				digestID(h, e.ID)
				if err := fn(i, e.Embedding); err != nil {
					return err
				}
				i++
			}
			return nil
		}
		var err error
		if set.layer == 0 {
			err = b.eachLayer(ctx, 0, visit)
			if err == nil && i == n && h.Sum64() != set.digest {
				err = fmt.Errorf("read layer 0: its entities changed while it was clustered")
			}
		} else {
			err = b.entities(ctx, set.layer, set.ids.Len(), set.ids.At, b.Store.Entities, visit)
		}
		if err == nil && i != n {
			err = fmt.Errorf("read layer %d: %d entities with embeddings, %d when the layer was first read", set.layer, i, n)
		}
		return err
	}
}

func countClusters(clusters [][]int) int {
	n := 0
	for _, c := range clusters {
		if len(c) >= 2 {
			n++
		}
	}
	return n
}
