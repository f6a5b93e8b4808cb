// A type converted one way only would not read what it writes; attributes of the fields of a
// converted type would have no effect.
#[derive(tree_buf::Encode, tree_buf::Decode, Clone)]
#[tree_buf(into = "u32")]
struct WrittenAs {
    a: u32,
}

#[derive(tree_buf::Encode, tree_buf::Decode)]
#[tree_buf(try_from = "u32")]
struct ReadAs {
    a: u32,
}

#[derive(tree_buf::Encode, tree_buf::Decode, Clone)]
#[tree_buf(into = "u8", from = "u8")]
enum Converted {
    #[tree_buf(rename = "first")]
    A {
        #[tree_buf(rename = "x", default)]
        x: u8,
    },
    B(#[tree_buf(with = "module")] u8),
}

impl From<WrittenAs> for u32 {
    fn from(value: WrittenAs) -> u32 {
        value.a
    }
}

impl TryFrom<u32> for ReadAs {
    type Error = String;

    fn try_from(a: u32) -> Result<ReadAs, String> {
        Ok(ReadAs { a })
    }
}

impl From<Converted> for u8 {
    fn from(_: Converted) -> u8 {
        0
    }
}

impl From<u8> for Converted {
    fn from(x: u8) -> Converted {
        Converted::B(x)
    }
}

fn main() {}
