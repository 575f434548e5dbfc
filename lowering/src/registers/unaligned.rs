//! Shared tiles from arrays whose rows are not whole 8-byte chunks (2047
//! columns of f16, say), and from views that pad with other values than
//! zero: the copies `cp.async` cannot make.
//!
//! Each thread takes the tile's 16-byte chunks as the `cp.async` copies do
//! (thread t: chunks t, t + T, ...). A chunk of a row at an address `a`
//! that is only element-aligned lies inside the two aligned 16-byte words
//! from `a & ~15`: the thread loads both as vectors and shifts the chunk
//! out of them (a word select on `(a & 15) / 4`, then a funnel shift by
//! the bytes left, which LLVM makes one `prmt` a word). Every chunk's
//! loads are issued before any shift or store, so the tile's loads are in
//! flight together, not one element's latency after another.
//!
//! Only chunks whose row lies inside the array, that start inside it and
//! whose two words lie inside the array's bytes take that path (a chunk
//! that runs past its row's end then has the columns past it replaced by
//! the view's padding); the others store the view's padding, a select, so
//! that each chunk's code has no branch. Of those, the few whose row lies
//! inside the array but whose words reach outside it (the array's first
//! and last few chunks) are then loaded element by element, over the
//! padding, by one rolled loop over the thread's chunks that a thread
//! enters only when it has such a chunk. So no byte outside the array is
//! read, and the element loads are one loop's code, not a chunk's each
//! (they were most of the general kernel's code and compile time:
//! bench/experiments/compile-time/NOTES.md, section 5). That is the copy
//! of a loop versioned on alignment ([`super::version`]); a copy outside
//! one (`Plan::inline_elements`, such as attention's Q before its
//! loop) keeps each chunk's element path in a branch of its own, where
//! the select and the loop cost a TMA variant registers (spills).
//!
//! ```text
//! %a = tile.load %view[%i, %k] -> tensor<128x64xf16, #tile.shared<...>>   (lda = 2047)
//! // becomes, for each chunk (row r, column c) of this thread:
//! ld.global.v4.u32 lo, [a & ~15]          // a = A + ((i*128 + r) * lda + k*64 + c) * 2
//! ld.global.v4.u32 hi, [(a & ~15) + 16]
//! ... selp by (a & 15) / 4, prmt by a & 3 ...
//! st.shared.v4.b32 [buffer + swizzle(r * 128 + c * 2)], chunk
//! ```
//!
//! Caveats: the loads are synchronous (ordinary `ld.global`), so the
//! tile's latency is exposed once a load, where `cp.async` hides it (in
//! a loop whose block has its multiprocessor to itself, the stores of the
//! tiles ahead wait for the iteration's wgmmas to be issued instead,
//! [`super::version`]: both operands' loads in flight at once, their
//! latency under the tensor cores' work); the
//! second word doubles the bytes the L1 serves (it is mostly the next
//! thread's first word, so the L2 traffic does not double).

use super::global::{Global, Origin};
use super::swizzle::Swizzled;
use crate::{
    build::{At, CmpiPredicate, padding_value},
    rewrite::IrValue,
};
use melior::{
    dialect::{arith, llvm, ods},
    ir::{Type, attribute::IntegerAttribute, r#type::IntegerType},
};

/// Where a tile's chunks go: the buffer (from element `first`), its
/// layout, the view the tile is loaded from.
#[derive(Clone)]
pub(super) struct Target<'c> {
    pub view: super::View<'c>,
    pub buffer: IrValue<'c>,
    pub first: Option<IrValue<'c>>,
    pub swizzled: Swizzled,
}

