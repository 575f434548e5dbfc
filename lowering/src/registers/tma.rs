//! Ring slots filled by the Tensor Memory Accelerator (loads that
//! `tile-use-tma` marked `tile.tma_load`), each slot with an mbarrier.
//!
//! The rings whose tiles one mma reads (A's and B's) move in step, and
//! share their slots' barriers ([`super::groups::of`]), as if a stage held
//! both operands: one arrival and one wait an iteration for
//! both instead of one a ring (BENCHMARKS.md, session 29). One thread
//! asks for the tiles: the group's first request of a tile arrives on the
//! slot's barrier (`mbarrier.arrive.expect_tx`) with the bytes of every
//! ring's tile, then each request issues one `cp.async.bulk.tensor` per
//! block of swizzled rows (the TMA writes the same 32/64/128-byte swizzle
//! the threads' copies do, [`super::shared`]) completing on that barrier,
//! where the loads are: first in the loop's body (a request issued after
//! the iteration's wgmmas measured a sixth slower: the copy then has less
//! time to land). The tiles of iteration `t` go to slot `t % slots`, so
//! the mma that reads them waits once for phase `t / slots` of that slot's
//! barrier (`mbarrier.try_wait.parity` with its parity); every thread
//! waits, so the data needs no barrier. A block-wide barrier an iteration
//! keeps a slot from being refilled while another warpgroup's wgmmas may
//! still read it: after the `wgmma.wait_group 1` of an mma kept in flight
//! (where the mma stays in flight), else before the loop's first mma
//! ([`super::mma`]).
//!
//! The TMA reads a descriptor from global memory the first time a copy
//! uses it, so the kernel's first copies (and its first store) would wait
//! for that read before their own: thread 0 asks for each descriptor
//! (`prefetch.tensormap`) first thing ([`prefetch_descriptors`]; +0.7-1%
//! where each block runs one tile, BENCHMARKS.md, session 48).
//!
//! ```text
//! entry:      thread 0: prefetch.tensormap [desc] for each descriptor
//!             thread 0: mbarrier.init [bars + 8 s], 1 for each slot s; fence.mbarrier_init; bar.sync
//! A's load:   thread 0: mbarrier.arrive.expect_tx [bars + 8 ((t + D) % S)], bytes of A's tile + B's
//!                       cp.async.bulk.tensor.2d [ringA + ((t + D) % S) * slotA], [descA, {k, m}], [bars + ...]
//! B's load:   thread 0: cp.async.bulk.tensor.2d [ringB + ((t + D) % S) * slotB], [descB, {n, k}], [bars + ...]
//!             (both only where the loop runs to t + D: t + D < n)
//! tile.mma:   mbarrier.try_wait.parity [bars + 8 (t % S)], (t / S) & 1
//!             wgmma ...; commit; wgmma.wait_group 1; bar.sync
//! after loop: the same wait for the first tiles that lie past its end (n <= d < D)
//! ```
//!
//! Why a shared phase is sound: each phase has one arrival (`mbarrier.init`
//! with 1), the first request of the tile, issued by the thread that then
//! issues every ring's copies, so the phase cannot complete before all of
//! them have landed; the group's rings have the same distance and slots
//! and their requests the same condition ([`ahead_runs`]), so every tile
//! the arrival announces is requested. A thread waits for tile `t`'s
//! phase `r` by its parity, which is unambiguous when the slot's barrier
//! is in phase `r` or has just completed it: phase `r - 1` (tile
//! `t - slots`) completed before, since the same thread waited for it
//! (every thread waits for every tile, in order), and phase `r + 1` (tile
//! `t + slots`) cannot complete before the wait, since its request comes
//! at iteration `t + slots - D > t`, after a block barrier this thread
//! reaches only after the wait. The slot of tile `t` is refilled by that
//! request, after the block barrier of iteration `u = t + slots - D - 1`:
//! with the barrier after `wgmma.wait_group 1` (in flight), each
//! warpgroup's wgmmas up to iteration `u - 1` have retired by then, and
//! `u - 1 >= t` from `slots = D + 2` (`u = t + 1`; the rings of
//! [`super::groups::in_flight_rings`], `D + 2` a power of two) on (`slots = D + 3`, `u =
//! t + 2`, the other rings of an mma kept in flight, whose spare slot
//! `tile-prefetch-loads` gave them for the threads' copies); with the
//! barrier before the first mma (`slots = D + 2`, `u = t + 1`), each
//! warpgroup finished iteration `t`, its mmas waited for in it. (With a producer warp, the `empty` phase
//! that the request waits for, which every consumer thread completes
//! once its wgmmas that read tile `t` are done, plays that barrier's part.)
//!
//! (A wait on `empty` barriers that warps arrive on once their wgmmas are
//! done, in place of the block-wide barrier, measured slower, BENCHMARKS.md,
//! session 15: the wait for a free slot among the in-flight wgmmas costs
//! ptxas registers and the overlap.) With a producer warp ([`super::warps`]),
//! each slot has an `empty` barrier too, after the `full` ones: the
//! producer warp waits for its phase, converged, before the group's first
//! request of a tile (its first thread's arrival and copies predicated,
//! [`request`]), and the consumer threads arrive on it after their
//! wgmmas ([`release`]); there, every ring of a loop that moves in step is
//! in one group. Slots and phases are computed in 32 bits
//! ([`ring_position`]).
//!
//! In a sliced cluster (`tile-slice-clusters`), a ring whose tiles every
//! block reads alike (`tile.tma_multicast`, B) is multicast: block `r`
//! asks for rows `r * R / N ..` of each box (the descriptor's box is `R /
//! N` rows) with a multicast mask of all `N` blocks, so each block's slot
//! fills from every block's copies, which complete on the barrier at the
//! same offset in each block; the phase's bytes are the whole tile's, as
//! without. A slot is then written by every block's producer, so each
//! `empty` barrier counts this block's consumer threads and one arrival a
//! consumer warp of every other block ([`release`]). The barriers'
//! initialisation ends with a cluster barrier (no block's copy may
//! complete on another's barrier before it is initialised), and so does
//! the kernel (no block exits while another may still multicast into it
//! or arrive on its barriers). Multicast needs a producer warp (the
//! block-wide barrier that guards a slot without one cannot wait for the
//! other blocks' mmas) and rings that never start again
//! ([`multicast_rings_steady`]); a kernel without them asks for every
//! part of such a tile itself, into its own slot.
//!
//! A request in the loop asks for a tile only where the loop runs that far
//! ([`ahead_runs`]): a tile past the loop's end would only fill its slot
//! with zeros, at the cost of TMA copies, shared-memory writes and a wait
//! after the loop (BENCHMARKS.md, session 28).
//! The first tiles, requested before the loop, may still lie past its end
//! (a loop shorter than the distance); they are waited for after it, once
//! a group ([`drain`]), so that no copy is in flight when the block exits
//! or a ring starts again. (With a producer warp, [`super::warps`], the
//! consumers' last releases of `empty` slots are waited for by no one,
//! which leaves nothing in flight.)
//!
//! A ring whose loop runs inside another loop with the same bounds each
//! time (a persistent kernel's walk over its tile blocks) continues from
//! one walk to the next ([`continued`]): tile `t` of walk `i` is the
//! ring's position `i n + t`, its first tiles are asked for only where
//! the loop reads them, and each walk starts with a block barrier (another
//! warpgroup's mmas of the last walk may still read the slots; none under
//! a producer warp, whose requests wait for the slots' `empty` barriers)
//! but no new barrier initialisation.
//!
//! Caveats: a ring whose loop's bounds change with the enclosing loop is
//! started again for each walk: it first invalidates and initialises its
//! barriers, once a group, so that phases count from zero each time;
//! rings waited for at different points
//! (attention's K and V without a producer warp) keep barriers of their
//! own; a ring kept in flight has `D + 2` slots where `tile-use-tma` gave
//! its spare slot back, which it does only where that is a power of two
//! ([`super::groups::spareless_slots`]: 4 two ahead; one ahead keeps 4,
//! not 3), or where `tile-prefetch-loads` found no room for it (128x256
//! tiles one ahead: 3 slots, a division an iteration), else `D + 3`.

