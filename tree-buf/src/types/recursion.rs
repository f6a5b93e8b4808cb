//! Recursive types: every depth of a recursive value in one set of branches.
//!
//! A recursive type reaches itself again through an indirection: a pointer (`Box<List>` inside
//! `List`), the items of a sequence (`Vec<Tree>` inside `Tree`) or a map's keys or values. Those
//! places hold a [`Lazy`] child encoder. When the encoders of a type are built, a `Lazy` whose
//! encoder, for the same type of values, is already being built above it becomes a
//! *back-reference* to that ancestor, which
//! becomes an *anchor*: its node in the schema holds the values of every depth, and the
//! back-reference writes a recursion node that refers to it, with the position of each of its
//! values among the anchor's. So the schema is the size of the type, and depth is a property of
//! the data alone.
//!
//! An anchor writes each value after the values it holds (post-order), so that a decoder can
//! build every value from values it has built already, in one pass and without recursion. To
//! learn which values a value holds before writing it, the anchor first pushes it into a second
//! encoder of the same type, the *scout*, whose back-references only report what reaches them.
//! The order is explicit, so neither encoding nor decoding recurses on the data.
//!
//! The decoding side is [`Indirect`]: the decoder of what an indirection holds, which builds an
//! anchor's values into a pool and hands a recursion node's values out of it.

use std::any::TypeId;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use super::{collect_values, is_empty_void, Decode, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::options::MAX_DEPTH;
use crate::schema::{NodeRef, NodeType};

/// Names an anchor to the back-references of its encoder and its scout.
type AnchorId = u64;

/// An encoder being built by [`Lazy::new`], which a `Lazy` below it with the same encoder type
/// refers back to.
struct Building {
    /// The encoder's type and that of the values it takes: one encoder type may take several
    /// (`SeqEncoder<T>` takes `Vec<T>` and `VecDeque<T>`), and only the same pair recurs.
    encoder: (TypeId, TypeId),
    /// Set once some `Lazy` below refers back to it.
    anchor: Option<AnchorId>,
}

/// What an anchor is doing while it pushes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Pushing into its scout: back-references report the values that reach them.
    Scout,
    /// Pushing into its encoder: back-references write the positions of the values that reach
    /// them, placed before.
    Place,
}

/// An anchor in the middle of pushing a value: what its back-references report to.
struct Frame {
    anchor: AnchorId,
    mode: Mode,
    /// The type of the values, which the back-references check before they report.
    values: TypeId,
    /// In [`Mode::Scout`] a `RefCell<Vec<*const T>>` collecting the values that reach the
    /// back-references; in [`Mode::Place`] a `RefCell<Placed<T>>`.
    sink: *const (),
}

thread_local! {
    static BUILDING: RefCell<Vec<Building>> = const { RefCell::new(Vec::new()) };
    static ACTIVE: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
    static NEXT_ANCHOR: Cell<AnchorId> = const { Cell::new(0) };
}

/// Removes the frame it entered when dropped, also when a push panics.
struct Entered;

impl Entered {
    fn frame(frame: Frame) -> Entered {
        ACTIVE.with(|active| active.borrow_mut().push(frame));
        Entered
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        ACTIVE.with(|active| active.borrow_mut().pop());
    }
}

/// The encoder of what an indirection holds: built with its parent, but written only if some
/// value reached it; or a back-reference to an ancestor of the same type.
#[derive(Debug)]
pub struct Lazy<E> {
    role: Role<E>,
    /// Whether a value reached a place nested deeper than [`MAX_DEPTH`].
    too_deep: bool,
}

#[derive(Debug)]
enum Role<E> {
    /// Past the depth limit: any value here is an error.
    TooDeep,
    Plain {
        encoder: Box<E>,
        used: bool,
    },
    Anchor(Box<Anchor<E>>),
    Back(Back),
}

/// The first place of a recursive type on its path.
#[derive(Debug)]
struct Anchor<E> {
    id: AnchorId,
    encoder: Box<E>,
    scout: Box<E>,
    /// How many values were pushed into `encoder`.
    placed: u64,
}