/// A tile's copy: the places and checks of the chunks of its full rounds,
/// and the last, partial round's first chunk, if any.
pub(super) struct Plan<'c> {
    chunks: Vec<(Place<'c>, Checks<'c>)>,
    partial: Option<IrValue<'c>>,
    /// The first aligned word inside the array, and the last that has
    /// another after it inside the array (0 if none).
    first_word: IrValue<'c>,
    last_pair: IrValue<'c>,
    swizzled: Swizzled,
    per_row: i64,
    per_chunk: i64,
    chunk_count: i64,
    thread: IrValue<'c>,
    threads: i64,
    /// Each chunk's element path in its own branch (the copy's code grows
    /// with it) rather than one rolled loop after the chunks.
    pub inline_elements: bool,
    /// The tile's columns all lie inside the array's rows: the same for
    /// every thread of the block.
    tile_whole: IrValue<'c>,
    /// Every chunk of the tile passes its checks and is whole (its rows and
    /// columns inside the array, its words inside the array's bytes): the
    /// same for every thread of the block.
    interior: IrValue<'c>,
}

/// A chunk's checks: its row lies inside the array; it takes the vector
/// loads, of the aligned words at `low` and `low + 16` (its columns past
/// the row's end, if any, then the padding).
#[derive(Clone, Copy)]
struct Checks<'c> {
    row_inside: IrValue<'c>,
    /// The array's columns.
    columns: IrValue<'c>,
    /// The chunk's first column.
    column: IrValue<'c>,
    fast: IrValue<'c>,
    low: IrValue<'c>,
}

/// A chunk's place: its array index and address, its byte offset in the
/// swizzled buffer.
#[derive(Clone)]
struct Place<'c> {
    index: Vec<IrValue<'c>>,
    address: IrValue<'c>,
    offset: IrValue<'c>,
}

