//! Tiles in shared memory (`#tile.shared`): the mma operands that
//! `tile-assign-layouts` keeps out of registers.
//!
//! A `tile.load` of such a tile copies it from global memory straight into
//! a swizzled buffer, 16 bytes a `cp.async` (`cp.async.cg`: the copy skips
//! L1 and the registers), one commit group per load; the tile value is
//! then the buffer's shared-memory address (an `index`), which loops carry
//! and `tile.permute` keeps (a permuted tile is the same bytes, read the
//! other way round). A load that `tile-prefetch-loads` issued ahead
//! (`tile.ring`) writes slot `(iteration + distance) % slots` of its ring,
//! so the tiles in flight never share a slot with one an mma still reads;
//! any other load has a buffer of its own. Where the array's rows are not
//! whole 16-byte chunks but whole 8-byte ones (K = 4100 in f16), the copies
//! are 8-byte `cp.async.ca`s; where not even that (rows of odd lengths),
//! or the view pads with other values than zero, the threads load each
//! 16-byte chunk from the two aligned words around it and store it
//! swizzled ([`super::unaligned`]). A loop's loads make only one of those
//! copies, the one its version was made for ([`super::version`]). A ring
//! the TMA fills ([`super::tma`]) is requested instead.
//!
//! The layout in shared memory is [`super::swizzle`]'s: rows of `R` bytes
//! (the swizzle, the bytes of the loaded tile's rows up to 128), each
//! row's 16-byte chunks XOR-ed with the row's index mod 8; a loaded row
//! longer than `R` is cut into blocks of `R` bytes.
//!
//! ```text
//! %a = tile.load %view[%i, %k] {tile.ring = [0, 2, -1, 5]} -> tensor<128x64xf16, #tile.shared<...>>
//! // becomes, for each 16-byte chunk (row r, column c) this thread copies:
//! cp.async.cg.shared.global [ring0 + slot * 16384 + swizzle(r * 128 + c * 2)], [A + ((i*128 + r) * lda + k*64 + c) * 2], 16
//! cp.async.commit_group
//! ```
//!
//! A `tile.convert_layout` of a ring tile the TMA fills into registers
//! (`tile-prefetch-fragments`' B^T fragments) waits for the tile's slot
//! and reads it with [`super::ldmatrix::read_swizzled`] ([`from_ring`]).
//!
//! Caveats: the mma that reads the tile waits for its group
//! (`cp.async.wait_group`, counting the groups issued since from the
//! ring's distance) and a barrier; the ring's slots are sized so that
//! the loads of an iteration cannot overwrite a tile an mma still reads.

use super::global::{global_pointer, origin};
use super::memory::{access, load_elements};
use super::rings::{ring_loop_after, ring_of};
use super::swizzle::Swizzled;
use super::{Lowering, in_loop, when};
use crate::{
    build::{At, CmpiPredicate, tile_type},
    layout::{LinearLayout, element_bytes, linear::coalesced},
    rewrite::{IrValue, Probe, detach, op_name},
};
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Attribute, OperationRef, Type, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::layout::Layout;

/// What the lowering knows of a tile in shared memory (its address is the
/// value's registers).
#[derive(Clone, Debug)]
pub struct SharedTile<'c> {
    /// The value's shape.
    pub shape: Vec<i64>,
    pub element: Type<'c>,
    /// Bytes of an element.
    pub bytes: i64,
    /// Bytes of a swizzled row.
    pub swizzle: i64,
    /// Rows run along the value's dim 1 (it is its load's tile permuted).
    pub transposed: bool,
    /// The ring it was loaded into, if any.
    pub ring: Option<RingUse>,
    /// Cp.async groups committed before its load's.
    pub commit: usize,
    /// Its ring's slots are filled by the TMA ([`super::tma`]).
    pub tma: bool,
}

/// The copy a `tile.load` of a shared tile makes, where its loop's
/// version chose ([`super::version`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copy {
    /// 16- or 8-byte `cp.async`s (every array of the loop allows them).
    Async,
    /// Each chunk shifted out of two aligned words.
    Shifted,
}

/// A ring tile's place: which ring, how far ahead its loop loads, the
/// ring's slots.
#[derive(Clone, Copy, Debug)]
pub struct RingUse {
    pub id: i64,
    pub distance: i64,
    pub slots: i64,
}

