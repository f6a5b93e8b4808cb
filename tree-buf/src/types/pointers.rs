//! Transparent wrappers: `Box`, `Rc`, `Arc`, references and `Cow` store exactly what they point
//! to. `Box`, `Rc`, `Arc` and references hold their inner encoder through a [`Lazy`], where
//! recursive types such as `struct List { next: Option<Box<List>> }` refer back to themselves.

use std::borrow::{Borrow, Cow};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use super::{Decode, Encode, Indirect, Lazy, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::DecodeError;
use crate::schema::NodeRef;

/// Encodes what a smart pointer points to, creating the encoder on first use.
#[derive(Debug)]
pub struct PointerEncoder<T: Encode + ?Sized>(Lazy<T::Encoder>);

macro_rules! pointer {
    ($($p:ident),*) => {$(
        impl<T: Encode + ?Sized> ValueEncoder<$p<T>> for PointerEncoder<T> {
            fn new(depth: usize) -> Self {
                PointerEncoder(Lazy::new::<T>(depth))
            }
            #[inline]
            fn push(&mut self, value: &$p<T>) {
                self.0.push::<T>(value);
            }
            fn reserve(&mut self, additional: usize) {
                self.0.reserve::<T>(additional);
            }
            fn bytes(&self) -> usize {
                self.0.bytes::<T>()
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                self.0.finish::<T>(out)
            }
        }

        impl<T: Encode + ?Sized> Encode for $p<T> {
            type Encoder = PointerEncoder<T>;
            fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
                (**self).encoded_cmp(&**other)
            }
        }

        // SAFETY: each pointer is a new allocation of one value of `T`'s decoder, which upholds the
        // contract.
        #[allow(unsafe_code)]
        unsafe impl<'de, T: Decode<'de>> ValueDecoder<'de, $p<T>> for PointerDecoder<'de, T> {
            fn new(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
                PointerDecoder::build(node, count, ctx)
            }
            #[inline]
            fn next(&mut self) -> $p<T> {
                $p::new(self.next_inner())
            }
        }

        impl<'de, T: Decode<'de>> Decode<'de> for $p<T> {
            type Decoder = PointerDecoder<'de, T>;
            const POINTER: bool = true;
        }
    )*};
}
pointer!(Box, Rc, Arc);

/// Decodes what a smart pointer points to.
#[derive(Debug)]
pub struct PointerDecoder<'de, T: Decode<'de>>(Indirect<'de, T>);

impl<'de, T: Decode<'de>> PointerDecoder<'de, T> {
    fn build(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        ctx.charge(node, count, size_of::<T>())?;
        Ok(PointerDecoder(Indirect::new(node, count, ctx)?))
    }

    #[inline]
    fn next_inner(&mut self) -> T {
        self.0.next()
    }
}

/// Encodes what a reference points to, creating the encoder on first use since references can
/// be recursive too (`Option<&'a Node<'a>>`).
#[derive(Debug)]
pub struct RefEncoder<T: Encode + ?Sized>(Lazy<T::Encoder>);

macro_rules! reference {
    ($($r:ty),*) => {$(
        impl<'a, T: Encode + ?Sized> ValueEncoder<$r> for RefEncoder<T> {
            fn new(depth: usize) -> Self {
                RefEncoder(Lazy::new::<T>(depth))
            }
            #[inline]
            fn push(&mut self, value: &$r) {
                self.0.push::<T>(&**value);
            }
            fn reserve(&mut self, additional: usize) {
                self.0.reserve::<T>(additional);
            }
            fn bytes(&self) -> usize {
                self.0.bytes::<T>()
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                self.0.finish::<T>(out)
            }
        }

        impl<'a, T: Encode + ?Sized> Encode for $r {
            type Encoder = RefEncoder<T>;
            fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
                (**self).encoded_cmp(&**other)
            }
        }
    )*};
}
reference!(&'a T, &'a mut T);

/// Encodes the borrowed or owned value of a `Cow` alike.
#[derive(Debug)]
pub struct CowEncoder<E>(E);

impl<'a, B: Encode + ToOwned + ?Sized> ValueEncoder<Cow<'a, B>> for CowEncoder<B::Encoder> {
    fn new(depth: usize) -> Self {
        CowEncoder(B::Encoder::new(depth))
    }
    #[inline]
    fn push(&mut self, value: &Cow<'a, B>) {
        self.0.push(value.as_ref());
    }
    fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
    }
    fn bytes(&self) -> usize {
        self.0.bytes()
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        self.0.finish(out)
    }
}

impl<B: Encode + ToOwned + ?Sized> Encode for Cow<'_, B> {
    type Encoder = CowEncoder<B::Encoder>;
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        (**self).encoded_cmp(&**other)
    }
}

/// Decodes into `Cow::Owned`: the decoding of every `Cow` but `Cow<str>`, which borrows.
#[derive(Debug)]
pub struct CowDecoder<D, B: ?Sized>(D, PhantomData<fn() -> PhantomData<B>>);

// SAFETY: each `Cow` owns a value of the owned type's decoder, which upholds the contract.
#[allow(unsafe_code)]
unsafe impl<'de, 'a, B> ValueDecoder<'de, Cow<'a, B>>
    for CowDecoder<<B::Owned as Decode<'de>>::Decoder, B>
where
    B: ToOwned + ?Sized,
    B::Owned: Decode<'de> + Borrow<B>,
{
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        Ok(CowDecoder(
            <B::Owned as Decode<'de>>::Decoder::new(node, count, ctx)?,
            PhantomData,
        ))
    }
    #[inline]
    fn next(&mut self) -> Cow<'a, B> {
        Cow::Owned(self.0.next())
    }
}

impl<'de, T: Clone + Decode<'de>> Decode<'de> for Cow<'_, T> {
    type Decoder = CowDecoder<T::Decoder, T>;
}

impl<'de, T: Clone> Decode<'de> for Cow<'_, [T]>
where
    Vec<T>: Decode<'de>,
{
    type Decoder = CowDecoder<<Vec<T> as Decode<'de>>::Decoder, [T]>;
}