impl<'c> Plan<'c> {
    /// Thread `thread` of `threads` takes chunks `thread`, `thread +
    /// threads`, ... of the tile `shape` (rows x columns, rows of whole
    /// 16-byte chunks) at `origin` of `global`'s array.
    pub fn new(
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        (shape, swizzled): (&[i64], Swizzled),
        (thread, threads): (IrValue<'c>, i64),
    ) -> Option<Self> {
        let per_chunk = 16 / global.bytes;
        let per_row = shape[1] / per_chunk;
        let chunk_count = shape[0] * per_row;
        let full_rounds = chunk_count / threads;
        // A chunk's two words lie inside the array when the first is at
        // least the first aligned word inside it and at most 32 bytes
        // before its end (unsigned compares; no word fits in an array
        // under 32 bytes).
        let (start, end) = (global.start(at)?, global.end(at, &origin.dims)?);
        let first_word = at.andi(at.addi(start, at.index(15)?)?, at.index(!15)?)?;
        let fits = at.cmpi(CmpiPredicate::Uge, at.subi(end, start)?, at.index(32)?)?;
        let last_pair = at.select(fits, at.subi(end, at.index(32)?)?, at.index(0)?)?;
        let rank = origin.first.len();
        let tile_whole =
            at.cmpi(CmpiPredicate::Ule, at.addi(origin.first[rank - 1], at.index(shape[1])?)?, origin.dims[rank - 1])?;
        // The tile's first chunk's words and its last's bound every
        // chunk's (addresses grow along rows and columns); unsigned
        // compares of the first row and column too, so that a tile before
        // the array's start (a coordinate of -1, wrapped) is not taken for
        // one inside it.
        let interior = {
            let mut last = origin.first.clone();
            last[rank - 2] = at.addi(origin.first[rank - 2], at.index(shape[0] - 1)?)?;
            last[rank - 1] = at.addi(origin.first[rank - 1], at.index(shape[1] - per_chunk)?)?;
            let low = |index: &[IrValue<'c>]| at.andi(global.address(at, index)?, at.index(!15)?);
            let mut inside = vec![
                tile_whole,
                at.cmpi(CmpiPredicate::Ult, origin.first[rank - 1], origin.dims[rank - 1])?,
                at.cmpi(CmpiPredicate::Ult, origin.first[rank - 2], origin.dims[rank - 2])?,
                at.cmpi(CmpiPredicate::Ult, last[rank - 2], origin.dims[rank - 2])?,
                at.cmpi(CmpiPredicate::Uge, low(&origin.first)?, first_word)?,
                at.cmpi(CmpiPredicate::Ule, low(&last)?, last_pair)?,
            ];
            for d in 0..rank - 2 {
                inside.push(at.cmpi(CmpiPredicate::Ult, origin.first[d], origin.dims[d])?);
            }
            super::all(at, &inside)?
        };
        let mut plan = Self {
            chunks: Vec::new(),
            partial: None,
            first_word,
            last_pair,
            swizzled,
            per_row,
            per_chunk,
            chunk_count,
            thread,
            threads,
            inline_elements: false,
            tile_whole,
            interior,
        };
        // Thread t's chunk of round r is `rows` rows further than round
        // 0's when the rows of a round are whole: its address only adds a
        // step, and so does its offset in the buffer when `rows` is a
        // multiple of 8 (the swizzle repeats every 8 rows).
        let first_place = plan.place(at, (global, origin), thread)?;
        let step = (threads % per_row == 0).then_some(threads / per_row);
        let step_bytes = match step {
            Some(rows) => Some(at.muli(global.row_stride_bytes(at)?, at.index(rows)?)?),
            None => None,
        };
        for round in 0..full_rounds {
            let place = match (step, step_bytes) {
                (Some(rows), Some(bytes)) if round > 0 => {
                    let (row_step, round_index) = (at.index(round * rows)?, at.index(round)?);
                    let mut index = first_place.index.clone();
                    index[rank - 2] = at.addi(index[rank - 2], row_step)?;
                    let address = at.addi(first_place.address, at.muli(bytes, round_index)?)?;
                    let offset = if rows % 8 == 0 {
                        at.addi(first_place.offset, at.index(round * rows * swizzled.row)?)?
                    } else {
                        let q = at.addi(thread, at.index(round * threads)?)?;
                        plan.offset(at, q)?
                    };
                    Place { index, address, offset }
                }
                (Some(_), Some(_)) => first_place.clone(),
                _ => plan.place(at, (global, origin), at.addi(thread, at.index(round * threads)?)?)?,
            };
            let checks = plan.checks(at, origin, &place)?;
            plan.chunks.push((place, checks));
        }
        if chunk_count % threads != 0 {
            plan.partial = Some(at.addi(thread, at.index(full_rounds * threads)?)?);
        }
        Some(plan)
    }

    /// Chunk `q`'s row and column in the tile.
    fn row_column(&self, at: &At<'c, 'c>, q: IrValue<'c>) -> Option<(IrValue<'c>, IrValue<'c>)> {
        let row = at.divui(q, at.index(self.per_row)?)?;
        Some((row, at.muli(at.remui(q, at.index(self.per_row)?)?, at.index(self.per_chunk)?)?))
    }

    /// Chunk `q`'s byte offset in the swizzled buffer.
    fn offset(&self, at: &At<'c, 'c>, q: IrValue<'c>) -> Option<IrValue<'c>> {
        let (row, column) = self.row_column(at, q)?;
        self.swizzled.offset(at, row, column)
    }

    /// Chunk `q`'s place.
    fn place(
        &self,
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        q: IrValue<'c>,
    ) -> Option<Place<'c>> {
        let rank = origin.first.len();
        let (row, column) = self.row_column(at, q)?;
        let mut index: Vec<IrValue> = origin.first[..rank - 2].to_vec();
        index.push(at.addi(origin.first[rank - 2], row)?);
        index.push(at.addi(origin.first[rank - 1], column)?);
        let offset = self.swizzled.offset(at, row, column)?;
        Some(Place { address: global.address(at, &index)?, index, offset })
    }

    /// A chunk's checks.
    fn checks(&self, at: &At<'c, 'c>, origin: &Origin<'c>, place: &Place<'c>) -> Option<Checks<'c>> {
        let rank = origin.first.len();
        let (i, j) = (place.index[rank - 2], place.index[rank - 1]);
        // Unsigned compares: a tile before the array's start (a coordinate
        // of -1) wraps to a huge index and fails them.
        let mut inside = vec![at.cmpi(CmpiPredicate::Ult, i, origin.dims[rank - 2])?];
        for d in 0..rank - 2 {
            inside.push(at.cmpi(CmpiPredicate::Ult, origin.first[d], origin.dims[d])?);
        }
        let row_inside = super::all(at, &inside)?;
        let columns = origin.dims[rank - 1];
        let low = at.andi(place.address, at.index(!15)?)?;
        // A chunk that starts inside its row but runs past the row's end
        // (the tile's last chunk of a row at the array's right edge, every
        // K step of an operand whose contiguous dim is M or N) takes the
        // vector loads too: its words lie inside the array's bytes (the
        // next row's first elements), and the columns past the row's end
        // become the padding after the shift. Element by element, it held
        // up the blocks of that edge, the last to finish at 2047^3
        // (BENCHMARKS.md, session 30).
        let fast = super::all(
            at,
            &[
                row_inside,
                at.cmpi(CmpiPredicate::Ult, j, columns)?,
                at.cmpi(CmpiPredicate::Uge, low, self.first_word)?,
                at.cmpi(CmpiPredicate::Ule, low, self.last_pair)?,
            ],
        )?;
        Some(Checks { row_inside, columns, column: j, fast, low })
    }

    /// The copy: every chunk's words where its checks pass, then each
    /// chunk shifted out of them (else the padding) and stored; the
    /// partial round, if any, under its own check; then the element path's
    /// few chunks ([`Self::elements`]).
    pub fn copy(
        &self,
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        target: &Target<'c>,
    ) -> Option<()> {
        let words = self.load(at)?;
        self.store_any(at, (global, origin), target, words)
    }

    /// The full rounds (chunks a thread), whose words [`Self::load`] gives.
    pub fn rounds(&self) -> usize {
        self.chunks.len()
    }

    /// The first half of [`Self::copy`]: the full rounds' words.
    pub fn load(&self, at: &At<'c, 'c>) -> Option<Vec<Vec<IrValue<'c>>>> {
        self.chunks.iter().map(|(_, checks)| load_words(at, checks)).collect()
    }

