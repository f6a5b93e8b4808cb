#[derive(tree_buf::Decode)]
struct Order {
    #[tree_buf(skip, rename = "other")]
    id: u32,
    #[tree_buf(skip, default)]
    price: u32,
    #[tree_buf(skip, with = "module")]
    note: u32,
}

#[derive(tree_buf::Decode)]
#[tree_buf(from = "u8", try_from = "u16")]
struct Level(u8);

fn main() {}
