// Package cluster holds the numeric pieces of the hierarchical index (HiRAG's HiIndex): the
// entities of one layer are embedded, projected onto a few principal components (PCA), and
// clustered with a Gaussian mixture whose number of components is chosen by the lowest Bayesian
// information criterion (Select), recursively until clusters are small enough (Bounded). Every
// entity then belongs to each component whose posterior probability exceeds a threshold, so
// clusters may overlap, and Sparsity measures how much they do, which decides when to stop adding
// layers.
//
// The formulas follow scikit-learn's GaussianMixture (k-means initialisation, responsibilities
// from a log-sum-exp, reg_covar on the covariance diagonals, EM stopped on the change of the mean
// log-likelihood, and the same count of free parameters in the BIC), so that a model fitted here
// scores data exactly as scikit-learn would score the same parameters. Everything is deterministic
// for a given seed and independent of the number of goroutines used.
package cluster