    /// The second half of a copy whose stores wait for the iteration's
    /// wgmmas ([`super::shared::finish_copies`]), given [`Self::load`]'s
    /// words. With `branch`, a tile every chunk of which passes its checks
    /// (the whole block alike: every tile but those at the array's edges)
    /// shifts and stores its chunks with nothing else
    /// ([`Self::store_interior`]); the others take [`Self::store_any`], as
    /// [`Self::copy`] does. The branch also keeps ptxas from moving the
    /// shifts, which wait for the words, above the wgmmas and the other
    /// operand's loads before them, where the warp would wait for this
    /// tile's words before the next tile's are asked for (session 32,
    /// bench/experiments/atb-2047-s32/NOTES.md).
    pub fn store(
        &self,
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        target: &Target<'c>,
        words: Vec<Vec<IrValue<'c>>>,
        branch: bool,
    ) -> Option<()> {
        // 4-byte elements (tf32) keep the branch-free chunks: holding both
        // tiles' words across the wgmmas spills there (108 bytes, ptxas
        // 12.9, bench/gemm/tf32.mlir's general kernel).
        if !branch || self.inline_elements || self.per_chunk <= 4 {
            return self.store_any(at, (global, origin), target, words);
        }
        super::if_else(
            at,
            self.interior,
            &[],
            |then| {
                self.store_interior(then, (global, origin), target, words.clone())?;
                Some(vec![])
            },
            |otherwise| {
                self.store_any(otherwise, (global, origin), target, words.clone())?;
                Some(vec![])
            },
        )?;
        Some(())
    }

