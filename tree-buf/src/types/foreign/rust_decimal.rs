//! `rust_decimal::Decimal` as a scaled integer: its mantissa (96 bits and a sign, in an `i128`)
//! and its scale (the power of ten it is divided by), so that a column of prices with two decimals
//! is an integer column of cents beside a constant scale. `1.50` keeps its scale of 2, and a
//! negative zero its sign, as the top bit of its scale (scales go up to 28).

use rust_decimal::Decimal;

use crate::types::proxy::{stored_as, EncodeProxy, TryDecodeProxy};

pub struct Scaled;

impl EncodeProxy<Decimal> for Scaled {
    type Stored = (i128, u32);

    #[inline]
    fn to_stored(value: &Decimal) -> (i128, u32) {
        let negative_zero = value.is_zero() && value.is_sign_negative();
        (
            value.mantissa(),
            value.scale() | u32::from(negative_zero) << 31,
        )
    }
}

impl TryDecodeProxy<Decimal> for Scaled {
    type Stored = (i128, u32);

    fn try_from_stored((mantissa, stored_scale): (i128, u32)) -> Result<Decimal, String> {
        let (negative_zero, scale) = (stored_scale >> 31 == 1, stored_scale & !(1 << 31));
        let mut decimal = Decimal::try_from_i128_with_scale(mantissa, scale)
            .ok()
            .filter(|_| !negative_zero || mantissa == 0)
            .ok_or_else(|| format!("{mantissa} with scale {stored_scale} is not a Decimal"))?;
        if negative_zero {
            decimal.set_sign_negative(true);
        }
        Ok(decimal)
    }
}

stored_as! {
    [] Decimal => Scaled, TryProxyDecoder;
}
