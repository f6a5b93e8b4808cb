//! A type nested to any depth, for the tests and examples that need one: each level is a type of
//! its own and a node of the schema.

/// A type, or a value of it, nested once per token after the `;`: `Vec` in `Vec`.
/// `nested!(type u8; a a)` is `Vec<Vec<u8>>`, and `nested!(value 7u8; a a)` is `vec![vec![7u8]]`.
macro_rules! nested {
    (type $inner:ty;) => { $inner };
    (type $inner:ty; $_level:tt $($levels:tt)*) => { nested!(type Vec<$inner>; $($levels)*) };
    (value $inner:expr;) => { $inner };
    (value $inner:expr; $_level:tt $($levels:tt)*) => { nested!(value vec![$inner]; $($levels)*) };
}
