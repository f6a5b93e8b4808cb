//! Types stored as other types: a proxy converts each value to the type that is written (a `Uuid`
//! as a `u128`, a timestamp as seconds and nanoseconds) and back. The derive's
//! `#[tree_buf(with = "module")]`, `into`, `from` and `try_from` attributes and the impls for
//! foreign crates' types all go through these traits, so the file holds exactly what the stored
//! type writes.
//!
//! A conversion back that can fail (`try_from`, a `with` module, a `Decimal` whose scale is out of
//! range) converts a whole column when its decoder is built, so that a value with no counterpart
//! is a [`DecodeError`] rather than a panic; one that cannot fail converts as values are taken.

use std::cmp::Ordering;
use std::fmt::Display;
use std::marker::PhantomData;

use super::{Decode, DecodeOwned, Encode, Missing, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::schema::NodeRef;

/// How values of `T` are written: as the [`Self::Stored`] each converts to.
pub trait EncodeProxy<T: ?Sized> {
    type Stored: Encode;

    fn to_stored(value: &T) -> Self::Stored;

    /// The order of hash map keys of type `T`: that of their stored forms.
    fn encoded_cmp(a: &T, b: &T) -> Ordering {
        Self::Stored::encoded_cmp(&Self::to_stored(a), &Self::to_stored(b))
    }
}

/// How values of `T` are read back from their stored form, by a conversion that cannot fail.
pub trait DecodeProxy<T> {
    type Stored: DecodeOwned;

    fn from_stored(stored: Self::Stored) -> T;
}

/// How values of `T` are read back from their stored form, by a conversion that can fail: its
/// message becomes a [`DecodeErrorKind::SchemaMismatch`] at the value's path.
pub trait TryDecodeProxy<T> {
    type Stored: DecodeOwned;

    fn try_from_stored(stored: Self::Stored) -> Result<T, String>;
}

/// Writes each value of `T` as `P` converts it.
pub struct ProxyEncoder<T: ?Sized, P: EncodeProxy<T>> {
    stored: <P::Stored as Encode>::Encoder,
    _type: PhantomData<fn(&T)>,
}

impl<T: ?Sized, P: EncodeProxy<T>> ValueEncoder<T> for ProxyEncoder<T, P> {
    fn new(depth: usize) -> Self {
        ProxyEncoder {
            stored: <P::Stored as Encode>::Encoder::new(depth),
            _type: PhantomData,
        }
    }

    #[inline]
    fn push(&mut self, value: &T) {
        self.stored.push(&P::to_stored(value));
    }

    fn reserve(&mut self, additional: usize) {
        self.stored.reserve(additional);
    }

    fn bytes(&self) -> usize {
        self.stored.bytes()
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        self.stored.finish(out)
    }
}

/// Reads values of `T` back by converting each stored value as it is taken.
pub struct ProxyDecoder<'de, T, P: DecodeProxy<T>> {
    stored: <P::Stored as Decode<'de>>::Decoder,
    _type: PhantomData<fn() -> T>,
}

impl<'de, T, P: DecodeProxy<T>> ProxyDecoder<'de, T, P> {
    fn over(stored: <P::Stored as Decode<'de>>::Decoder) -> Self {
        ProxyDecoder {
            stored,
            _type: PhantomData,
        }
    }
}

// SAFETY: each value is converted from one stored value by a function of that value alone (no
// `self`), which can share only `'static` state between values.
#[allow(unsafe_code)]
unsafe impl<'de, T, P: DecodeProxy<T>> ValueDecoder<'de, T> for ProxyDecoder<'de, T, P> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        <P::Stored as Decode<'de>>::Decoder::new(node, count, ctx).map(ProxyDecoder::over)
    }

    /// Absent as the stored type is: a type stored as an `Option` reads a missing field as the
    /// conversion of `None`.
    fn absent(
        missing: Missing<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        <P::Stored as Decode<'de>>::Decoder::absent(missing, count, ctx).map(ProxyDecoder::over)
    }

    #[inline]
    fn next(&mut self) -> T {
        P::from_stored(self.stored.next())
    }
}

/// Reads values of `T` back by converting the whole column of stored values when it is built.
///
/// It decodes from bytes of lifetime `'de`, like [`ProxyDecoder`], though it keeps nothing of them.
pub struct TryProxyDecoder<'de, T, P: TryDecodeProxy<T>> {
    values: std::vec::IntoIter<T>,
    _proxy: PhantomData<fn(&'de ()) -> P>,
}

impl<'de, T, P: TryDecodeProxy<T>> TryProxyDecoder<'de, T, P> {
    /// Converts the `count` values `build` reads: their leaves are decoded at once, so that they
    /// can be converted before `new` returns.
    fn convert(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
        build: impl FnOnce(
            &mut DecodeContext<'de>,
        ) -> Result<<P::Stored as Decode<'de>>::Decoder, DecodeError>,
    ) -> Result<Self, DecodeError> {
        let convert = |ctx: &mut DecodeContext<'de>| {
            ctx.charge(node, count, size_of::<T>())?;
            let mut stored = ctx.eagerly(build)?;
            (0..count)
                .map(|_| {
                    P::try_from_stored(stored.next()).map_err(|message| {
                        DecodeError::new(DecodeErrorKind::SchemaMismatch, node.path(), message)
                    })
                })
                .collect::<Result<Vec<T>, DecodeError>>()
        };
        match convert(ctx) {
            Ok(values) => Ok(TryProxyDecoder {
                values: values.into_iter(),
                _proxy: PhantomData,
            }),
            // A leaf registered before this one, which waits, would have failed first.
            Err(error) => Err(ctx.earlier_error(node).unwrap_or(error)),
        }
    }
}