    /// [`Self::store`] of an interior tile: each chunk shifted out of its
    /// words and stored, no check, no padding; then the partial round.
    fn store_interior(
        &self,
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        target: &Target<'c>,
        words: Vec<Vec<IrValue<'c>>>,
    ) -> Option<()> {
        for ((place, _), words) in self.chunks.iter().zip(words) {
            self.store_shifted(at, target, place, &words)?;
        }
        if let Some(q) = self.partial {
            let this = at.cmpi(CmpiPredicate::Ult, q, at.index(self.chunk_count)?)?;
            super::when(at, this, |inner| {
                let place = self.place(inner, (global, origin), q)?;
                let checks = self.checks(inner, origin, &place)?;
                self.store_shifted(inner, target, &place, &load_words(inner, &checks)?)
            })?;
        }
        Some(())
    }

    /// A chunk shifted out of its two `words` and stored, unchecked.
    fn store_shifted(
        &self,
        at: &At<'c, 'c>,
        target: &Target<'c>,
        place: &Place<'c>,
        words: &[IrValue<'c>],
    ) -> Option<()> {
        let vector = super::vector_type(self.per_chunk as usize, target.view.element);
        let shifted = funnel(at, [words[0], words[1]], place.address, target.swizzled.bytes)?;
        let value = at.add(ods::vector::bitcast(at.context, vector, shifted, at.location))?;
        store_chunk(at, target, place, value)
    }

    /// [`Self::store`] of any tile: the full rounds' chunks shifted and
    /// stored (else the padding), then the partial round, then the element
    /// path's few chunks.
    fn store_any(
        &self,
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        target: &Target<'c>,
        words: Vec<Vec<IrValue<'c>>>,
    ) -> Option<()> {
        let mut slow = Vec::new();
        for ((place, checks), words) in self.chunks.iter().zip(words) {
            store(
                at,
                target,
                (place, checks),
                [words[0], words[1]],
                (self.per_chunk, self.tile_whole),
                self.inline_elements,
            )?;
            slow.push(element_path(at, checks)?);
        }
        if let Some(q) = self.partial {
            let this = at.cmpi(CmpiPredicate::Ult, q, at.index(self.chunk_count)?)?;
            let i1: Type = IntegerType::new(at.context, 1).into();
            let partial_slow = super::if_else(
                at,
                this,
                &[i1],
                |inner| {
                    let place = self.place(inner, (global, origin), q)?;
                    let checks = self.checks(inner, origin, &place)?;
                    let words = load_words(inner, &checks)?;
                    store(
                        inner,
                        target,
                        (&place, &checks),
                        [words[0], words[1]],
                        (self.per_chunk, self.tile_whole),
                        self.inline_elements,
                    )?;
                    Some(vec![element_path(inner, &checks)?])
                },
                |otherwise| Some(vec![otherwise.int(i1, 0)?]),
            )?;
            slow.push(*partial_slow.first()?);
        }
        if self.inline_elements {
            return Some(());
        }
        // Almost never taken: a thread's chunk among the array's first or
        // last few bytes.
        let (first, rest) = slow.split_first()?;
        let any = rest.iter().try_fold(*first, |a, &b| at.ori(a, b))?;
        super::when(at, any, |rare| self.elements(rare, (global, origin), target))
    }

    /// The chunks of a row inside the array that start inside it but
    /// whose words reach outside the array (its first and last few
    /// bytes), element by element, over the padding [`store`] left there:
    /// one rolled loop over this thread's chunks, which only those few
    /// take past the checks.
    fn elements(
        &self,
        at: &At<'c, 'c>,
        (global, origin): (&Global<'c>, &Origin<'c>),
        target: &Target<'c>,
    ) -> Option<()> {
        let threads = self.threads;
        let rounds = (self.chunk_count + threads - 1) / threads;
        let (r#loop, round) = at.scf_for_rolled(at.index(0)?, at.index(rounds)?, at.index(1)?)?;
        let q = r#loop.addi(self.thread, r#loop.muli(round, r#loop.index(threads)?)?)?;
        let this = r#loop.cmpi(CmpiPredicate::Ult, q, r#loop.index(self.chunk_count)?)?;
        super::when(&r#loop, this, |inner| {
            let place = self.place(inner, (global, origin), q)?;
            let checks = self.checks(inner, origin, &place)?;
            let needed = element_path(inner, &checks)?;
            super::when(inner, needed, |chunk| {
                let value = elements(chunk, &target.view, (&place, &checks), self.per_chunk)?;
                store_chunk(chunk, target, &place, value)
            })
        })
    }
}

/// Whether a chunk takes the element path ([`Plan::elements`]): its row
/// lies inside the array and it starts inside the row, but its words
/// reach outside the array.
fn element_path<'c>(at: &At<'c, 'c>, checks: &Checks<'c>) -> Option<IrValue<'c>> {
    let starts_inside = at.cmpi(CmpiPredicate::Ult, checks.column, checks.columns)?;
    let slow = at.xori(checks.fast, at.int(IntegerType::new(at.context, 1).into(), 1)?)?;
    super::all(at, &[checks.row_inside, starts_inside, slow])
}

