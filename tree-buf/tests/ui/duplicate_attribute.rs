// A key given twice, in one attribute or in two.
#[derive(tree_buf::Encode)]
#[tree_buf(bound = "")]
#[tree_buf(bound = "")]
struct Order {
    #[tree_buf(rename = "a", rename = "b")]
    id: u32,
    #[tree_buf(skip)]
    #[tree_buf(skip)]
    cache: u32,
    #[tree_buf(default, default)]
    note: String,
}

#[derive(tree_buf::Encode)]
enum Status {
    #[tree_buf(rename = "open")]
    #[tree_buf(rename = "opened")]
    Open,
}

fn main() {}