/// A back-reference: a place whose values go to an anchor above it, written as a recursion node
/// with their positions among the anchor's values.
#[derive(Debug)]
pub(crate) struct Back {
    anchor: AnchorId,
    positions: Vec<u64>,
    /// Whether a value reached it that its anchor had not placed (a value whose contents
    /// changed between the scouting and the placing, through interior mutability).
    lost: bool,
}

impl Back {
    /// A back-reference to anchor `anchor`, no value yet.
    pub(crate) fn new(anchor: AnchorId) -> Self {
        Back {
            anchor,
            positions: Vec::new(),
            lost: false,
        }
    }

    /// Takes a value at `position` among the anchor's values; `None` if the anchor did not place
    /// it, which fails [`Self::finish`].
    pub(crate) fn record(&mut self, position: Option<u64>) {
        match position {
            Some(position) => self.positions.push(position),
            None => self.lost = true,
        }
    }

    /// Writes the recursion node, or `Void` when no value reached it.
    pub(crate) fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        if self.lost {
            return Err(EncodeError::new(
                EncodeErrorKind::Custom,
                out.path(),
                "a recursive value changed while it was encoded",
            ));
        }
        match self.positions.is_empty() {
            true => out.void(),
            false => out.recursion(self.anchor, self.positions),
        }
    }
}

/// Where the values an anchor placed went: the positions of each, by address (a value reached
/// twice, through a shared pointer, was placed twice).
#[derive(Debug)]
pub(crate) struct Placed<V: ?Sized>(HashMap<*const V, Vec<u64>>);

impl<V: ?Sized> Placed<V> {
    pub(crate) fn new() -> Self {
        Placed(HashMap::new())
    }

    /// Notes that `value` was placed at `position`.
    pub(crate) fn place(&mut self, value: *const V, position: u64) {
        self.0.entry(value).or_default().push(position);
    }

    /// A position at which `value` was placed and that no back-reference took yet.
    pub(crate) fn take(&mut self, value: *const V) -> Option<u64> {
        self.0.get_mut(&value).and_then(Vec::pop)
    }
}

/// The nodes of the tree below `root`, each after those it holds (post-order), in the order
/// `held` gives each node's: walked with a stack of its own, so that no depth overflows.
pub(crate) fn post_order<N: Copy>(root: N, mut held: impl FnMut(N) -> Vec<N>) -> Vec<N> {
    let mut order = Vec::new();
    let mut stack = vec![(root, held(root), 0)];
    while let Some((node, children, next)) = stack.last_mut() {
        match children.get(*next) {
            Some(&child) => {
                *next += 1;
                let grandchildren = held(child);
                stack.push((child, grandchildren, 0));
            }
            None => {
                order.push(*node);
                stack.pop();
            }
        }
    }
    order
}

impl<E> Lazy<E> {
    /// The encoder of values `T` for a node `depth` levels below the root, or a back-reference
    /// when an encoder of the same type is being built above it.
    pub fn new<T: ?Sized>(depth: usize) -> Self
    where
        E: ValueEncoder<T>,
    {
        let encoder_type = (typeid::of::<E>(), typeid::of::<T>());
        let anchor = BUILDING.with(|building| {
            let mut building = building.borrow_mut();
            let ancestor = building
                .iter_mut()
                .rev()
                .find(|ancestor| ancestor.encoder == encoder_type)?;
            Some(*ancestor.anchor.get_or_insert_with(new_anchor))
        });
        let role = match anchor {
            Some(anchor) => Role::Back(Back::new(anchor)),
            None if depth >= MAX_DEPTH => Role::TooDeep,
            None => {
                let (encoder, anchor) = build::<T, E>(encoder_type, None, depth);
                match anchor {
                    None => Role::Plain {
                        encoder,
                        used: false,
                    },
                    Some(id) => Role::Anchor(Box::new(Anchor {
                        id,
                        encoder,
                        // Built under the same anchor, so that its back-references report here.
                        scout: build::<T, E>(encoder_type, Some(id), depth).0,
                        placed: 0,
                    })),
                }
            }
        };
        Lazy {
            role,
            too_deep: false,
        }
    }

