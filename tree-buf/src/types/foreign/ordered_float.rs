//! `ordered_float::OrderedFloat` as its float, and `NotNan` as its float, which must not read
//! back as NaN.

use ordered_float::{NotNan, OrderedFloat};

use crate::types::proxy::{stored_as, DecodeProxy, EncodeProxy, TryDecodeProxy};

pub struct AsFloat;

macro_rules! floats {
    ($($f:ty),*) => {$(
        impl EncodeProxy<OrderedFloat<$f>> for AsFloat {
            type Stored = $f;
            #[inline]
            fn to_stored(value: &OrderedFloat<$f>) -> $f {
                value.0
            }
        }

        impl DecodeProxy<OrderedFloat<$f>> for AsFloat {
            type Stored = $f;
            #[inline]
            fn from_stored(stored: $f) -> OrderedFloat<$f> {
                OrderedFloat(stored)
            }
        }

        impl EncodeProxy<NotNan<$f>> for AsFloat {
            type Stored = $f;
            #[inline]
            fn to_stored(value: &NotNan<$f>) -> $f {
                value.into_inner()
            }
        }

        impl TryDecodeProxy<NotNan<$f>> for AsFloat {
            type Stored = $f;
            fn try_from_stored(stored: $f) -> Result<NotNan<$f>, String> {
                NotNan::new(stored).map_err(|_| "NaN where the type holds no NaN".to_owned())
            }
        }

        stored_as! {
            [] OrderedFloat<$f> => AsFloat, ProxyDecoder;
            [] NotNan<$f> => AsFloat, TryProxyDecoder;
        }
    )*};
}

floats!(f32, f64);
