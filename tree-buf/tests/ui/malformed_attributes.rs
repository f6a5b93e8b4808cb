// Values of the wrong form, and `#[tree_buf]` attributes that are not lists.
#[derive(tree_buf::Decode)]
#[tree_buf(bound = "T Trait")]
#[tree_buf(bound)]
struct Wrapper<T> {
    #[tree_buf(rename)]
    a: T,
    #[tree_buf(rename = 5, skip = true)]
    b: u32,
    #[tree_buf(default("zero"))]
    c: u32,
    #[tree_buf]
    d: u32,
    #[tree_buf = "e"]
    e: u32,
    #[tree_buf("f")]
    f: u32,
}

fn main() {}