    /// Takes `value` apart into the columns.
    #[inline]
    pub fn push<T: ?Sized>(&mut self, value: &T)
    where
        E: ValueEncoder<T>,
    {
        match &mut self.role {
            Role::Plain { encoder, used } => {
                *used = true;
                encoder.push(value);
            }
            Role::Anchor(anchor) => anchor.push_tree(value),
            Role::Back(back) => back.refer(value),
            Role::TooDeep => self.too_deep = true,
        }
    }

    /// Makes room for `additional` more values in the encoder's columns (a recursive place's
    /// values go to the encoder that holds them, which grows as they come).
    pub fn reserve<T: ?Sized>(&mut self, additional: usize)
    where
        E: ValueEncoder<T>,
    {
        if let Role::Plain { encoder, .. } = &mut self.role {
            encoder.reserve(additional);
        }
    }

    /// Takes several values apart; containers of primitives copy them in bulk.
    #[inline]
    pub fn push_all<T>(&mut self, values: &[T])
    where
        E: ValueEncoder<T>,
    {
        match &mut self.role {
            _ if values.is_empty() => {}
            Role::Plain { encoder, used } => {
                *used = true;
                encoder.push_all(values);
            }
            _ => self.push_each(values),
        }
    }

    /// [`Self::push_all`] of a recursive type's place, one value at a time. Kept out of line,
    /// as [`Anchor::push_tree`] is: inlined, each level of a nested type would hold its own
    /// copy of the levels below, and compiling it would take time exponential in its depth.
    #[cold]
    #[inline(never)]
    fn push_each<T>(&mut self, values: &[T])
    where
        E: ValueEncoder<T>,
    {
        values.iter().for_each(|value| self.push(value));
    }

    /// The bytes of the columns so far.
    pub fn bytes<T: ?Sized>(&self) -> usize
    where
        E: ValueEncoder<T>,
    {
        match &self.role {
            Role::Plain { encoder, .. } => encoder.bytes(),
            Role::Anchor(anchor) => anchor.encoder.bytes(),
            Role::Back(back) => size_of_val(back.positions.as_slice()),
            Role::TooDeep => 0,
        }
    }

    /// Writes the node: the encoder's, a recursion node, or `Void` when no value reached it.
    pub fn finish<T: ?Sized>(self, out: &mut SchemaWriter) -> EncodeResult
    where
        E: ValueEncoder<T>,
    {
        if self.too_deep {
            return Err(out.too_deep());
        }
        match self.role {
            Role::Plain {
                encoder,
                used: true,
            } => crate::stack::deeper_holding::<E, _>(|| encoder.finish(out)),
            Role::Anchor(anchor) if anchor.placed > 0 => {
                let Anchor { id, encoder, .. } = *anchor;
                out.recursion_target(id, |out| {
                    crate::stack::deeper_holding::<E, _>(|| encoder.finish(out))
                })
            }
            Role::Back(back) => back.finish(out),
            _ => out.void(),
        }
    }
}

/// A new anchor's id, for the recursion nodes that refer to it.
pub(crate) fn new_anchor() -> AnchorId {
    NEXT_ANCHOR.with(|next| {
        next.set(next.get() + 1);
        next.get()
    })
}

/// Runs `build`, which builds encoders, and says whether it built an anchor: whether the type it
/// builds for is recursive, and so needs format version 6.
pub(crate) fn builds_recursion<E>(build: impl FnOnce() -> E) -> (E, bool) {
    let before = NEXT_ANCHOR.with(Cell::get);
    let built = build();
    (built, NEXT_ANCHOR.with(Cell::get) != before)
}

