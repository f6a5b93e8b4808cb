// Keys a place does not take: each is reported, and the items after it are still read.
#[derive(tree_buf::Encode)]
#[tree_buf(rename = "order")]
struct Order {
    #[tree_buf(flatten)]
    id: u32,
    #[tree_buf(serialize_with = "module", alias("a", "b"), rename = "")]
    price: u32,
    #[tree_buf(crate = "tree_buf")]
    note: String,
}

#[derive(tree_buf::Encode)]
enum Status {
    #[tree_buf(skip)]
    Open,
    #[tree_buf(serde::rename = "closed", bound = "")]
    Closed,
}

fn main() {}
