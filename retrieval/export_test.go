package retrieval

// DescentArchSearch returns o with arch mode descending the hierarchy (archDescent) instead of
// searching every layer on its own, for the comparison in BenchmarkArchSearch.
func DescentArchSearch(o Options) Options {
	f := archFinder(archDescent)
	o.archFind = &f
	return o
}

// FlatVectorArchSearch returns o with arch mode searching every layer on its own by vector
// search alone, layer 0 included (archFlatVector).
func FlatVectorArchSearch(o Options) Options {
	f := archFinder(archFlatVector)
	o.archFind = &f
	return o
}