use super::{Lowering, if_else_op, when};
use crate::{
    build::At,
    rewrite::{BlockProbe, IrValue, Probe, detach},
};
use melior::ir::RegionLike as _;
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Attribute, OperationRef, Type,
        attribute::{DenseI32ArrayAttribute, IntegerAttribute},
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut},
        r#type::{IntegerType, MemRefType},
    },
};
use std::collections::{HashMap, HashSet};

/// Marks the `scf.if` of a request until [`super::warps::specialize`] has
/// split the kernel for a producer warp (a discardable attribute outside
/// the tile dialect, removed by the same pass).
pub const REQUEST: &str = "tile_request";

/// Bytes of an mbarrier.
const BARRIER_BYTES: i64 = 8;

/// The blocks of a sliced cluster (`tile-slice-clusters`) that the TMA
/// multicasts a ring's tiles to, this block's rank among them, and the
/// thread's lane (lane 0 arrives on the other blocks' barriers for its
/// warp, [`release`]).
#[derive(Clone, Copy, Debug)]
pub struct Multicast<'c> {
    pub rank: IrValue<'c>,
    pub blocks: i64,
    pub lane: IrValue<'c>,
}

/// Whether every multicast ring of `kernel` (`tile.tma_multicast`) never
/// starts again: its loop is at the kernel's top level, or its rings
/// continue across the loop around it ([`continued`]). (`tile-use-tma`
/// marks only such rings, as far as it can tell before
/// `tile-persist-blocks`; a ring that would start again is asked for
/// without multicast.)
pub fn multicast_rings_steady(kernel: OperationRef) -> bool {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let top = |op: OperationRef| op.parent_operation().is_some_and(|p| crate::rewrite::op_name(p) == "func.func");
    let mut steady = true;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.has_attribute(tile_dialect::attrs::TMA_MULTICAST)
            && let Some([id, _, index, _]) = super::rings::ring_of(op)
        {
            // SAFETY: an op of the kernel, alive for the walk.
            let op = unsafe { OperationRef::from_raw(op.to_raw()) };
            let r#loop = if index < 0 { op.parent_operation() } else { super::rings::ring_loop_after(op, id) };
            steady &= r#loop.is_some_and(|l| top(l) || continued(l).is_some());
        }
        WalkResult::Advance
    });
    steady
}