/// An encoder of type `E` for `T` at `depth`, in a box, built with its type on the stack of types
/// being built (as `anchor`, if given); and the anchor that a back-reference below made it, if any.
fn build<T: ?Sized, E: ValueEncoder<T>>(
    encoder_type: (TypeId, TypeId),
    anchor: Option<AnchorId>,
    depth: usize,
) -> (Box<E>, Option<AnchorId>) {
    /// Takes the entry off the stack when dropped, also when building panics.
    struct Pushed;
    impl Drop for Pushed {
        fn drop(&mut self) {
            BUILDING.with(|building| building.borrow_mut().pop());
        }
    }
    BUILDING.with(|building| {
        building.borrow_mut().push(Building {
            encoder: encoder_type,
            anchor,
        })
    });
    let pushed = Pushed;
    let encoder = crate::stack::deeper_holding::<E, _>(|| Box::new(E::new(depth)));
    let anchor = BUILDING.with(|building| building.borrow().last().and_then(|built| built.anchor));
    drop(pushed);
    (encoder, anchor)
}

impl<E> Anchor<E> {
    /// Pushes `root` and every value of its type that it holds, each after the values it holds.
    /// Kept out of line, as [`Lazy::push_each`] is: it takes values apart twice (the scout, then
    /// the encoder), and two inlined copies a level would double the code at each level.
    // `unsafe` dereferences the addresses of values held by `root`, which the scout reported.
    #[allow(unsafe_code)]
    #[inline(never)]
    fn push_tree<T: ?Sized>(&mut self, root: &T)
    where
        E: ValueEncoder<T>,
    {
        let values = typeid::of::<T>();
        let order = {
            let found: RefCell<Vec<*const T>> = RefCell::new(Vec::new());
            let _entered = Entered::frame(Frame {
                anchor: self.id,
                mode: Mode::Scout,
                values,
                sink: (&found as *const RefCell<Vec<*const T>>).cast(),
            });
            let scout = &mut self.scout;
            post_order(root as *const T, |value| {
                // SAFETY: `value` is `root` or was reported by a back-reference while the scout
                // took apart a value held by `root`: it is held, through shared references, by
                // `root`, which is borrowed for the whole of this call.
                scout.push(unsafe { &*value });
                std::mem::take(&mut *found.borrow_mut())
            })
        };
        let placed: RefCell<Placed<T>> = RefCell::new(Placed::new());
        let _entered = Entered::frame(Frame {
            anchor: self.id,
            mode: Mode::Place,
            values,
            sink: (&placed as *const RefCell<Placed<T>>).cast(),
        });
        for value in order {
            // SAFETY: as above, every address in `order` is `root`'s or one of a value it holds.
            self.encoder.push(unsafe { &*value });
            placed.borrow_mut().place(value, self.placed);
            self.placed += 1;
        }
    }
}

impl Back {
    /// Reports `value` to the anchor: as a value to place while it scouts, or as the position
    /// it was placed at.
    // `unsafe` reads the anchor's sink, whose type the frame's value type vouches for.
    #[allow(unsafe_code)]
    fn refer<T: ?Sized>(&mut self, value: &T) {
        ACTIVE.with(|active| {
            let active = active.borrow();
            let Some(at) = active.iter().rposition(|frame| frame.anchor == self.anchor) else {
                return self.record(None);
            };
            // A nested anchor scouting: a pass whose columns are thrown away.
            if active[at + 1..]
                .iter()
                .any(|frame| frame.mode == Mode::Scout)
            {
                return;
            }
            let frame = &active[at];
            if frame.values != typeid::of::<T>() {
                return self.record(None);
            }
            match frame.mode {
                Mode::Scout => {
                    // SAFETY: in scout mode the sink is the anchor's `RefCell<Vec<*const T>>`
                    // for this `T` (the type was just checked; raw pointers carry no lifetime),
                    // alive until the frame is left.
                    let found = unsafe { &*frame.sink.cast::<RefCell<Vec<*const T>>>() };
                    found.borrow_mut().push(value);
                }
                Mode::Place => {
                    // SAFETY: in place mode the sink is the anchor's `RefCell<Placed<T>>`, as
                    // above.
                    let placed = unsafe { &*frame.sink.cast::<RefCell<Placed<T>>>() };
                    let position = placed.borrow_mut().take(value);
                    self.record(position);
                }
            }
        });
    }
}