// SAFETY: each value is converted from one stored value by a function of that value alone (no
// `self`), which can share only `'static` state between values.
#[allow(unsafe_code)]
unsafe impl<'de, T, P: TryDecodeProxy<T>> ValueDecoder<'de, T> for TryProxyDecoder<'de, T, P> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        Self::convert(node, count, ctx, |ctx| {
            <P::Stored as Decode<'de>>::Decoder::new(node, count, ctx)
        })
    }

    /// Absent as the stored type is (see [`ProxyDecoder::absent`]).
    fn absent(
        missing: Missing<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        Self::convert(missing.void(), count, ctx, |ctx| {
            <P::Stored as Decode<'de>>::Decoder::absent(missing, count, ctx)
        })
    }

    #[inline]
    fn next(&mut self) -> T {
        // `new` converted exactly the values the caller takes.
        self.values
            .next()
            .expect("a decoder is asked for no more values than it was built for")
    }

    fn next_vec(&mut self, n: usize) -> Vec<T> {
        self.values.by_ref().take(n).collect()
    }
}

/// `#[tree_buf(into = "U")]`: a type written as the `U` a clone of it converts into.
pub struct ViaInto<U>(PhantomData<fn() -> U>);

impl<T: Clone + Into<U>, U: Encode> EncodeProxy<T> for ViaInto<U> {
    type Stored = U;

    #[inline]
    fn to_stored(value: &T) -> U {
        value.clone().into()
    }
}

/// `#[tree_buf(from = "U")]`: a type read as the `U` it converts from.
pub struct ViaFrom<U>(PhantomData<fn() -> U>);

impl<T: From<U>, U: DecodeOwned> DecodeProxy<T> for ViaFrom<U> {
    type Stored = U;

    #[inline]
    fn from_stored(stored: U) -> T {
        T::from(stored)
    }
}

/// `#[tree_buf(try_from = "U")]`: a type read as the `U` it tries to convert from.
pub struct ViaTryFrom<U>(PhantomData<fn() -> U>);

impl<T: TryFrom<U>, U: DecodeOwned> TryDecodeProxy<T> for ViaTryFrom<U>
where
    T::Error: Display,
{
    type Stored = U;

    fn try_from_stored(stored: U) -> Result<T, String> {
        T::try_from(stored).map_err(|error| error.to_string())
    }
}

/// Declares that each listed type is stored through a proxy, as `Type => Proxy, Decoder` (the
/// decoder is [`ProxyDecoder`] or [`TryProxyDecoder`], as the proxy's conversion back can fail).
#[cfg(any(
    feature = "chrono",
    feature = "ordered-float",
    feature = "rust_decimal",
    feature = "time",
    feature = "uuid"
))]
macro_rules! stored_as {
    ($([$($generics:tt)*] $t:ty => $proxy:ty, $decoder:ident;)*) => {$(
        impl<$($generics)*> $crate::Encode for $t {
            type Encoder = $crate::types::proxy::ProxyEncoder<Self, $proxy>;
            fn encoded_cmp(&self, other: &Self) -> ::std::cmp::Ordering {
                <$proxy as $crate::types::proxy::EncodeProxy<Self>>::encoded_cmp(self, other)
            }
        }

        impl<'de, $($generics)*> $crate::Decode<'de> for $t {
            type Decoder = $crate::types::proxy::$decoder<'de, Self, $proxy>;
        }
    )*};
}
#[cfg(any(
    feature = "chrono",
    feature = "ordered-float",
    feature = "rust_decimal",
    feature = "time",
    feature = "uuid"
))]
pub(crate) use stored_as;

/// Stores each listed type through `$proxy`, as `Type as Stored: |value| to_stored,
/// |stored| from_stored` where `from_stored` gives `None` for a stored value with no counterpart
/// (the error then names the value and the type, of crate `$crate_name`).
#[cfg(any(feature = "chrono", feature = "time"))]
macro_rules! checked_conversions {
    ($proxy:ident, $crate_name:literal;
     $($t:ty as $stored:ty: |$value:ident| $to:expr, |$back:pat_param| $from:expr;)*) => {$(
        impl $crate::types::proxy::EncodeProxy<$t> for $proxy {
            type Stored = $stored;
            #[inline]
            fn to_stored($value: &$t) -> $stored {
                $to
            }
        }

        impl $crate::types::proxy::TryDecodeProxy<$t> for $proxy {
            type Stored = $stored;
            fn try_from_stored(stored: $stored) -> Result<$t, String> {
                let $back = stored;
                $from.ok_or_else(|| {
                    format!(
                        "{stored:?} is out of the range of {}'s {}",
                        $crate_name,
                        stringify!($t)
                    )
                })
            }
        }

        $crate::types::proxy::stored_as! {
            [] $t => $proxy, TryProxyDecoder;
        }
    )*};
}
#[cfg(any(feature = "chrono", feature = "time"))]
pub(crate) use checked_conversions;