/// Whether a load of `kernel` is multicast (`tile.tma_multicast`).
pub fn multicasts(kernel: OperationRef) -> bool {
    use melior::ir::operation::{WalkOrder, WalkResult};
    let mut found = false;
    kernel.walk(WalkOrder::PreOrder, |op| {
        found |= op.has_attribute(tile_dialect::attrs::TMA_MULTICAST);
        if found { WalkResult::Interrupt } else { WalkResult::Advance }
    });
    found
}

/// How long a thread may be suspended in one `mbarrier.try_wait` (ns),
/// CUTLASS's choice.
const SUSPEND_NS: i64 = 0x989680;

/// The mbarriers of a group's slots, made and initialised at the kernel's
/// start: their shared-memory address.
fn barriers<'c>(lowering: &Lowering<'c>, slots: i64) -> Option<IrValue<'c>> {
    let context = lowering.context;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let alignment = IntegerAttribute::new(i64_type, BARRIER_BYTES);
    let at = &lowering.entry;
    // With a producer warp, the `empty` barriers follow the `full` ones.
    let count = if lowering.producer.is_some() { 2 * slots } else { slots };
    let r#type = MemRefType::new(i64_type, &[count], None, None);
    let buffer = at.add(melior::dialect::memref::alloc(context, r#type, &[], &[], Some(alignment), at.location))?;
    let address = super::shared_address(at, buffer)?;
    initialise(lowering, at, address, slots, false)?;
    Some(address)
}

/// Thread 0 initialises the `slots` barriers at `address` (invalidating
/// them first if `again`), then the block waits for it.
fn initialise<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    address: IrValue<'c>,
    slots: i64,
    again: bool,
) -> Option<()> {
    let context = at.context;
    let first = is_thread(lowering, at, 0)?;
    when(at, first, |at| {
        let i32_type: Type = IntegerType::new(context, 32).into();
        // A `full` barrier has one arrival a phase (the group's
        // expect_tx); an `empty` one, one from each consumer thread, and
        // where the slot is multicast one from each consumer warp of every
        // other block ([`release`]).
        let mut counts = vec![at.int(i32_type, 1)?; slots as usize];
        if let Some(producer) = &lowering.producer {
            let others = lowering.multicast.map_or(0, |m| m.blocks - 1);
            let count = producer.consumer_warps * 32 + producer.consumer_warps * others;
            counts.extend(vec![at.int(i32_type, count)?; slots as usize]);
        }
        for (barrier, count) in counts.into_iter().enumerate() {
            let barrier = pointer(at, at.addi(address, at.index(barrier as i64 * BARRIER_BYTES)?)?)?;
            if again {
                at.insert(
                    OperationBuilder::new("nvvm.mbarrier.inval", at.location).add_operands(&[barrier]).build().ok()?,
                );
            }
            at.insert(
                OperationBuilder::new("nvvm.mbarrier.init", at.location)
                    .add_operands(&[barrier, count])
                    .build()
                    .ok()?,
            );
        }
        Some(())
    })?;
    at.insert(OperationBuilder::new("nvvm.fence.mbarrier.init", at.location).build().ok()?);
    // Another block's multicast completes on this block's barriers: none
    // may be issued before every block has initialised its own.
    match lowering.multicast {
        Some(_) => super::cluster::barrier(at),
        None => lowering.barrier(at),
    }
}

/// The rings whose slots share one set of barriers ([`super::groups::of`]), and
/// what the lowering has made of them so far.
#[derive(Default)]
pub struct Groups<'c> {
    /// Each ring of a group of two or more: the group's least ring id.
    leaders: HashMap<i64, i64>,
    /// Each such group (by its leader): the bytes a phase expects, one
    /// tile of each of its rings.
    bytes: HashMap<i64, i64>,
    /// The barriers of each group (a lone ring is its own), once made.
    barriers: HashMap<i64, IrValue<'c>>,
    /// The tiles of groups requested so far (leader, `tile.ring` index),
    /// in program order.
    asked: HashSet<(i64, i64)>,
}

impl Groups<'_> {
    /// The groups of two or more rings: each ring's leader, and each
    /// leader's bytes a phase ([`super::groups::of`] finds them).
    pub(super) fn new(leaders: HashMap<i64, i64>, bytes: HashMap<i64, i64>) -> Self {
        Self { leaders, bytes, ..Self::default() }
    }

    /// The group ring `id` is in, by its leader (itself when alone).
    pub fn leader(&self, id: i64) -> i64 {
        self.leaders.get(&id).copied().unwrap_or(id)
    }
}