/// The values an anchor builds, by position, until they are handed out.
type Pool<T> = RefCell<Vec<Option<T>>>;

/// The decoder of what an indirection holds (a pointer's target, a sequence's items, a map's keys
/// or values, the root): the type's own decoder; or, where the file's recursive type is anchored,
/// one that builds every depth's values into a pool first; or, at a recursion node, one that
/// takes the values out of its anchor's pool.
pub enum Indirect<'de, T: Decode<'de>> {
    /// No values, and no decoder, which ends the recursion of building the decoders of
    /// recursive types written one depth per schema level (by files before version 6).
    Empty,
    Plain(Box<T::Decoder>),
    Anchor(Box<AnchorDecoder<'de, T>>),
    Claim(Claim<T>),
}

/// The values of a recursive type's target node: built in the order written (each after the
/// values it holds) as far as the next value its parent asks for.
#[derive(Debug)]
pub struct AnchorDecoder<'de, T: Decode<'de>> {
    inner: Box<T::Decoder>,
    pool: Rc<Pool<T>>,
    /// The positions of the values from the parent, in order.
    roots: std::vec::IntoIter<usize>,
    /// How many values are built, from the first.
    built: usize,
}

/// The values of a recursion node, taken out of its anchor's pool.
pub struct Claim<T> {
    pool: Rc<Pool<T>>,
    positions: std::vec::IntoIter<usize>,
}

impl<'de, T: Decode<'de>> std::fmt::Debug for Indirect<'de, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Indirect::Empty => "Indirect::Empty",
            Indirect::Plain(_) => "Indirect::Plain",
            Indirect::Anchor(_) => "Indirect::Anchor",
            Indirect::Claim(_) => "Indirect::Claim",
        })
    }
}

// SAFETY: the values are `T`'s decoder's, handed out directly or through a pool of them.
#[allow(unsafe_code)]
unsafe impl<'de, T: Decode<'de>> ValueDecoder<'de, T> for Indirect<'de, T> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        if count == 0 {
            return Ok(Indirect::Empty);
        }
        // A pointer's decoder reads the same node: the pointed-to type's pools the values.
        if !T::POINTER {
            if node.node_type() == NodeType::Recursion && !is_empty_void(node, count)? {
                return Claim::new(node, count, ctx).map(Indirect::Claim);
            }
            if node.recursions().next().is_some() {
                return AnchorDecoder::new(node, count, ctx)
                    .map(|anchor| Indirect::Anchor(Box::new(anchor)));
            }
        }
        let decoder = crate::stack::boxed(|| T::Decoder::new(node, count, ctx))?;
        Ok(Indirect::Plain(decoder))
    }

    #[inline]
    fn next(&mut self) -> T {
        match self {
            Indirect::Plain(decoder) => decoder.next(),
            Indirect::Anchor(anchor) => anchor.next(),
            Indirect::Claim(claim) => claim.next(),
            Indirect::Empty => {
                unreachable!("a decoder is only asked for as many values as it was built for")
            }
        }
    }

    #[inline]
    fn next_vec(&mut self, n: usize) -> Vec<T> {
        match self {
            Indirect::Plain(decoder) => decoder.next_vec(n),
            _ => collect_values(n, || self.next()),
        }
    }
}