/// A chunk's two aligned words where its checks pass, else zeros.
fn load_words<'c>(at: &At<'c, 'c>, checks: &Checks<'c>) -> Option<Vec<IrValue<'c>>> {
    let i32_type: Type = IntegerType::new(at.context, 32).into();
    let words_type = super::vector_type(4, i32_type);
    super::if_else(
        at,
        checks.fast,
        &[words_type, words_type],
        |then| {
            // The second word by a constant offset from the first's
            // pointer (an immediate in the load).
            let pointer = Global::pointer_at(then, checks.low)?;
            let next = then.add(llvm::get_element_ptr(
                then.context,
                pointer,
                melior::ir::attribute::DenseI32ArrayAttribute::new(then.context, &[1]),
                words_type,
                melior::ir::ValueLike::r#type(&pointer),
                then.location,
            ))?;
            Some(vec![load_word(then, pointer)?, load_word(then, next)?])
        },
        |otherwise| {
            let zero = otherwise.int(i32_type, 0)?;
            let zeros =
                otherwise.add(ods::vector::broadcast(otherwise.context, words_type, zero, otherwise.location))?;
            Some(vec![zeros, zeros])
        },
    )
}

/// The 16-byte word at a global `pointer` (aligned), as four `i32`s.
fn load_word<'c>(at: &At<'c, 'c>, pointer: IrValue<'c>) -> Option<IrValue<'c>> {
    let context = at.context;
    let i32_type: Type = IntegerType::new(context, 32).into();
    let alignment = IntegerAttribute::new(IntegerType::new(context, 64).into(), 16);
    at.add(llvm::load(
        context,
        pointer,
        super::vector_type(4, i32_type),
        at.location,
        llvm::LoadStoreOptions::new().align(Some(alignment)),
    ))
}