/// The barriers of ring `id`'s slots: its group's, made by the first of
/// its rings to be lowered.
pub fn ring_barriers<'c>(lowering: &mut Lowering<'c>, id: i64, slots: i64) -> Option<IrValue<'c>> {
    let leader = lowering.groups.leader(id);
    if let Some(&barriers) = lowering.groups.barriers.get(&leader) {
        return Some(barriers);
    }
    let barriers = barriers(lowering, slots)?;
    lowering.groups.barriers.insert(leader, barriers);
    Some(barriers)
}

/// Before ring `id`'s first tile in an enclosing loop, which starts it
/// again (a persistent kernel's next tile): its barriers initialised
/// again, so that phases count from zero; once a group, by the first of
/// its rings to ask for the tile (before any of them does).
pub fn restart<'c>(lowering: &Lowering<'c>, at: &At<'c, 'c>, id: i64, barriers: IrValue<'c>, slots: i64) -> Option<()> {
    if lowering.groups.leaders.contains_key(&id) && lowering.groups.asked.contains(&(lowering.groups.leader(id), 0)) {
        return Some(());
    }
    if lowering.multicast.is_some() {
        // Another block may already multicast into the barriers' next
        // phase (`tile-use-tma` multicasts no ring that starts again).
        return lowering.refuse("a ring of a kernel whose rings are multicast starts again in an enclosing loop");
    }
    initialise(lowering, at, barriers, slots, true)
}

/// The bytes `request`'s `mbarrier.arrive.expect_tx` announces: a lone
/// ring's tile; for a group, one tile of each of its rings, announced by
/// the first request of that tile in program order (the group's others
/// then only copy, completing on the phase it opened, from the same
/// thread and on the same condition), `None` for the others.
fn announced(lowering: &mut Lowering, request: &Request) -> Option<i64> {
    let (id, index) = request.ring;
    let groups = &mut lowering.groups;
    match groups.leaders.get(&id) {
        Some(&leader) => groups.asked.insert((leader, index)).then(|| groups.bytes.get(&leader).copied()).flatten(),
        None => Some(request.boxes.rows * request.boxes.columns * request.boxes.bytes),
    }
}

/// Whether this thread is the block's thread `n`.
pub(super) fn is_thread<'c>(lowering: &Lowering<'c>, at: &At<'c, 'c>, n: i64) -> Option<IrValue<'c>> {
    let thread = at.addi(at.muli(lowering.warp, at.index(32)?)?, lowering.lane)?;
    at.cmpi(crate::build::CmpiPredicate::Eq, thread, at.index(n)?)
}

/// A shared-memory address (`index`) as an `!llvm.ptr<3>`.
pub(super) fn pointer<'c>(at: &At<'c, 'c>, address: IrValue<'c>) -> Option<IrValue<'c>> {
    let context = at.context;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let address = at.add(arith::index_cast(address, i64_type, at.location))?;
    at.add(ods::llvm::inttoptr(context, llvm::r#type::pointer(context, 3), address, at.location))
}

/// The thread that requests the tiles: the block's first, or the
/// producer warp's.
fn requester<'c>(lowering: &Lowering<'c>, at: &At<'c, 'c>) -> Option<IrValue<'c>> {
    is_thread(lowering, at, lowering.producer.as_ref().map_or(0, |p| p.consumer_warps * 32))
}

/// The `empty` barrier of the slot tile `t` goes to (a ring of a kernel
/// with a producer warp).
fn empty_barrier<'c>(at: &At<'c, 'c>, barriers: IrValue<'c>, slots: i64, t: IrValue<'c>) -> Option<IrValue<'c>> {
    slot_barrier(at, at.addi(barriers, at.index(slots * BARRIER_BYTES)?)?, slots, t)
}

/// The barrier of the slot tile `t` goes to.
fn slot_barrier<'c>(at: &At<'c, 'c>, barriers: IrValue<'c>, slots: i64, t: IrValue<'c>) -> Option<IrValue<'c>> {
    let (slot, _) = ring_position(at, t, slots)?;
    pointer(at, at.addi(barriers, at.muli(slot, at.index(BARRIER_BYTES)?)?)?)
}

/// `mbarrier.try_wait.parity` until the phase of `parity` is complete.
fn wait_parity<'c>(at: &At<'c, 'c>, barrier: IrValue<'c>, parity: IrValue<'c>) -> Option<()> {
    let i32_type: Type = IntegerType::new(at.context, 32).into();
    let parity = at.add(arith::index_cast(parity, i32_type, at.location))?;
    let ticks = at.int(i32_type, SUSPEND_NS)?;
    at.insert(
        OperationBuilder::new("nvvm.mbarrier.try_wait.parity", at.location)
            .add_operands(&[barrier, parity, ticks])
            .build()
            .ok()?,
    );
    Some(())
}

