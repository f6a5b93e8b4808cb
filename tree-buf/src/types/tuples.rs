//! Tuples of up to twelve elements: one child per element.

use super::{collect_values, Decode, Encode, TupleNode, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::DecodeError;
use crate::schema::NodeRef;

macro_rules! tuple {
    ($encoder:ident, $decoder:ident, $len:expr; $($t:ident $i:tt),+) => {
        /// Collects the elements of tuples, each in its own column.
        #[derive(Debug)]
        pub struct $encoder<$($t: Encode),+>($($t::Encoder),+);

        impl<$($t: Encode),+> ValueEncoder<($($t,)+)> for $encoder<$($t),+> {
            fn new(depth: usize) -> Self {
                $encoder($($t::Encoder::new(depth + 1)),+)
            }
            #[inline]
            fn push(&mut self, value: &($($t,)+)) {
                $(self.$i.push(&value.$i);)+
            }
            fn reserve(&mut self, additional: usize) {
                $(self.$i.reserve(additional);)+
            }
            fn bytes(&self) -> usize {
                0 $(+ self.$i.bytes())+
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                out.tuple($len, |out| {
                    $(out.element($i, |out| self.$i.finish(out))?;)+
                    Ok(())
                })
            }
        }

        impl<$($t: Encode),+> Encode for ($($t,)+) {
            type Encoder = $encoder<$($t),+>;
            fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
                std::cmp::Ordering::Equal$(.then_with(|| self.$i.encoded_cmp(&other.$i)))+
            }
        }

        /// Hands back tuples.
        #[derive(Debug)]
        pub struct $decoder<$($t),+>($($t),+);

        // SAFETY: each tuple is built from its elements' decoders' values, which uphold the
        // contract.
        #[allow(unsafe_code)]
        unsafe impl<'de, $($t: Decode<'de>),+> ValueDecoder<'de, ($($t,)+)> for $decoder<$($t::Decoder),+> {
            fn new(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
                let tuple = TupleNode::new(node, count, $len, "a tuple")?;
                Ok($decoder($(tuple.element::<$t, <$t as Decode<'de>>::Decoder>($i, ctx)?),+))
            }
            #[inline]
            fn next(&mut self) -> ($($t,)+) {
                ($(self.$i.next(),)+)
            }
            #[allow(non_snake_case)]
            fn next_vec(&mut self, n: usize) -> Vec<($($t,)+)> {
                // Each element's run is bound to its type's name; each holds exactly the n
                // values that the n tuples take.
                let built = match ($(self.$i.decoded_run(n),)+) {
                    ($(Some(mut $t),)+) => Some(collect_values(n, move || {
                        ($($t.next().unwrap_or_else(|| unreachable!()),)+)
                    })),
                    _ => None,
                };
                match built {
                    Some(values) => {
                        $(self.$i.skip_run(n);)+
                        values
                    }
                    None => collect_values(n, || self.next()),
                }
            }
        }

        impl<'de, $($t: Decode<'de>),+> Decode<'de> for ($($t,)+) {
            type Decoder = $decoder<$($t::Decoder),+>;
        }
    };
}

tuple!(Tuple1Encoder, Tuple1Decoder, 1; A 0);
tuple!(Tuple2Encoder, Tuple2Decoder, 2; A 0, B 1);
tuple!(Tuple3Encoder, Tuple3Decoder, 3; A 0, B 1, C 2);
tuple!(Tuple4Encoder, Tuple4Decoder, 4; A 0, B 1, C 2, D 3);
tuple!(Tuple5Encoder, Tuple5Decoder, 5; A 0, B 1, C 2, D 3, E 4);
tuple!(Tuple6Encoder, Tuple6Decoder, 6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple!(Tuple7Encoder, Tuple7Decoder, 7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple!(Tuple8Encoder, Tuple8Decoder, 8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple!(Tuple9Encoder, Tuple9Decoder, 9; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple!(Tuple10Encoder, Tuple10Decoder, 10; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple!(Tuple11Encoder, Tuple11Decoder, 11; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple!(Tuple12Encoder, Tuple12Decoder, 12; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
