package retrieval

// FlatArchSearch returns o with arch mode searching every layer on its own instead of descending
// (archFlat), for the comparison in BenchmarkArchSearch.
func FlatArchSearch(o Options) Options {
	o.archSearch = archFlat
	return o
}