/// Tile `t`'s slot (`t % slots`) and round (`t / slots`) of a ring, in
/// 32 bits (a mask and a shift for 4 or 8 slots): a ring of 3, 5 or 6
/// slots divides every iteration, and a
/// 64-bit division by a constant is a dozen dependent instructions on the
/// way to each wait and wgmma (BENCHMARKS.md, session 16).
pub fn ring_position<'c>(at: &At<'c, 'c>, t: IrValue<'c>, slots: i64) -> Option<(IrValue<'c>, IrValue<'c>)> {
    let i32_type: Type = IntegerType::new(at.context, 32).into();
    let narrow = at.add(arith::index_castui(t, i32_type, at.location))?;
    let slots = at.int(i32_type, slots)?;
    let slot = at.remui(narrow, slots)?;
    let round = at.divui(narrow, slots)?;
    let wide = |v| at.add(arith::index_castui(v, Type::index(at.context), at.location));
    Some((wide(slot)?, wide(round)?))
}

/// The parity of tile `t`'s phase.
fn parity<'c>(at: &At<'c, 'c>, slots: i64, t: IrValue<'c>) -> Option<IrValue<'c>> {
    at.andi(ring_position(at, t, slots)?.1, at.index(1)?)
}

/// How a tile lies in its slot: `rows` rows of `columns` elements of
/// `bytes` bytes, cut into boxes of `swizzle`-byte rows (one TMA copy
/// each, all the rows), one after the other.
#[derive(Clone, Copy, Debug)]
pub struct Boxes {
    pub rows: i64,
    pub columns: i64,
    pub bytes: i64,
    pub swizzle: i64,
}

impl Boxes {
    /// Elements along a box's row.
    fn per_box(&self) -> i64 {
        self.swizzle / self.bytes
    }
}

/// A tile's request, as `tile.load` makes it: the descriptor, the tile's
/// first element (one coordinate per dim, outermost first), where it goes
/// and how it is laid out there, and which load it is: its ring and
/// index (`tile.ring`'s: one of the first tiles, or `-1`, the loop's).
pub struct Request<'c> {
    pub descriptor: IrValue<'c>,
    pub first: Vec<IrValue<'c>>,
    pub destination: IrValue<'c>,
    pub boxes: Boxes,
    pub ring: (i64, i64),
    /// Every block of the cluster reads the tile: this block asks for its
    /// part of the rows, for all of them.
    pub multicast: Option<Multicast<'c>>,
    /// The parts of its rows the descriptor's box holds (1: all of them).
    pub parts: i64,
}

/// Thread 0 asks the TMA for tile `t` of a ring with `slots` slots whose
/// barriers are at `barriers`, where `wanted` (if given) holds.
///
/// With a producer warp, the whole warp runs the request (`wanted` is
/// warp-uniform there): it waits for the slot's `empty` phase converged,
/// and only its first thread's arrival and copies are predicated on. A
/// branch to that thread alone would put the wait in a divergent region
/// that ptxas enters and leaves every iteration, with the other lanes
/// parked at its end: a tile's turnaround measured a sixth longer
/// (BENCHMARKS.md, session 33, run 1, variant `_b`).
pub fn request<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    request: &Request<'c>,
    (barriers, slots): (IrValue<'c>, i64),
    t: IrValue<'c>,
    wanted: Option<IrValue<'c>>,
) -> Option<()> {
    let bytes = announced(lowering, request);
    let requester = requester(lowering, at)?;
    let producer = lowering.producer.is_some();
    let (condition, predicate) = match (producer, wanted) {
        (true, Some(wanted)) => (wanted, Some(requester)),
        (true, None) => (at.int(Type::parse(at.context, "i1")?, 1)?, Some(requester)),
        (false, Some(wanted)) => (at.andi(requester, wanted)?, None),
        (false, None) => (requester, None),
    };
    let op = if_else_op(
        at,
        condition,
        &[],
        |at| {
            issue(at, request, (barriers, slots), t, bytes, predicate)?;
            Some(vec![])
        },
        |_| Some(vec![]),
    )?;
    if producer {
        // SAFETY: the scf.if just built; only an attribute is added.
        let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
        op.set_attribute(REQUEST, Attribute::unit(at.context));
    }
    Some(())
}