impl<'de, T: Decode<'de>> AnchorDecoder<'de, T> {
    /// Reads the layout of the values of `node` (`count` of them from its parent) and builds
    /// their decoder, lending the pool to the recursion nodes below as an address that they turn
    /// back into an `Rc` after checking the type of its values.
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        let recursion = ctx.recursion(node, count)?;
        ctx.charge(node, recursion.total, size_of::<Option<T>>())?;
        let pool: Rc<Pool<T>> = Rc::new(RefCell::new(
            std::iter::repeat_with(|| None)
                .take(recursion.total)
                .collect(),
        ));
        let address = Rc::as_ptr(&pool) as usize;
        let inner = ctx.lending_pool(node, typeid::of::<T>(), address, |ctx| {
            crate::stack::boxed(|| T::Decoder::new(node, recursion.total, ctx))
        })?;
        Ok(AnchorDecoder {
            inner,
            pool,
            roots: recursion.roots.clone().into_iter(),
            built: 0,
        })
    }

    /// The next value from the parent, built with every value before it that is not built yet
    /// (those it holds among them). Built no further: a target nested in another's values holds
    /// values of the outer one that are built between its own.
    fn next(&mut self) -> T {
        let root = self.roots.next();
        if let Some(root) = root {
            while self.built <= root {
                // The pool is not borrowed while a value is built: the recursion nodes below take
                // the values it holds out of it.
                let value = self.inner.next();
                self.pool.borrow_mut()[self.built] = Some(value);
                self.built += 1;
            }
        }
        root.and_then(|root| self.pool.borrow_mut()[root].take())
            .expect("the layout of a recursion target is checked before its values are built")
    }
}

impl<T> Claim<T> {
    // `unsafe` turns the address of the pool an anchor lends back into the `Rc` it came from.
    #[allow(unsafe_code)]
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'_>,
    ) -> Result<Self, DecodeError> {
        let target = node.recursion_target().unwrap_or_else(|| node.void());
        let address = ctx.lent_pool(node, target, typeid::of::<T>())?;
        // The anchor read the layout before lending its pool.
        let positions = (ctx.known_recursion(target))
            .map(|recursion| recursion.positions_of(node).to_vec())
            .unwrap_or_default();
        if positions.len() != count {
            return Err(DecodeError::new(
                DecodeErrorKind::Corrupt,
                node.path(),
                format!(
                    "a recursion node holds {} values where its parents give {count}",
                    positions.len()
                ),
            ));
        }
        let pool = address as *const Pool<T>;
        // SAFETY: `address` is that of the `Rc<Pool<T>>` which the anchor of `target` lends while
        // it builds the decoders below it, this one among them: the allocation is alive, and it
        // holds values of type `T` (the type ids match). Type ids leave lifetimes aside: the pool
        // may hold `T` with other lifetimes (a `Tree<'a, 'b>` whose children are `Tree<'b, 'a>`).
        // `ValueDecoder` is an `unsafe trait` whose contract makes that sound: every value holds
        // only what is valid for every lifetime that `'de` outlives. Taking a new count keeps the
        // pool alive with this decoder.
        let pool = unsafe {
            Rc::increment_strong_count(pool);
            Rc::from_raw(pool)
        };
        Ok(Claim {
            pool,
            positions: positions.into_iter(),
        })
    }

    fn next(&mut self) -> T {
        let position = self.positions.next();
        position
            .and_then(|position| self.pool.borrow_mut()[position].take())
            .expect("a recursive value is built before the value that holds it")
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use crate::{decode, encode};

    #[derive(crate::Encode, crate::Decode, Debug, PartialEq)]
    #[tree_buf(crate = "crate")]
    struct Node {
        value: u8,
        children: Vec<Rc<Node>>,
    }

    /// The addresses the encoder follows and the pool the decoder lends, on a small value with a
    /// shared part: what Miri checks when the unit tests run under it.
    #[test]
    fn recursive_values_round_trip_through_addresses() {
        let leaf = |value| {
            Rc::new(Node {
                value,
                children: vec![],
            })
        };
        let shared = leaf(3);
        let node = Node {
            value: 1,
            children: vec![
                Rc::clone(&shared),
                Rc::new(Node {
                    value: 2,
                    children: vec![shared, leaf(4)],
                }),
            ],
        };
        let bytes = encode(&node);
        assert_eq!(bytes[4], 6, "a file with recursion nodes");
        assert_eq!(decode::<Node>(&bytes).unwrap(), node);
    }
}
