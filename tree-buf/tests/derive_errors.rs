//! Input the derive cannot handle is a compile error with a span at the culprit; the expected
//! messages live in `tests/ui/*.stderr`.

#[test]
fn derive_errors() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
