#[derive(tree_buf::Encode)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