/// Shifts a chunk out of its words and stores it swizzled: a chunk whose
/// checks fail stores the view's padding, which [`Plan::elements`]
/// overwrites afterwards where the chunk has elements inside the array.
/// Branch-free a chunk (but the block-uniform edge test): an arm of
/// element loads a chunk made most of the general kernel's code and
/// compile time (bench/experiments/compile-time/NOTES.md, section 5).
/// With `inline_elements`, such a chunk's elements are loaded in a branch
/// of its own instead.
fn store<'c>(
    at: &At<'c, 'c>,
    target: &Target<'c>,
    (place, checks): (&Place<'c>, &Checks<'c>),
    words: [IrValue<'c>; 2],
    (per_chunk, tile_whole): (i64, IrValue<'c>),
    inline_elements: bool,
) -> Option<()> {
    let context = at.context;
    let vector = super::vector_type(per_chunk as usize, target.view.element);
    if inline_elements {
        let value = super::if_else(
            at,
            checks.fast,
            &[vector],
            |then| Some(vec![shift(then, target, (place, checks), words, (per_chunk, tile_whole))?]),
            |otherwise| Some(vec![elements(otherwise, &target.view, (place, checks), per_chunk)?]),
        )?;
        return store_chunk(at, target, place, *value.first()?);
    }
    let shifted = shift(at, target, (place, checks), words, (per_chunk, tile_whole))?;
    let padding = padding_value(context, target.view.padding, target.view.element)?;
    let padding = at.add(arith::constant(context, padding, at.location))?;
    let padding = at.add(ods::vector::broadcast(context, vector, padding, at.location))?;
    let value = at.select(checks.fast, shifted, padding)?;
    store_chunk(at, target, place, value)
}

/// A chunk shifted out of its words, its columns past the row's end (where
/// the tile reaches past them) the padding.
fn shift<'c>(
    at: &At<'c, 'c>,
    target: &Target<'c>,
    (place, checks): (&Place<'c>, &Checks<'c>),
    words: [IrValue<'c>; 2],
    (per_chunk, tile_whole): (i64, IrValue<'c>),
) -> Option<IrValue<'c>> {
    let context = at.context;
    let swizzled = target.swizzled;
    let vector = super::vector_type(per_chunk as usize, target.view.element);
    let words_type = super::vector_type(4, IntegerType::new(context, 32).into());
    let shifted = funnel(at, words, place.address, swizzled.bytes)?;
    // Where the tile reaches past the rows' end (a branch the whole block
    // takes alike), each word keeps its bytes inside the row: four masks,
    // the same every K step for an operand whose rows run along M or N.
    let shifted = super::if_else(
        at,
        tile_whole,
        &[words_type],
        |_| Some(vec![shifted]),
        |cut| Some(vec![cut_words(cut, &target.view, checks, shifted, (per_chunk, swizzled.bytes))?]),
    )?;
    at.add(ods::vector::bitcast(context, vector, *shifted.first()?, at.location))
}

/// A chunk's 16 bytes into its place in the swizzled buffer.
fn store_chunk<'c>(at: &At<'c, 'c>, target: &Target<'c>, place: &Place<'c>, value: IrValue<'c>) -> Option<()> {
    let index = at.divui(place.offset, at.index(target.swizzled.bytes)?)?;
    let index = match target.first {
        Some(first) => at.addi(first, index)?,
        None => index,
    };
    at.insert(super::convert::aligned_store_at(at, value, target.buffer, &[index], 16)?);
    Some(())
}

/// The 16 bytes from `address & 15` of the 32 in `words` (`vector<4xi32>`
/// each).
fn funnel<'c>(
    at: &At<'c, 'c>,
    words: [IrValue<'c>; 2],
    address: IrValue<'c>,
    element_bytes: i64,
) -> Option<IrValue<'c>> {
    let context = at.context;
    let i32_type: Type = IntegerType::new(context, 32).into();
    let mut w = Vec::new();
    for word in words {
        for k in 0..4 {
            w.push(super::extract(at, word, k)?);
        }
    }
    let misalignment = at.add(arith::index_cast(at.andi(address, at.index(15)?)?, i32_type, at.location))?;
    let bit = |mask: i64| -> Option<IrValue<'c>> {
        let zero = at.int(i32_type, 0)?;
        at.cmpi(CmpiPredicate::Ne, at.andi(misalignment, at.int(i32_type, mask)?)?, zero)
    };
    // Words, by the misalignment's bits 2 and 3: w[j + (m >> 2)].
    let (four, eight) = (bit(4)?, bit(8)?);
    let by_one: Vec<IrValue> = (0..7).map(|j| at.select(four, w[j + 1], w[j])).collect::<Option<_>>()?;
    let by_two: Vec<IrValue> = (0..5).map(|j| at.select(eight, by_one[j + 2], by_one[j])).collect::<Option<_>>()?;
    let out: Vec<IrValue> = if element_bytes >= 4 {
        by_two[..4].to_vec()
    } else {
        // The bytes left, `m & 3`, come from each word and the next: a
        // funnel shift of the pair (`shf.r`).
        let shift =
            at.add(arith::shli(at.andi(misalignment, at.int(i32_type, 3)?)?, at.int(i32_type, 3)?, at.location))?;
        (0..4)
            .map(|i| at.add(ods::llvm::intr_fshr(context, by_two[i + 1], by_two[i], shift, at.location)))
            .collect::<Option<_>>()?
    };
    super::from_elements(at, &out)
}

