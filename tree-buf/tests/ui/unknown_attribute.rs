#[derive(tree_buf::Encode)]
struct Order {
    #[tree_buf(flatten)]
    id: u32,
}

fn main() {}
