// Package vectorindex is an exact nearest-neighbour index over unit vectors held in memory: a
// Set of rows searched by cosine in one pass (split over the CPUs, four rows at a time through
// an AVX2 kernel where the CPU has one, through a half-precision copy first for large sets), with
// results identical bit for bit however the scan runs. It also reads and writes the vector file,
// the checksummed, labelled file format that holds a Set on disk (and whose header other query
// files of a store reuse), read in one pass or mapped into memory.
package vectorindex
