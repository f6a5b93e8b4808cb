#[derive(tree_buf::Encode)]
enum Never {}

fn main() {}
