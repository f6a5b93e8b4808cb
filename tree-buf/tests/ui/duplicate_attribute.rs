#[derive(tree_buf::Encode)]
struct Order {
    #[tree_buf(rename = "a", rename = "b")]
    id: u32,
}

fn main() {}