impl<'c> SharedTile<'c> {
    /// The tile a `#tile.shared` tile type describes.
    pub fn of_type(r#type: Type<'c>) -> Option<Self> {
        let Layout::Shared { swizzle_bytes, element_bits, transposed } = Layout::of_type(r#type)? else {
            return None;
        };
        let (shape, element) = tile_type(r#type)?;
        // A `1 x R x C` tile (loaded so, then reshaped) is its `R x C`.
        let shape = match shape[..] {
            [r, c] | [1, r, c] => vec![r, c],
            _ => return None,
        };
        Some(Self {
            shape,
            element,
            bytes: element_bits / 8,
            swizzle: swizzle_bytes,
            transposed,
            ring: None,
            commit: 0,
            tma: false,
        })
    }

    /// Rows of its buffer.
    pub fn rows(&self) -> i64 {
        self.shape[usize::from(self.transposed)]
    }

    /// The dim of the value that runs along a row.
    pub fn contiguous_dim(&self) -> usize {
        usize::from(!self.transposed)
    }

    /// The same bytes as the value permuted.
    pub fn permuted(&self) -> Self {
        Self { shape: vec![self.shape[1], self.shape[0]], transposed: !self.transposed, ..self.clone() }
    }

    /// How its buffer is laid out.
    pub fn swizzled(&self) -> Swizzled {
        Swizzled { rows: self.rows(), row: self.swizzle, bytes: self.bytes }
    }
}

/// The bytes of `kernel`'s shared tiles (a ring's slots counted once).
fn shared_bytes(kernel: OperationRef) -> i64 {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let (mut bytes, mut rings) = (0, std::collections::HashSet::new());
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.load"
            && let Some(tile) = op.result_at(0).and_then(|r| SharedTile::of_type(r.r#type()))
        {
            let tile_bytes = tile.shape.iter().product::<i64>() * tile.bytes;
            bytes += match ring_of(op) {
                Some([id, _, _, slots]) if rings.insert(id) => slots * tile_bytes,
                Some(_) => 0,
                None => tile_bytes,
            };
        }
        WalkResult::Advance
    });
    bytes
}

/// Whether a block of `kernel` has its multiprocessor to itself: its
/// shared tiles (and the kilobyte the system takes a block) leave no room
/// for a second.
pub fn alone(kernel: OperationRef) -> bool {
    2 * (shared_bytes(kernel) + 1024) > crate::to_gpu::SM_SHARED_MEMORY
}

/// A buffer of `elements` elements aligned to 1024 bytes (a swizzle
/// pattern repeats every 1024 bytes at most, and the descriptors assume
/// a buffer starts a repetition), allocated at the kernel's start.
pub fn aligned_scratch<'c>(lowering: &Lowering<'c>, elements: i64, element: Type<'c>) -> Option<IrValue<'c>> {
    let context = lowering.context;
    let r#type = MemRefType::new(element, &[elements], None, None);
    let alignment = IntegerAttribute::new(IntegerType::new(context, 64).into(), 1024);
    lowering.entry.add(melior::dialect::memref::alloc(
        context,
        r#type,
        &[],
        &[],
        Some(alignment),
        lowering.entry.location,
    ))
}

/// A ring's buffer and its shared-memory address.
#[derive(Clone, Copy)]
pub struct Ring<'c> {
    pub buffer: IrValue<'c>,
    pub address: IrValue<'c>,
    /// The commit count when its first tile was loaded.
    pub first_commit: usize,
    /// Its distance, slots and elements a slot.
    pub shape: (i64, i64, i64),
    /// The slots' mbarriers, when the TMA fills them.
    pub barriers: Option<IrValue<'c>>,
}

/// The most carries between a ring's load in a loop and a tile read from
/// it (the ring's distance, which `tile-prefetch-loads` bounds far lower).
pub(super) const MAX_CARRIES: i64 = 64;

