// Conversions whose type or module is not one.
#[derive(tree_buf::Encode)]
#[tree_buf(into = "not a type", from)]
struct Wrapper {
    #[tree_buf(with = "a-module")]
    a: u32,
    #[tree_buf(with)]
    b: u32,
}

fn main() {}