/// The requester's part of [`request`]: with a producer warp (`producer`,
/// whether this is its first thread), first the whole warp's wait for the
/// slot's `empty` phase before tile `t`'s (the previous round's mmas done
/// with it; the first round's counts as complete); then, where it
/// announces the phase's `bytes`, the arrival, and the copies, both
/// predicated on `producer`.
fn issue<'c>(
    at: &At<'c, 'c>,
    request: &Request<'c>,
    (barriers, slots): (IrValue<'c>, i64),
    t: IrValue<'c>,
    bytes: Option<i64>,
    producer: Option<IrValue<'c>>,
) -> Option<()> {
    let context = at.context;
    let i32_type: Type = IntegerType::new(context, 32).into();
    let boxes = request.boxes;
    // (A request that announces nothing follows its group's first of
    // the same tile on the same thread, which waited for the phase.)
    if producer.is_some() && bytes.is_some() {
        let before = at.xori(parity(at, slots, t)?, at.index(1)?)?;
        wait_parity(at, empty_barrier(at, barriers, slots, t)?, before)?;
    }
    let barrier = slot_barrier(at, barriers, slots, t)?;
    if let Some(bytes) = bytes {
        let bytes = at.int(i32_type, bytes)?;
        let mut operands = vec![barrier, bytes];
        operands.extend(producer);
        at.insert(
            OperationBuilder::new("nvvm.mbarrier.arrive.expect_tx", at.location)
                .add_operands(&operands)
                .build()
                .ok()?,
        );
    }
    let per_block = boxes.per_box();
    let rank = request.first.len();
    // A multicast block's part: rows `r * part` on of each box, in every
    // block's slot at once. A tile described in parts that is not
    // multicast: every part, into this block's slot alone.
    let part = boxes.rows / request.parts;
    let first_rows = match request.multicast {
        Some(m) => vec![Some(at.muli(m.rank, at.index(part)?)?)],
        None if request.parts > 1 => (0..request.parts).map(|p| at.index(p * part).map(Some)).collect::<Option<_>>()?,
        None => vec![None],
    };
    let mask = match request.multicast {
        Some(m) => Some(at.int(IntegerType::new(context, 16).into(), (1 << m.blocks) - 1)?),
        None => None,
    };
    for (block, first_row) in (0..boxes.columns / per_block).flat_map(|b| first_rows.iter().map(move |r| (b, *r))) {
        let mut destination = at.addi(request.destination, at.index(block * boxes.rows * boxes.swizzle)?)?;
        if let Some(first_row) = first_row {
            destination = at.addi(destination, at.muli(first_row, at.index(boxes.swizzle)?)?)?;
        }
        // A block's own shared-memory address is also its address in
        // the cluster's window, where the copy's destination lies.
        let destination = at.add(arith::index_cast(destination, IntegerType::new(context, 64).into(), at.location))?;
        let destination =
            at.add(ods::llvm::inttoptr(context, llvm::r#type::pointer(context, 7), destination, at.location))?;
        // Innermost first, as the TMA takes them.
        let mut coordinates = Vec::new();
        for d in (0..rank).rev() {
            let mut coordinate = request.first[d];
            if d == rank - 1 {
                coordinate = at.addi(coordinate, at.index(block * per_block)?)?;
            }
            if let (true, Some(first_row)) = (d == rank - 2, first_row) {
                coordinate = at.addi(coordinate, first_row)?;
            }
            coordinates.push(at.add(arith::index_cast(coordinate, i32_type, at.location))?);
        }
        let mut operands = vec![destination, request.descriptor];
        operands.extend(&coordinates);
        operands.push(barrier);
        operands.extend(mask);
        operands.extend(producer);
        let segments = DenseI32ArrayAttribute::new(
            context,
            &[1, 1, rank as i32, 1, 0, i32::from(mask.is_some()), 0, i32::from(producer.is_some())],
        );
        at.insert(
            OperationBuilder::new("nvvm.cp.async.bulk.tensor.shared.cluster.global", at.location)
                .add_operands(&operands)
                .add_attributes(&[(
                    melior::ir::Identifier::new(context, "operandSegmentSizes"),
                    Attribute::from(segments),
                )])
                .build()
                .ok()?,
        );
    }
    Some(())
}

/// Every consumer thread (where `now`, if given) tells the producer warp
/// that its mmas are done with tile `t` of each of `rings`: an arrival on
/// the slot's `empty` barrier, which counts them all. (No branch on the
/// lane: the arrivals cost less than a divergent path among the wgmmas.)
/// Where the rings are multicast, each consumer warp's lane 0 also
/// arrives on the same barrier of every other block of the cluster
/// (through `mapa`, a branch on the lane): their
/// producers' multicasts write this block's slot too. One arrival a warp
/// suffices there, since the warp's lanes passed the same
/// `wgmma.wait_group`; one a thread made every iteration's release 256
/// remote arrivals, and 128x128 tiles a block ran at 0.8 of the kernel
/// without clusters (BENCHMARKS.md, session 35). The arrival is released
/// at CTA scope, as the local one: what it orders is this block's
/// wgmmas' reads, which `wgmma.wait_group` has seen complete.
pub fn release<'c>(
    at: &At<'c, 'c>,
    rings: &[(IrValue<'c>, i64)],
    t: IrValue<'c>,
    now: Option<IrValue<'c>>,
    multicast: Option<Multicast<'c>>,
) -> Option<()> {
    let condition = match now {
        Some(now) => now,
        None => at.int(melior::ir::Type::parse(at.context, "i1")?, 1)?,
    };
    when(at, condition, |at| {
        for &(barriers, slots) in rings {
            let barrier = empty_barrier(at, barriers, slots, t)?;
            at.insert(
                OperationBuilder::new("nvvm.mbarrier.arrive", at.location).add_operands(&[barrier]).build().ok()?,
            );
            if let Some(Multicast { rank, blocks, lane }) = multicast {
                let first_lane = at.cmpi(crate::build::CmpiPredicate::Eq, lane, at.index(0)?)?;
                when(at, first_lane, |at| {
                    let i32_type: Type = IntegerType::new(at.context, 32).into();
                    for other in 1..blocks {
                        let peer = at.remui(at.addi(rank, at.index(other)?)?, at.index(blocks)?)?;
                        let peer = at.add(arith::index_cast(peer, i32_type, at.location))?;
                        let remote = at.add(
                            OperationBuilder::new("nvvm.mapa", at.location)
                                .add_operands(&[barrier, peer])
                                .add_results(&[llvm::r#type::pointer(at.context, 7)])
                                .build()
                                .ok()?,
                        )?;
                        at.insert(
                            OperationBuilder::new("nvvm.mbarrier.arrive", at.location)
                                .add_operands(&[remote])
                                .build()
                                .ok()?,
                        );
                    }
                    Some(())
                })?;
            }
        }
        Some(())
    })
}

/// Every thread waits for tile `t` of a ring.
pub fn wait<'c>(at: &At<'c, 'c>, (barriers, slots): (IrValue<'c>, i64), t: IrValue<'c>) -> Option<()> {
    wait_parity(at, slot_barrier(at, barriers, slots, t)?, parity(at, slots, t)?)
}

/// The iteration number of `loop` (from 0), at `at` inside its body.
pub fn iteration<'c>(at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>) -> Option<IrValue<'c>> {
    let body = r#loop.region_at(0)?.first_block()?;
    let iv = detach(body.argument_at(0)?.into());
    let (lower, step) = (detach(r#loop.operand_at(0)?), detach(r#loop.operand_at(2)?));
    at.divui(at.subi(iv, lower)?, step)
}

/// The loop that `loop`'s rings continue across, if any: `loop`'s parent,
/// an `scf.for` (a persistent kernel's walk over its tile blocks) around
/// which `loop` runs the same iterations each time (its bounds defined
/// outside it). Tile `t` of `loop` in the parent's iteration `i` is then
/// the ring's tile `i n + t` (`n` the trip count, [`position`]): the slots'
/// barriers keep counting phases from one walk of `loop` to the next, so
/// that nothing needs starting again and a producer warp may ask for the
/// next walk's tiles while the consumers finish this one.
///
/// A walk whose K bounds change from one walk to the next (`tile-stream-k`'s
/// units: a whole tile, or part of one) carries the position of each
/// walk's first tile itself, named by the loop's `tile.ring_base`
/// ([`base`]).
pub fn continued<'c>(r#loop: OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    let outer = r#loop.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for")?;
    if carried_base(r#loop).is_some() {
        return Some(outer);
    }
    let body = outer.region_at(0)?.first_block()?;
    let invariant =
        (0..3).all(|i| r#loop.operand_at(i).is_some_and(|v| crate::rewrite::defined_outside(detach(v), body)));
    invariant.then_some(outer)
}

/// The ring position of `loop`'s first tile in this walk where the walk
/// carries it (`tile.ring_base = i`: the walk's iteration argument `i`,
/// an index, which starts at 0 and grows by each walk's trip count).
fn carried_base<'c>(r#loop: OperationRef<'c, 'c>) -> Option<IrValue<'c>> {
    let index = r#loop.attribute(tile_dialect::attrs::RING_BASE).ok()?;
    let index = usize::try_from(melior::ir::attribute::IntegerAttribute::try_from(index).ok()?.value()).ok()?;
    let outer = r#loop.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for")?;
    let argument = outer.region_at(0)?.first_block()?.argument_at(1 + index)?;
    let argument = detach(argument.into());
    melior::ir::TypeLike::is_index(&melior::ir::ValueLike::r#type(&argument)).then_some(argument)
}

/// `loop`'s trip count (0 where it does not run).
pub fn trips<'c>(at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>) -> Option<IrValue<'c>> {
    let (lower, upper, step) =
        (detach(r#loop.operand_at(0)?), detach(r#loop.operand_at(1)?), detach(r#loop.operand_at(2)?));
    let span = at.subi(upper, lower)?;
    let rounded = at.addi(span, at.subi(step, at.index(1)?)?)?;
    let trips = at.divui(rounded, step)?;
    let runs = at.cmpi(crate::build::CmpiPredicate::Sgt, upper, lower)?;
    at.select(runs, trips, at.index(0)?)
}

/// The ring position of `loop`'s first tile: 0, or `i n` where its rings
/// continue across an enclosing loop ([`continued`]) in its iteration `i`.
pub fn base<'c>(at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>) -> Option<IrValue<'c>> {
    if let Some(carried) = carried_base(r#loop) {
        return Some(carried);
    }
    match continued(r#loop) {
        Some(outer) => at.muli(iteration(at, outer)?, trips(at, r#loop)?),
        None => at.index(0),
    }
}

/// The ring position of tile `t` of `loop` (its iteration `t`, or one of
/// the first tiles, requested before it): [`base`] + `t`.
pub fn position<'c>(at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>, t: IrValue<'c>) -> Option<IrValue<'c>> {
    match continued(r#loop) {
        Some(_) => at.addi(base(at, r#loop)?, t),
        None => Some(t),
    }
}

/// Whether the loop's iteration `distance` ahead of the current one (at
/// `at` in `loop`'s body) runs: the in-loop request of a ring whose
/// requests stop at the loop's end.
pub fn ahead_runs<'c>(at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>, distance: i64) -> Option<IrValue<'c>> {
    let body = r#loop.region_at(0)?.first_block()?;
    let iv = detach(body.argument_at(0)?.into());
    let (upper, step) = (detach(r#loop.operand_at(1)?), detach(r#loop.operand_at(2)?));
    let ahead = at.addi(iv, at.muli(step, at.index(distance)?)?)?;
    at.cmpi(crate::build::CmpiPredicate::Slt, ahead, upper)
}

/// After `loop`, waits for the tiles its ring requested past its end, so
/// that no copy is in flight when the ring's memory is reused or the
/// block exits. The loop's requests stop at its end ([`ahead_runs`]), so
/// those are only the first tiles, requested before the loop, that lie
/// past it: tile `d < distance` where `n <= d`, `n` the trip count (none
/// when the loop runs `distance` times or more).
pub fn drain<'c>(at: &At<'c, 'c>, r#loop: OperationRef<'c, 'c>, ring: (IrValue<'c>, i64), distance: i64) -> Option<()> {
    let trips = trips(at, r#loop)?;
    for d in 0..distance {
        let past = at.cmpi(crate::build::CmpiPredicate::Ule, trips, at.index(d)?)?;
        when(at, past, |at| wait(at, ring, at.index(d)?))?;
    }
    Some(())
}

/// The descriptor argument `index` of the kernel `op` is in, if its
/// `tile.tma` describes `boxes` (one block of swizzled rows, the tile's
/// swizzle) and is not optional: a hand-written `tile.tma_load` naming
/// another descriptor is refused, since the TMA would then deliver other
/// bytes than the slot's barrier expects, as is one naming an optional
/// descriptor, which the runtime may pass as a null pointer.
pub fn descriptor<'c>(op: OperationRef<'c, 'c>, index: usize, boxes: &Boxes) -> Option<IrValue<'c>> {
    described(op, index, boxes).filter(|(_, d)| !d.optional).map(|(value, _)| value)
}

/// [`descriptor`], with what its `tile.tma` says.
pub fn described<'c>(
    op: OperationRef<'c, 'c>,
    index: usize,
    boxes: &Boxes,
) -> Option<(IrValue<'c>, tile_abi::TmaDescriptor)> {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if crate::rewrite::op_name(p) == "func.func" {
            let attrs = melior::ir::attribute::ArrayAttribute::try_from(p.attribute("arg_attrs").ok()?).ok()?;
            let described = crate::abi::read_tma(attrs.element(index).ok()?)??;
            let whole_rows = (boxes.columns * boxes.bytes) % boxes.swizzle == 0;
            let [.., rows, columns] = described.box_shape[..] else { return None };
            let fits = whole_rows
                && i64::from(rows) == boxes.rows
                && i64::from(columns) == boxes.per_box()
                && i64::from(described.swizzle) == boxes.swizzle;
            if !fits {
                return None;
            }
            let value = detach(p.region_at(0)?.first_block()?.argument_at(index)?.into());
            return Some((value, described));
        }
        parent = p.parent_operation();
    }
    None
}

/// `prefetch.tensormap` of each TMA descriptor the kernel takes, by thread
/// 0 first thing: the TMA reads a descriptor from global memory at its
/// first use, so the first tiles' copies (and the first store) would wait
/// for that read before their own.
pub fn prefetch_descriptors<'c>(at: &At<'c, 'c>, kernel: OperationRef<'c, 'c>, thread: IrValue<'c>) -> Option<()> {
    let Some(attrs) =
        kernel.attribute("arg_attrs").ok().and_then(|a| melior::ir::attribute::ArrayAttribute::try_from(a).ok())
    else {
        return Some(());
    };
    let body = kernel.region_at(0)?.first_block()?;
    let i64_type: Type = IntegerType::new(at.context, 64).into();
    let mut pointers = Vec::new();
    for i in 0..attrs.len() {
        if attrs.element(i).ok().and_then(crate::abi::read_tma).is_some() {
            let argument = detach(body.argument_at(i)?.into());
            pointers.push(at.add(ods::llvm::ptrtoint(at.context, i64_type, argument, at.location))?);
        }
    }
    if pointers.is_empty() {
        return Some(());
    }
    let first = at.cmpi(crate::build::CmpiPredicate::Eq, thread, at.index(0)?)?;
    when(at, first, |at| {
        for &pointer in &pointers {
            // (A null pointer is an optional descriptor the runtime could
            // not encode.)
            at.insert(at.asm(
                "{\n\t.reg .pred p;\n\tsetp.ne.b64 p, $0, 0;\n\t@p prefetch.tensormap [$0];\n\t}",
                "l",
                &[pointer],
                None,
            )?);
        }
        Some(())
    })
}
