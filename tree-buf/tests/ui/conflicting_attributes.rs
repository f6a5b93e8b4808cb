#[derive(tree_buf::Decode)]
struct Order {
    #[tree_buf(skip, rename = "other")]
    id: u32,
    #[tree_buf(skip, default)]
    price: u32,
}

fn main() {}
