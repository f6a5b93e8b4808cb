//! `uuid::Uuid` as a `u128`: one column of whole identifiers, in which time-ordered (version 7)
//! identifiers delta-encode.

use uuid::Uuid;

use crate::types::proxy::{stored_as, DecodeProxy, EncodeProxy};

pub struct UuidAsU128;

impl EncodeProxy<Uuid> for UuidAsU128 {
    type Stored = u128;

    #[inline]
    fn to_stored(value: &Uuid) -> u128 {
        value.as_u128()
    }
}

impl DecodeProxy<Uuid> for UuidAsU128 {
    type Stored = u128;

    #[inline]
    fn from_stored(stored: u128) -> Uuid {
        Uuid::from_u128(stored)
    }
}

stored_as! {
    [] Uuid => UuidAsU128, ProxyDecoder;
}
