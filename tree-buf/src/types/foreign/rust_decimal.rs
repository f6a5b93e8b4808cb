//! `rust_decimal::Decimal` as a scaled integer: its mantissa (96 bits and a sign, in an `i128`)
//! and its scale (the power of ten it is divided by), so that a column of prices with two decimals
//! is an integer column of cents beside a constant scale. `1.50` keeps its scale of 2.

use rust_decimal::Decimal;

use crate::types::proxy::{stored_as, EncodeProxy, TryDecodeProxy};

pub struct Scaled;

impl EncodeProxy<Decimal> for Scaled {
    type Stored = (i128, u32);

    #[inline]
    fn to_stored(value: &Decimal) -> (i128, u32) {
        (value.mantissa(), value.scale())
    }
}

impl TryDecodeProxy<Decimal> for Scaled {
    type Stored = (i128, u32);

    fn try_from_stored((mantissa, scale): (i128, u32)) -> Result<Decimal, String> {
        Decimal::try_from_i128_with_scale(mantissa, scale)
            .map_err(|_| format!("{mantissa} with scale {scale} is not a Decimal"))
    }
}

stored_as! {
    [] Decimal => Scaled, TryProxyDecoder;
}
