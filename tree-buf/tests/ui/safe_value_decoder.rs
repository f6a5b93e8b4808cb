// A hand-written column decoder must promise, with `unsafe impl`, that its values share nothing
// typed by a lifetime: the values of recursive types are pooled by type ids, which ignore lifetimes.
use tree_buf::__private::{DecodeContext, DecodeError, NodeRef, ValueDecoder};

struct Constant;

impl<'de> ValueDecoder<'de, u8> for Constant {
    fn new(_: NodeRef<'_>, _: usize, _: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
        Ok(Constant)
    }

    fn next(&mut self) -> u8 {
        7
    }
}

fn main() {}