/// The address of `value`, a TMA ring tile that `loop` (the loop of the
/// mma that reads it, at `at`) carries to the iteration it is for,
/// computed from the iteration (its slot of the ring) rather than taken
/// from the loop's carried values, where a producer warp requests the
/// tiles. The consumers then compute no address of a tile ahead, so the
/// `distance` carried addresses a ring would cost registers and moves
/// every iteration for nothing (BENCHMARKS.md, session 33, runs 1 and 3:
/// variants `_c`, `_bcg`). `None` for anything else.
pub(super) fn slot_address<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    value: melior::ir::Value<'c, '_>,
    r#loop: OperationRef<'c, 'c>,
) -> Option<IrValue<'c>> {
    let tile = lowering.shared(value).filter(|t| t.tma && lowering.producer.is_some())?;
    this_iterations_load(value, r#loop)?;
    let ring = lowering.rings.get(&tile.ring?.id)?;
    let (_, slots, elements) = ring.shape;
    let t = super::tma::position(at, r#loop, super::tma::iteration(at, r#loop)?)?;
    let slot = super::tma::ring_position(at, t, slots)?.0;
    at.addi(ring.address, at.muli(slot, at.index(elements * tile.bytes)?)?)
}

/// The ring load whose tile `value` ((a permute or reshape of) an
/// argument of `loop`'s body) is, if it is this iteration's tile of the
/// ring: the one the loop's ring load asked for `distance` iterations
/// back, carried as many times, as `tile-prefetch-loads` writes it.
pub(super) fn this_iterations_load<'c>(
    value: melior::ir::Value<'c, '_>,
    r#loop: OperationRef<'c, 'c>,
) -> Option<OperationRef<'c, 'c>> {
    use melior::ir::RegionLike as _;
    let body = r#loop.region_at(0)?.first_block()?;
    let mut root = detach(value);
    while crate::rewrite::argument_of(root, body).is_none() {
        root = detach(crate::rewrite::defining_op(root)?.operand_at(0)?);
    }
    let (load, carries) = carried_load(root, Some(r#loop))?;
    let [_, distance, index, _] = ring_of(load)?;
    (index < 0 && load.parent_operation() == Some(r#loop) && carries == distance).then_some(load)
}

/// The `tile.load` that `value` is, followed back through `loop`'s
/// yields (if it is in one), and how many iterations it was carried.
pub(super) fn carried_load<'c>(
    mut value: IrValue<'c>,
    r#loop: Option<OperationRef<'c, 'c>>,
) -> Option<(OperationRef<'c, 'c>, i64)> {
    use melior::ir::{BlockLike as _, RegionLike as _};
    let mut carries = 0;
    if let Some(body) = r#loop.and_then(|l| l.region_at(0)?.first_block()) {
        let terminator = body.terminator()?;
        while let Some(number) = crate::rewrite::argument_of(value, body) {
            value = crate::rewrite::detach(terminator.operand_at(number.checked_sub(1)?)?);
            carries += 1;
            if carries > MAX_CARRIES {
                return None;
            }
        }
    }
    let load = crate::rewrite::defining_op(value).filter(|d| op_name(*d) == "tile.load")?;
    Some((load, carries))
}

/// Lowers a `tile.load` of a shared tile.
pub fn load<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let context = lowering.context;
    let result = op.result_at(0)?;
    let mut tile = SharedTile::of_type(result.r#type())?;
    if tile.transposed {
        return None;
    }
    let (full_shape, element) = tile_type(result.r#type())?;
    let shape = tile.shape.clone();
    let at = At::before(context, op)?;
    let view = lowering.view(op.operand_at(0)?)?;
    let coords: Vec<IrValue> = (1..op.operand_count()).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    tile.commit = lowering.commits;
    let elements = shape[0] * shape[1];
    let parent = op.parent_operation().filter(|p| op_name(*p) == "scf.for");
    // The descriptor argument, when the TMA fills this load's ring.
    let tma_load = op
        .attribute(tile_dialect::attrs::TMA_LOAD)
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .and_then(|a| usize::try_from(a.value()).ok());
    // A block of a cluster has slots of its own that its barriers do not
    // order with the others' (`tile-use-tma` gives clusters no TMA; a
    // hand-written `tile.tma_load` there is refused).
    if tma_load.is_some() && lowering.cluster > 1 {
        return lowering.refuse(
            "a tile.tma_load in a kernel whose blocks run as a cluster (each block's ring slots would need \
             barriers that the other blocks' copies do not complete)",
        );
    }
    // The tile's iteration, for a ring the TMA fills, and where it is
    // requested (everywhere, if `None`).
    let mut requested = None;
    let mut wanted = None;

    // Where the tile goes: a ring slot, or a buffer of its own.
    let (buffer, first) = match ring_of(op) {
        Some([id, distance, index, slots]) if index >= 0 || parent.is_some() => {
            let ring = match lowering.rings.get(&id) {
                // Every load of a ring has its distance, slots and tile, and
                // all or none have the TMA (a hand-written tile.ring or
                // tile.tma_load that does not is refused).
                Some(&ring)
                    if ring.shape == (distance, slots, elements) && ring.barriers.is_some() == tma_load.is_some() =>
                {
                    ring
                }
                Some(_) => {
                    return lowering.refuse(
                        "another load of this ring (its tile.ring id) has another distance, slot count or tile, \
                         or the TMA fills one and not the other",
                    );
                }
                None => {
                    let buffer = aligned_scratch(lowering, slots * elements, element)?;
                    let address = super::shared_address(&lowering.entry, buffer)?;
                    let shape = (distance, slots, elements);
                    let barriers = match tma_load {
                        Some(_) => Some(super::tma::ring_barriers(lowering, id, slots)?),
                        None => None,
                    };
                    let ring = Ring { buffer, address, first_commit: lowering.commits, shape, barriers };
                    lowering.rings.insert(id, ring);
                    ring
                }
            };
            let slot = if index >= 0 {
                // The loop this first tile is for, where its ring's
                // positions continue across an enclosing loop.
                let continued =
                    ring.barriers.and_then(|_| ring_loop_after(op, id)).filter(|l| super::tma::continued(*l).is_some());
                // Its positions count from the walk's, so it must be in it,
                // before the loop.
                if continued.is_some_and(|l| l.parent_operation() != op.parent_operation()) {
                    return lowering.refuse(
                        "one of a TMA ring's first tiles is loaded outside the loop that runs the ring's loop \
                         (a ring that continues across that loop needs its first tiles there)",
                    );
                }
                // Under a producer warp a continued ring's slots are
                // refilled only once every consumer thread has given them
                // back (its `empty` barriers): no block barrier is needed.
                let guarded = lowering.producer.is_some() && ring.barriers.is_some() && continued.is_some();
                if index == 0 && in_loop(op) && !guarded {
                    // An enclosing loop's last round of this ring may still
                    // be read by another warpgroup's mmas.
                    lowering.barrier(&at)?;
                    if let (Some(barriers), None) = (ring.barriers, continued) {
                        super::tma::restart(lowering, &at, id, barriers, slots)?;
                    }
                }
                match (continued, ring.barriers) {
                    (Some(r#loop), Some(barriers)) => {
                        // Only a tile the loop reads: every position asked
                        // for is waited for and given back in it.
                        let position = super::tma::position(&at, r#loop, at.index(index)?)?;
                        wanted =
                            Some(at.cmpi(CmpiPredicate::Ult, at.index(index)?, super::tma::trips(&at, r#loop)?)?);
                        requested = Some((barriers, Some(position), index));
                        super::tma::ring_position(&at, position, slots)?.0
                    }
                    _ => {
                        requested = ring.barriers.map(|b| (b, at.index(index), index));
                        at.index(index)?
                    }
                }
            } else {
                let r#loop = parent?;
                // A versioned loop's copies are done after both versions.
                let done = lowering.versions.ifs.get(&(r#loop.to_raw().ptr as usize)).copied();
                lowering.ring_loops.insert(id, done.unwrap_or(r#loop));
                let iteration = super::tma::iteration(&at, r#loop)?;
                let t = at.addi(super::tma::position(&at, r#loop, iteration)?, at.index(distance)?)?;
                match ring.barriers {
                    Some(barriers) => {
                        // No tile past the loop's end.
                        lowering.note_tma_ring(r#loop, id, (barriers, slots), distance)?;
                        wanted = Some(super::tma::ahead_runs(&at, r#loop, distance)?);
                        requested = Some((barriers, Some(t), index));
                    }
                    None => {
                        lowering.note_ring_load(r#loop);
                    }
                }
                super::tma::ring_position(&at, t, slots)?.0
            };
            tile.ring = Some(RingUse { id, distance, slots });
            (ring.buffer, Some(at.muli(slot, at.index(elements)?)?))
        }
        _ => {
            if in_loop(op) {
                // The last iteration's mmas read the buffer.
                lowering.barrier(&at)?;
                lowering.note_other_load(op);
            }
            (aligned_scratch(lowering, elements, element)?, None)
        }
    };
    let base = match lowering.rings.values().find(|r| r.buffer == buffer) {
        Some(ring) => ring.address,
        None => super::shared_address(&lowering.entry, buffer)?,
    };
    let address = match first {
        Some(first) => at.addi(base, at.muli(first, at.index(tile.bytes)?)?)?,
        None => base,
    };
    if let (Some((barriers, t, index)), Some(argument)) = (requested, tma_load) {
        let RingUse { id, slots, .. } = tile.ring?;
        let boxes =
            super::tma::Boxes { rows: tile.rows(), columns: shape[1], bytes: tile.bytes, swizzle: tile.swizzle };
        // A multicast load's descriptor holds a part of its rows, each
        // starting a swizzle pattern (1024 bytes), as the whole tile does,
        // so that the TMA's swizzle and the readers' agree. Multicast
        // where the kernel can (`Lowering::multicast`), else this block
        // asks for every part itself.
        let parts = match op.has_attribute(tile_dialect::attrs::TMA_MULTICAST) {
            true => lowering.cluster_blocks,
            false => 1,
        };
        if boxes.rows % parts != 0 || (boxes.rows / parts * boxes.swizzle) % 1024 != 0 {
            return lowering.refuse(
                "a tile.tma_multicast load whose tile's rows do not cut into whole swizzle patterns, one part a \
                 block of the cluster",
            );
        }
        let multicast = if parts > 1 { lowering.multicast } else { None };
        let described = super::tma::Boxes { rows: boxes.rows / parts, ..boxes };
        let request = super::tma::Request {
            multicast,
            parts,
            descriptor: super::tma::descriptor(op, argument, &described).or_else(|| {
                lowering.refuse(
                    "the tile.tma_load's descriptor (its kernel argument's tile.tma) does not describe this tile \
                     (another box or swizzle) or is optional",
                )
            })?,
            first: origin(&at, &view, &coords)?.first,
            destination: address,
            boxes,
            ring: (id, index),
        };
        super::tma::request(lowering, &at, &request, (barriers, slots), t?, wanted)?;
        tile.tma = true;
        lowering.map(result.into(), address);
        lowering.shared.insert(super::key(result.into()), tile);
        return Some(());
    }

    // The copy, 16-byte chunks: thread t takes chunks t, t + T, ... of the
    // tile's rows (neighbouring threads, neighbouring chunks). Where the
    // array's rows are 16-byte aligned, cp.asyncs that fill what lies
    // outside the array with zeros (the view's padding, when it is zero);
    // else the threads load each chunk into registers and store it
    // swizzled ([`super::unaligned`]).
    let tile_origin = origin(&at, &view, &coords)?;
    let global = global_pointer(&at, view.memref, tile.bytes)?;
    let threads = lowering.warps * 32;
    let thread = at.addi(at.muli(lowering.warp, at.index(32)?)?, lowering.lane)?;
    let zero_padding = matches!(view.padding, tile_dialect::types::Padding::Zero);
    let never = at.int(Type::parse(context, "i1")?, 0)?;
    let aligned = |bytes: i64| if zero_padding { global.aligned(&at, bytes) } else { Some(never) };
    let (aligned16, aligned8) = (aligned(16)?, aligned(8)?);
    let swizzled = tile.swizzled();
    let full_layout =
        LinearLayout::from_layout(&coalesced(&full_shape, element_bytes(element), lowering.warps), &full_shape)?;
    lowering.thread_flat(&full_layout)?;
    let lowering_ref = &*lowering;
    // The copies of `size`-byte chunks: thread t takes chunks t, t + T, ...
    let copies = |then: &At<'c, 'c>, size: i64| -> Option<Vec<IrValue<'c>>> {
        let per_chunk = size / tile.bytes;
        let per_row = shape[1] / per_chunk;
        let chunks = shape[0] * per_row;
        for round in 0..(chunks + threads - 1) / threads {
            let at = then;
            let q = at.addi(thread, at.index(round * threads)?)?;
            let row = at.divui(q, at.index(per_row)?)?;
            let column = at.muli(at.remui(q, at.index(per_row)?)?, at.index(per_chunk)?)?;
            let rank = tile_origin.first.len();
            let i = at.addi(tile_origin.first[rank - 2], row)?;
            let j = at.addi(tile_origin.first[rank - 1], column)?;
            let mut rows_ok = at.cmpi(CmpiPredicate::Ult, i, tile_origin.dims[rank - 2])?;
            let outer = tile_origin.first[..rank - 2].to_vec();
            for (d, &first) in outer.iter().enumerate() {
                rows_ok = at.andi(rows_ok, at.cmpi(CmpiPredicate::Ult, first, tile_origin.dims[d])?)?;
            }
            let copy = |at: &At<'c, 'c>| -> Option<()> {
                // Bytes inside the array: none past its rows, else up to
                // its columns' end (an unsigned compare also catches a
                // tile before the array's start).
                let columns = *tile_origin.dims.last()?;
                let columns_ok = at.cmpi(CmpiPredicate::Ult, j, columns)?;
                let inside = at.andi(rows_ok, columns_ok)?;
                let left = at.muli(at.subi(columns, j)?, at.index(tile.bytes)?)?;
                let bytes = at.select(inside, at.minui(left, at.index(size)?)?, at.index(0)?)?;
                let zero = at.index(0)?;
                let mut index: Vec<IrValue> =
                    outer.iter().map(|&o| at.select(inside, o, zero)).collect::<Option<_>>()?;
                index.push(at.select(inside, i, zero)?);
                index.push(at.select(inside, j, zero)?);
                let destination = at.addi(address, swizzled.offset(at, row, column)?)?;
                copy_async(at, destination, global.element(at, &index)?, (bytes, size))
            };
            if chunks % threads == 0 {
                copy(at)?;
            } else {
                when(at, at.cmpi(CmpiPredicate::Ult, q, at.index(chunks)?)?, copy)?;
            }
        }
        Some(vec![])
    };
    // 16-byte copies where the array's rows allow them, else 8-byte ones
    // (rows of 8 bytes times an odd number, as K = 4100 in f16), else
    // (rows of any length) each 16-byte chunk shifted out of two aligned
    // words ([`super::unaligned`]). An array whose rows are not contiguous
    // (never one of the contract's) is loaded element by element and
    // stored swizzled.
    let target = super::unaligned::Target { view: view.clone(), buffer, first, swizzled };
    // A ring's tile for a later iteration, loaded in the loop's body, where
    // its version stores it later ([`super::version`]).
    let ahead_in = match ring_of(op) {
        Some([_, distance, index, _])
            if index < 0 && distance >= 1 && lowering.versions.stored_later.contains(&(op.to_raw().ptr as usize)) =>
        {
            parent
        }
        _ => None,
    };
    let mut pending = None;
    let shifted = |at: &At<'c, 'c>| -> Option<Vec<IrValue<'c>>> {
        let origin = (&global, &tile_origin);
        let mut plan = super::unaligned::Plan::new(at, origin, (&shape, swizzled), (thread, threads))?;
        // Outside a versioned loop (a tile copied once, as attention's Q):
        // branch-free chunks and a loop after them cost the TMA variants
        // registers.
        plan.inline_elements = true;
        plan.copy(at, origin, &target)?;
        Some(vec![])
    };
    match lowering_ref.versions.copies.get(&(op.to_raw().ptr as usize)) {
        // Its loop was versioned on the arrays' alignment ([`super::version`]).
        Some(Copy::Async) => {
            super::if_else(&at, aligned16, &[], |then| copies(then, 16), |otherwise| copies(otherwise, 8))?;
        }
        Some(Copy::Shifted) => {
            let origin = (&global, &tile_origin);
            let plan = super::unaligned::Plan::new(&at, origin, (&shape, swizzled), (thread, threads))?;
            match ahead_in {
                // The words are stored once the iteration's mma is issued
                // ([`finish_copies`]), so that their loads' latency
                // passes while it runs, not before it.
                Some(r#loop) => {
                    let words = plan.load(&at)?;
                    let copy = PendingCopy { plan, words, global: global.clone(), origin: tile_origin.clone(), target };
                    pending = Some((r#loop, copy));
                }
                None => plan.copy(&at, origin, &target)?,
            }
        }
        None => {
            super::if_else(
                &at,
                aligned16,
                &[],
                |then| copies(then, 16),
                |otherwise| {
                    super::if_else(
                        otherwise,
                        aligned8,
                        &[],
                        |then| copies(then, 8),
                        |otherwise| {
                            if super::memory::unit_innermost_stride(view.memref) {
                                return shifted(otherwise);
                            }
                            let access = access(otherwise, &view, &coords, &full_layout)?;
                            let vector = super::vector_type(full_layout.registers(), element);
                            let registers =
                                load_elements(lowering_ref, otherwise, &view, &access, &full_layout, vector)?;
                            swizzled.write(lowering_ref, otherwise, (buffer, first), registers, &full_layout, 0)?;
                            Some(vec![])
                        },
                    )?;
                    Some(vec![])
                },
            )?;
        }
    }
    if let Some((r#loop, copy)) = pending {
        lowering.pending_copies.entry(r#loop.to_raw().ptr as usize).or_default().push(copy);
    }
    at.insert(OperationBuilder::new("nvvm.cp.async.commit.group", at.location).build().ok()?);
    lowering.commits += 1;
    lowering.map(result.into(), address);
    lowering.shared.insert(super::key(result.into()), tile);
    Some(())
}

/// A shifted copy of a ring tile for a later iteration whose words are
/// loaded and not yet stored (`unaligned::Plan::load`).
pub struct PendingCopy<'c> {
    plan: super::unaligned::Plan<'c>,
    words: Vec<Vec<IrValue<'c>>>,
    global: super::global::Global<'c>,
    origin: super::global::Origin<'c>,
    target: super::unaligned::Target<'c>,
}

/// Stores the pending copies of `loop`'s body at `at`: after the first
/// mma of the iteration is issued, else at the body's end. Its slot is
/// the tile `distance` iterations ahead's, which neither that mma nor one
/// still in flight reads (the ring's slots are sized for a store at the
/// body's start, when the same or more of them may read), and the
/// fence and barrier before the mma that reads it, iterations later,
/// order the stores before that read.
///
/// Where the copies' words fit (two 16-byte words a chunk, at most
/// `HELD_CHUNKS` chunks a thread over the loop's copies: the 128x128x64
/// GEMMs' 8), each copy stores an interior tile by a branch of its own
/// (`unaligned::Plan::store`), which keeps ptxas from moving its
/// shifts above the wgmmas; more words than that held across the wgmmas
/// spill (the 128x256 and 64x128x128 configurations), so those copies
/// store as a copy at the load does, and ptxas shifts the first tile's
/// words before it asks for the second's.
pub fn finish_copies<'c>(lowering: &mut Lowering<'c>, at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>) -> Option<()> {
    let copies = lowering.pending_copies.remove(&(r#loop.to_raw().ptr as usize)).unwrap_or_default();
    let held: usize = copies.iter().map(|copy| copy.plan.rounds()).sum();
    for copy in copies {
        copy.plan.store(at, (&copy.global, &copy.origin), &copy.target, copy.words, held <= HELD_CHUNKS)?;
    }
    Some(())
}

/// The most chunks a thread's pending copies of a loop may hold across its
/// wgmmas and still store interior tiles by a branch of their own
/// ([`finish_copies`]).
const HELD_CHUNKS: usize = 8;

/// `cp.async.cg.shared.global [destination], [source], 16, bytes` (`.ca`
/// for an 8-byte `size`: `.cg` copies 16 only): the bytes past the first
/// `bytes` are zeros.
fn copy_async<'c>(
    at: &At<'c, 'c>,
    destination: IrValue<'c>,
    source: IrValue<'c>,
    (bytes, size): (IrValue<'c>, i64),
) -> Option<()> {
    let context = at.context;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let bytes = at.add(arith::index_cast(bytes, IntegerType::new(context, 32).into(), at.location))?;
    let destination = at.add(arith::index_cast(destination, i64_type, at.location))?;
    let destination =
        at.add(ods::llvm::inttoptr(context, llvm::r#type::pointer(context, 3), destination, at.location))?;
    at.insert(
        OperationBuilder::new("nvvm.cp.async.shared.global", at.location)
            .add_operands(&[destination, source, bytes])
            .add_attributes(&[
                (
                    melior::ir::Identifier::new(context, "size"),
                    IntegerAttribute::new(IntegerType::new(context, 32).into(), size).into(),
                ),
                (
                    melior::ir::Identifier::new(context, "modifier"),
                    Attribute::parse(
                        context,
                        if size == 16 { "#nvvm<load_cache_modifier cg>" } else { "#nvvm<load_cache_modifier ca>" },
                    )?,
                ),
            ])
            .build()
            .ok()?,
    );
    Some(())
}

/// Lowers a `tile.permute` or a `tile.reshape` (one that drops a leading
/// unit dim) of a shared tile: the same address, the same bytes read the
/// other way round or as they are.
pub fn view<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let input = op.operand_at(0)?;
    let tile = lowering.shared(input)?;
    let tile = if op_name(op) == "tile.permute" { tile.permuted() } else { tile };
    let address = lowering.registers(input)?;
    let result = op.result_at(0)?;
    lowering.map(result.into(), address);
    lowering.shared.insert(super::key(result.into()), tile);
    Some(())
}

/// A `tile.convert_layout` of a ring tile the TMA fills into registers in
/// the result's layout
/// (`tile-prefetch-fragments`' fragments of B^T): the wait for its slot's
/// phase, then the threads' reads. Its iteration: that of a load before a
/// loop is its index in the ring; in the loop, the loop's own plus the
/// ring's distance for the load there, one less for each carry between it
/// and the tile read (a carried tile, the loop's yield not lowered yet,
/// is the one yielded for it, an iteration earlier).
pub fn from_ring<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>, tile: SharedTile<'c>) -> Option<()> {
    let input = op.operand_at(0)?;
    let result = op.result_at(0)?;
    let to = lowering.layout(result.into())?;
    let ring = tile.ring?;
    let barriers = lowering.rings.get(&ring.id)?.barriers?;
    let at = At::before(lowering.context, op)?;
    let r#loop = op.parent_operation().filter(|p| op_name(*p) == "scf.for");
    let (load, carries) = carried_load(crate::rewrite::detach(input), r#loop)?;
    let [_, distance, index, _] = ring_of(load)?;
    let (iteration, requested) = match (index, carries) {
        // One of the first tiles, loaded before its loop (a position of
        // its own where the ring continues across an enclosing loop).
        (0.., 0) => match ring_loop_after(load, ring.id).filter(|l| super::tma::continued(*l).is_some()) {
            Some(r#loop) => (super::tma::position(&at, r#loop, at.index(index)?)?, None),
            None => (at.index(index)?, None),
        },
        // The load in the op's loop, `carries` iterations before: the
        // tile `distance - carries` iterations ahead (a later one than
        // this iteration's where `tile-prefetch-fragments` reads the next
        // tile early). Requests stop at the loop's end: such a tile is
        // requested (and waited for) only where the loop runs that far,
        // or where it is one of the first tiles, requested before the
        // loop. (Past the end, the read's values are not used.)
        (..0, 0..) if load.parent_operation() == r#loop && carries <= distance => {
            let r#loop = r#loop?;
            let ahead = distance - carries;
            let local = at.addi(super::tma::iteration(&at, r#loop)?, at.index(ahead)?)?;
            let requested = if ahead == 0 {
                None
            } else if super::tma::continued(r#loop).is_some() {
                // Its first tiles too are asked for only where it runs.
                Some(super::tma::ahead_runs(&at, r#loop, ahead)?)
            } else {
                let first = at.cmpi(crate::build::CmpiPredicate::Ult, local, at.index(distance)?)?;
                Some(at.ori(super::tma::ahead_runs(&at, r#loop, ahead)?, first)?)
            };
            (super::tma::position(&at, r#loop, local)?, requested)
        }
        _ => return None,
    };
    match requested {
        Some(requested) => super::when(&at, requested, |at| super::tma::wait(at, (barriers, ring.slots), iteration))?,
        None => super::tma::wait(&at, (barriers, ring.slots), iteration)?,
    }
    let address = lowering.registers(input)?;
    let value = super::ldmatrix::read_swizzled(
        lowering,
        &at,
        (&tile.swizzled(), address),
        &to,
        tile.contiguous_dim() ^ 1,
        tile.element,
    )?;
    lowering.map(result.into(), value);
    Some(())
}
