#[derive(tree_buf::Encode)]
#[allow(non_snake_case)]
struct Order {
    order_id: u32,
    orderId: u32,
}

#[derive(tree_buf::Encode)]
enum Status {
    OpenOrder,
    #[tree_buf(rename = "open_order")]
    Open,
}

fn main() {}
