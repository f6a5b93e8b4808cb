// `crate` given twice, in one attribute or in two.
#[derive(tree_buf::Encode)]
#[tree_buf(crate = "tree_buf", crate = "tree_buf")]
#[tree_buf(crate = "::tree_buf")]
struct Twice {
    id: u32,
}

// `crate` without a string, or with a string that is not a module path.
#[derive(tree_buf::Decode)]
#[tree_buf(crate = tree_buf)]
#[tree_buf(crate)]
#[tree_buf(crate = "not a path", crate = "tree_buf::<u8>", crate = "")]
struct Malformed {
    id: u32,
}

fn main() {}
