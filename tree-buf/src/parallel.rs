//! Work spread over rayon's threads when the `parallel` feature is on (the default), and done in
//! order on the calling thread when it is off or when the caller judges the work too small.

/// `f` applied to every item, results in the items' order; on rayon's threads if `parallel`.
pub(crate) fn map<T: Send, R: Send>(
    items: Vec<T>,
    parallel: bool,
    f: impl Fn(T) -> R + Send + Sync,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return items.into_par_iter().map(f).collect();
    }
    let _ = parallel;
    items.into_iter().map(f).collect()
}
