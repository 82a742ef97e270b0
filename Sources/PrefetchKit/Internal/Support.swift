// `Locked` and `SplitMix64` live in their own module, so that a module that only needs a lock or
// a seeded generator (the data server) does not import the fetch engine. Re-exported: the
// package's modules that import PrefetchKit keep seeing them (both are `package`, so nothing
// becomes visible outside the package).
@_exported import PrefetchSupport