/// A chunk's four words (`vector<4xi32>`) with its bytes past the row's
/// end (from column `checks.columns`) the view's padding: word `k` keeps
/// `clamp(kept - 4k, 0, 4)` bytes, `kept` the chunk's bytes inside the
/// row (the chunk starts inside it: `fast`).
fn cut_words<'c>(
    at: &At<'c, 'c>,
    view: &super::View<'c>,
    checks: &Checks<'c>,
    words: IrValue<'c>,
    (per_chunk, element_bytes): (i64, i64),
) -> Option<IrValue<'c>> {
    let context = at.context;
    let i32_type: Type = IntegerType::new(context, 32).into();
    let words_type = super::vector_type(4, i32_type);
    let inside = at.minui(at.subi(checks.columns, checks.column)?, at.index(per_chunk)?)?;
    let kept = at.add(arith::index_cast(at.muli(inside, at.index(element_bytes)?)?, i32_type, at.location))?;
    // The padding, as the same four words.
    let padding = padding_value(context, view.padding, view.element)?;
    let padding = at.add(arith::constant(context, padding, at.location))?;
    let element_vector = super::vector_type(per_chunk as usize, view.element);
    let padding = at.add(ods::vector::broadcast(context, element_vector, padding, at.location))?;
    let padding = at.add(ods::vector::bitcast(context, words_type, padding, at.location))?;
    let (zero, four, ones) = (at.int(i32_type, 0)?, at.int(i32_type, 4)?, at.int(i32_type, -1)?);
    let mut out = Vec::new();
    for k in 0..4usize {
        // Bytes of word k inside the row, 0 to 4; its mask, all ones
        // shifted right by the bytes outside (by 0 to 24 bits), or none.
        let bytes = at.add(arith::subi(kept, at.int(i32_type, 4 * k as i64)?, at.location))?;
        let bytes = at.maxsi(at.minsi(bytes, four)?, zero)?;
        let outside_bits =
            at.add(arith::muli(at.add(arith::subi(four, bytes, at.location))?, at.int(i32_type, 8)?, at.location))?;
        let none = at.cmpi(CmpiPredicate::Eq, bytes, zero)?;
        let mask = at.select(none, zero, at.add(arith::shrui(ones, outside_bits, at.location))?)?;
        let word = super::extract(at, words, k)?;
        let pad = super::extract(at, padding, k)?;
        let kept_part = at.andi(word, mask)?;
        let padded = at.andi(pad, at.add(arith::xori(mask, ones, at.location))?)?;
        out.push(at.add(arith::ori(kept_part, padded, at.location))?);
    }
    super::from_elements(at, &out)
}

/// A chunk element by element: each element inside the array loaded, each
/// outside it the view's padding.
fn elements<'c>(
    at: &At<'c, 'c>,
    view: &super::View<'c>,
    (place, checks): (&Place<'c>, &Checks<'c>),
    per_chunk: i64,
) -> Option<IrValue<'c>> {
    let context = at.context;
    let padding = padding_value(context, view.padding, view.element)?;
    let padding = at.add(arith::constant(context, padding, at.location))?;
    let (rank, columns) = (place.index.len(), checks.columns);
    let mut values = Vec::new();
    for e in 0..per_chunk {
        let mut index = place.index.clone();
        index[rank - 1] = at.addi(index[rank - 1], at.index(e)?)?;
        let inside = at.andi(checks.row_inside, at.cmpi(CmpiPredicate::Ult, index[rank - 1], columns)?)?;
        let value = super::if_else(
            at,
            inside,
            &[view.element],
            |then| Some(vec![then.add(melior::dialect::memref::load(view.memref, &index, then.location))?]),
            |_| Some(vec![padding]),
        )?;
        values.push(*value.first()?);
    }
    super::from_elements(at, &values)
}
