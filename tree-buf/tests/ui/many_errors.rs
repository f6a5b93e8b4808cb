// Problems of every kind in one type: attributes, their combinations and the names they give.
// All of them are reported at once.
#[derive(tree_buf::Decode)]
#[tree_buf(crate = "tree_buf", crate = "tree_buf", tag = "kind")]
enum Shape {
    #[tree_buf(rename = "")]
    Circle(#[tree_buf(skip)] f64),
    Rect {
        width: f64,
        #[tree_buf(rename = "Width")]
        w: f64,
        #[tree_buf(skip, rename = "h")]
        h: f64,
    },
    #[tree_buf(rename = "circle")]
    Round(f64),
}

fn main() {}
