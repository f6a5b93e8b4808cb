// The tests on real data are ignored, with the reason, when the datasets are missing: the same
// rule as the datasets crate, in one place.
include!("../datasets/build.rs");
