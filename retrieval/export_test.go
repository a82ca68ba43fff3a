package retrieval

// DescentArchSearch returns o with arch mode descending the hierarchy (archDescent) instead of
// searching every layer on its own, for the comparison in BenchmarkArchSearch.
func DescentArchSearch(o Options) Options {
	o.archSearch = archDescent
	return o
}
