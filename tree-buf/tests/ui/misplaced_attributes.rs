#[derive(tree_buf::Decode)]
struct Point(#[tree_buf(default)] u32, #[tree_buf(rename = "y")] u32);

#[derive(tree_buf::Encode)]
struct Meters(#[tree_buf(skip)] f64);

#[derive(tree_buf::Encode)]
struct Named {
    #[tree_buf(rename = "")]
    id: u32,
}

fn main() {}
