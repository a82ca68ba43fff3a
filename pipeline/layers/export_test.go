package layers

// SpillEdgesFrom makes b keep layer 0's relations in a temporary file from n of them on.
func SpillEdgesFrom(b *Builder, n int) { b.spillAt = n }
