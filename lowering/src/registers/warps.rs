//! Warp specialisation of a kernel whose mma operands the TMA loads: a
//! producer warp of its own asks for every tile, and the consumer warps
//! only wait for tiles, multiply and give slots back.
//!
//! Without it, one consumer thread requests the tiles and a block-wide
//! barrier before each mma keeps a slot from being refilled while another
//! warpgroup's wgmmas may still read it; an `empty` mbarrier waited for
//! by that thread instead costs a third (BENCHMARKS.md, session 15): the
//! spin sits among the in-flight wgmmas. A warp that does nothing else
//! can wait.
//!
//! The lowering ([`super::tma`], [`super::mma`]) has already written the
//! kernel for both roles: the requests (each an `scf.if` on where the loop
//! runs that far, marked [`REQUEST`], whose arrival and copies are
//! predicated on the producer warp's first thread) wait for their slot's
//! `empty` phase first, the whole warp, and after each mma every consumer thread arrives on the
//! `empty` barrier of the tile its wgmmas are done with (the previous
//! iteration's, when the mma stays in flight), in place of the block
//! barrier before it. [`specialize`] then splits the kernel after its
//! set-up (allocations and barrier initialisation, which every thread
//! runs):
//!
//! ```text
//! before:                          after:
//! set-up; bar.sync                 set-up; bar.sync
//! request tiles 0, 1               scf.if warp >= W (the producer warp)
//! scf.for t                          request tiles 0, 1
//!   request tile t + 2 (t + 2 < n)   scf.for t: request tile t + 2 (t + 2 < n)
//!   wait full[t]; mma; release       (only what the requests need)
//! wait tiles 0, 1 if n <= 0, 1     else (the W consumer warps)
//! store                              scf.for t: wait full[t]; mma; release
//!                                    wait tiles 0, 1 if n <= 0, 1; store
//!                                    (block barriers: bar.sync 1, 32 W)
//! ```
//!
//! The rings of one loop move in step, so they share one set of `full`
//! and `empty` barriers ([`super::groups::of`]), as if a stage held both
//! operands: one request announces the bytes of
//! all, and the consumers give the slot back once an iteration for them.
//! (Measured the same as a set per ring, BENCHMARKS.md, session 16.)
//!
//! The producer's side is a copy of the consumers' with every op the
//! requests do not need erased (their loops keep only the carried values
//! the requests read; the others start from zero and are carried
//! unchanged, which LLVM folds away). The consumers' side loses the
//! requests, and its barriers become a named barrier of the consumer
//! warps, since the producer warp has left.
//!
//! A persistent kernel's ring loop, nested in its walk over the tile
//! blocks, has its rings continue from one walk to the next
//! ([`super::tma::continued`]): the producer warp walks the blocks too,
//! asking for each walk's first tiles inside the walk, and so runs ahead
//! into the next walk while the consumers store this one (faster than
//! the consumers' own requests since the producer's converged wait,
//! BENCHMARKS.md, session 33, run 7; slower before it, session 32, run 8).
//!
//! Caveats: only kernels whose every shared tile is a TMA ring tile of a
//! loop at the kernel's top level or of one whose rings continue across
//! such a loop, each such loop with one `tile.mma` reading two of them,
//! and no cluster whose layouts span its blocks (a sliced cluster's
//! blocks each get one; attention's two mmas read one ring each, beside Q,
//! copied before its loop, and P, in registers; an mma outside the loops,
//! such as the one `tile-pipeline-mma` puts after its loop, keeps the
//! kernel without one); a producer warp
//! holds as many registers as a consumer thread (no `setmaxnreg`, which
//! needs a warpgroup).
//!
//! Where the two consumer warpgroups' accumulators alone take
//! `WARPGROUP_ACCUMULATOR` registers a thread (a 128x256 or 256x128
//! tile), the cap of a block of 288 threads (168: 65536 / 384, a multiple
//! of 8, as ptxas gives each quarter of the multiprocessor three of its
//! nine warps) leaves the consumers short of registers (the persistent
//! variant spilled: BENCHMARKS.md, session 34, run 7). There the
//! producer is a whole warpgroup, whose first warp requests and whose
//! other three leave at once, so that `setmaxnreg` can move registers
//! from it to the consumers (`PRODUCER_REGISTERS`,
//! `CONSUMER_REGISTERS`) (BENCHMARKS.md, session 34, runs 7-8). Only for a loop of one mma:
//! attention d128's S and O together take as many, but do not spill with
//! a producer warp, and a producer warpgroup measured no faster there
//! (run 9).

use super::{Lowering, if_else_op, shared::SharedTile, tma::REQUEST};
use crate::{
    build::{At, CmpiPredicate, tile_type},
    rewrite::{BlockProbe, IrValue, Probe, detach, inside, op_name},
};
use melior::{
    Context,
    dialect::arith,
    ir::{
        Attribute, BlockLike, BlockRef, Identifier, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
};
use std::collections::{HashMap, HashSet};

/// Where the consumers' own requests keep the mma in flight (a spare
/// slot, or none needed: `super::groups::in_flight_rings`) and run two
/// tiles ahead, or one tile ahead of at least this much
/// tensor-core work, a producer warp, unasked, is not used. The work is
/// an iteration's M x N x K bytes of operand, what it costs the tensor
/// cores whatever the element type; this is two 128x128x64 16-bit
/// iterations, one 128x256x64. One tile ahead of a 128x128x64 iteration
/// measured slower without a producer warp, two ahead of it or of a
/// 64x128x32 one faster (BENCHMARKS.md, session 16), and one ahead of a
/// 128x256x64 one faster (session 27).
const AHEAD_WORK: i64 = 2 * 128 * 128 * 128;

/// Registers a thread of the consumers' accumulators (one mma a loop)
/// from which the producer is a warpgroup that gives its registers to the
/// consumers: below it, a producer warp's block keeps all it needs.
const WARPGROUP_ACCUMULATOR: i64 = 128;
/// Registers a thread of a producer warpgroup keeps after `setmaxnreg`,
/// and those the consumers' take: 128 x 40 + 256 x 232 = 64512 of the
/// multiprocessor's 65536.
const PRODUCER_REGISTERS: i64 = 40;
const CONSUMER_REGISTERS: i64 = 232;
/// The same for a stream-K walk (`tile-stream-k`), whose producer keeps
/// the units' bounds and spilled with 40 (BENCHMARKS.md, session 47):
/// 128 x 56 + 256 x 224 = 64512.
const STREAM_K_PRODUCER_REGISTERS: i64 = 56;
const STREAM_K_CONSUMER_REGISTERS: i64 = 224;
const WARPGROUP_THREADS: i64 = 32 * super::mma::WARPGROUP_WARPS;

/// The named barrier the consumer warps meet at (0 is the block's).
const CONSUMER_BARRIER: i64 = 1;

/// A kernel that gets a producer warp (or warpgroup) after its consumer
/// warps.
#[derive(Clone, Debug)]
pub struct Producer {
    pub consumer_warps: i64,
    /// The producer is a warpgroup and registers move to the consumers
    /// (see the module's docs).
    pub warpgroup: bool,
}

/// Whether `kernel` (whose layouts span `cluster` blocks) gets a producer warp
/// (a warpgroup, see the module's docs):
/// every shared tile is loaded by the TMA into a ring, at the kernel's
/// top level or in a loop there, and every mma reads two shared tiles,
/// one mma a loop.
pub fn producer(kernel: OperationRef, cluster: i64) -> Option<Producer> {
    let asked = crate::rewrite::hint(kernel, tile_dialect::attrs::knob::WARP_SPECIALIZE.key);
    if asked == Some(0) {
        return None;
    }
    let threads = crate::to_gpu::block_size(kernel);
    if cluster > 1 || threads % (32 * super::mma::WARPGROUP_WARPS) != 0 || threads + 32 > 1024 {
        return None;
    }
    if cluster_sums(kernel) {
        if asked == Some(1) {
            crate::remarks::missed(
                kernel.location(),
                <super::ConvertTileToRegisters as crate::pass::TilePass>::INFO.argument,
                "ProducerWarp",
                "this kernel asks for a producer warp (warp_specialize = 1), but its blocks sum their \
                 accumulators across the cluster (split_k), at a cluster barrier that every thread of every \
                 block meets once; its consumers request the tiles themselves",
            );
        }
        return None;
    }
    let top = |op: OperationRef| op.parent_operation().is_some_and(|p| op_name(p) == "func.func");
    // A ring loop at the top, or one whose rings continue across a loop at
    // the top (a persistent kernel's walk over its tile blocks, whose
    // every walk the producer runs ahead into).
    let ring_loop = |l: OperationRef| op_name(l) == "scf.for" && (top(l) || super::tma::continued(l).is_some_and(top));
    let in_top_loop = |op: OperationRef| op.parent_operation().is_some_and(ring_loop);
    // A first tile loaded before its loop, at the top or in the walk.
    let before_loop = |op: OperationRef, id: i64| {
        top(op)
            || op.parent_operation().is_some_and(|p| op_name(p) == "scf.for" && top(p))
                && super::rings::ring_loop_after(op, id).is_some_and(|l| super::tma::continued(l).is_some())
    };
    let shared =
        |op: OperationRef, i: usize| op.operand_at(i).is_some_and(|v| SharedTile::of_type(v.r#type()).is_some());
    let (mut fits, mut requests, mut spare, mut walks) = (true, 0, true, false);
    // Rings without the spare slot (`tile-use-tma` took it back, or it did
    // not fit): their mma stays in flight all the same without a producer
    // warp, the block barrier after its wait ([`super::groups::spareless`]).
    let spareless = super::groups::spareless(kernel);
    // The shallowest ring, and the least work of an mma (see AHEAD_WORK).
    let (mut least_distance, mut least_work) = (i64::MAX, i64::MAX);
    // The most registers a consumer thread's accumulator of one mma takes.
    let mut accumulator = 0;
    // The shared tiles' bytes (a ring's slots counted once).
    let mut mmas: HashMap<usize, usize> = HashMap::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        match op_name(op).as_str() {
            "tile.load" if op.result_at(0).is_some_and(|r| SharedTile::of_type(r.r#type()).is_some()) => {
                match super::rings::ring_of(op) {
                    Some([id, distance, index, slots]) if op.has_attribute(tile_dialect::attrs::TMA_LOAD) => {
                        requests += 1;
                        least_distance = least_distance.min(distance);
                        spare &= slots >= distance + 3 || spareless.contains(&id);
                        fits &= if index >= 0 { before_loop(op, id) } else { in_top_loop(op) };
                        walks |= index < 0 && !op.parent_operation().is_some_and(top);
                    }
                    // A tile the consumers copy once, before the loops
                    // (attention's Q), and wait for themselves.
                    None if top(op) && !op.has_attribute(tile_dialect::attrs::TMA_LOAD) => {}
                    _ => fits = false,
                }
            }
            "tile.mma" => {
                // Each operand a shared tile (a ring's, or one copied before
                // the loop) or an A already in wgmma's fragment layout.
                let fragments = || {
                    let layout = |i: usize| crate::layout::layout_of(op.operand_at(i)?).map(|(_, l)| l);
                    let element = tile_type(op.operand_at(0)?.r#type())?.1;
                    Some(super::mma::register_fragments(&layout(0)?, &layout(2)?, element))
                };
                // Or a B in the fragments of an mma computed transposed
                // (`tile-prefetch-fragments`: read from its ring).
                let swapped_b = || {
                    let (m, (shape_b, element)) =
                        (tile_type(op.operand_at(0)?.r#type())?.0[0], tile_type(op.operand_at(1)?.r#type())?);
                    let accumulator = crate::layout::layout_of(op.operand_at(2)?)?.1;
                    let b = crate::layout::layout_of(op.operand_at(1)?)?.1;
                    let (want_c, want_b) =
                        super::mma::swapped_layouts(m, shape_b[1], shape_b[0], accumulator.warps(), element)?;
                    Some(want_c == accumulator && want_b == b)
                };
                let work = || {
                    let (a, element) = tile_type(op.operand_at(0)?.r#type())?;
                    let n = *tile_type(op.operand_at(1)?.r#type())?.0.get(1)?;
                    Some(a.iter().product::<i64>() * n * crate::layout::element_bytes(element))
                };
                least_work = least_work.min(work().unwrap_or(0));
                if let Some((shape, element)) = op.operand_at(2).and_then(|c| tile_type(c.r#type())) {
                    let bytes = shape.iter().product::<i64>() * crate::layout::element_bytes(element);
                    accumulator = accumulator.max(bytes / 4 / threads);
                }
                fits &= (shared(op, 0) || fragments().unwrap_or(false))
                    && (shared(op, 1) || swapped_b().unwrap_or(false))
                    && in_top_loop(op);
                if let Some(parent) = op.parent_operation() {
                    *mmas.entry(parent.to_raw().ptr as usize).or_default() += 1;
                }
            }
            _ => {}
        }
        WalkResult::Advance
    });
    // Unasked, a producer warp only where the consumers' own requests
    // could not run far ahead, or, for a loop of several mmas, where the
    // block has its SM to itself: a block barrier an iteration would keep
    // its warpgroups in step (attention's softmax of one beside the
    // other's wgmmas). Two blocks on an SM go out of step by themselves,
    // and there the producer warps measured slower (BENCHMARKS.md,
    // session 22). And where a persistent kernel's rings continue from
    // one walk to the next (`walks`): only a producer warp asks for the
    // next walk's tiles while the consumers store this one (BENCHMARKS.md,
    // session 34). A kernel declines it with `warp_specialize = 0`.
    let alone = super::shared::alone(kernel);
    let several = mmas.values().any(|&n| n > 1);
    let ahead = spare && (least_distance >= 2 || least_distance.saturating_mul(least_work) >= AHEAD_WORK);
    let wanted = asked == Some(1) || if several { alone } else { !ahead || walks };
    if asked == Some(1) && requests > 0 && !fits {
        crate::remarks::missed(
            kernel.location(),
            <super::ConvertTileToRegisters as crate::pass::TilePass>::INFO.argument,
            "ProducerWarp",
            "this kernel asks for a producer warp (warp_specialize = 1), but not every shared tile is a TMA ring \
             tile of a loop at the kernel's top level (or of one whose rings continue across such a loop) or a \
             tile copied before its loops, or a tile.mma reads other operands than those and wgmma's A fragments \
             in registers; its consumers request the tiles themselves",
        );
    }
    if !(wanted && fits && requests > 0) {
        return None;
    }
    // The register counts are those of two consumer warpgroups: with one,
    // the entry's cap (65536 / 256) would exceed what they take.
    let warpgroup = !several && accumulator >= WARPGROUP_ACCUMULATOR && threads == 2 * WARPGROUP_THREADS;
    Some(Producer { consumer_warps: threads / 32, warpgroup })
}

/// Whether `kernel` sums tiles across its cluster (`tile.cluster_sum`).
pub fn cluster_sums(kernel: OperationRef) -> bool {
    let mut found = false;
    kernel.walk(WalkOrder::PreOrder, |op| {
        found |= op_name(op) == "tile.cluster_sum";
        if found { WalkResult::Interrupt } else { WalkResult::Advance }
    });
    found
}

/// Removes the request marker from every op of `kernel` before it is
/// lowered: the split trusts that only [`super::tma::request`] put it
/// there (a hand-written one would have its op erased while in use).
pub fn clear_markers(kernel: OperationRef) -> Option<()> {
    let name = std::ffi::CString::new(REQUEST).ok()?;
    kernel.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: a live op and a NUL-terminated name that outlives the call.
        unsafe {
            mlir_sys::mlirOperationRemoveAttributeByName(
                op.to_raw(),
                mlir_sys::mlirStringRefCreateFromCString(name.as_ptr()),
            );
        }
        WalkResult::Advance
    });
    Some(())
}

/// Splits the lowered `kernel` after `marker` (the end of its set-up)
/// into the producer's side and the consumers', and makes its blocks a
/// warp larger (a warpgroup, where the producer is one).
pub fn specialize<'c>(
    lowering: &mut Lowering<'c>,
    kernel: OperationRef<'c, 'c>,
    marker: OperationRef<'c, 'c>,
    producer: &Producer,
) -> Option<()> {
    let context = lowering.context;
    let body = kernel.region_at(0)?.first_block()?;
    let terminator = body.terminator()?;
    let at = At::before(context, marker)?;
    // Warp-uniform, and provably so ([`Lowering::warpgroup`]): a branch on
    // the thread would put the consumers' wgmmas after a divergent path,
    // which ptxas serialises.
    let role = at.cmpi(
        CmpiPredicate::Uge,
        lowering.warpgroup()?,
        at.index(producer.consumer_warps / super::mma::WARPGROUP_WARPS)?,
    )?;
    let split = if_else_op(&at, role, &[], |_| Some(vec![]), |_| Some(vec![]))?;
    let consumers = split.region_at(1)?.first_block()?;
    crate::rewrite::move_following(marker, terminator, consumers.terminator()?);
    // SAFETY: mlirOperationClone returns a new op owned by the caller,
    // destroyed below once its else region's body has moved out of it;
    // the clone's uses of values outside it are the original's.
    unsafe {
        let copy = mlir_sys::mlirOperationClone(split.to_raw());
        let from = mlir_sys::mlirOperationGetRegion(copy, 1);
        mlir_sys::mlirRegionTakeBody(split.region_at(0)?.to_raw(), from);
        mlir_sys::mlirOperationDestroy(copy);
    }
    let producer_side = split.region_at(0)?.first_block()?;
    prune(context, producer_side, split)?;
    consumers_only(context, consumers, producer)?;
    // SAFETY: the kernel the pass runs on; only attributes change.
    let mut kernel_mut = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    let mut threads = producer.consumer_warps * 32 + 32;
    if producer.warpgroup {
        threads += WARPGROUP_THREADS - 32;
        give_registers(lowering, producer_side, consumers, producer)?;
        // `setmaxnreg` needs the cap at entry that one block a
        // multiprocessor gives (65536 / the block's threads, rounded down
        // to a multiple of 8).
        kernel_mut.set_attribute("nvvm.minctasm", Attribute::parse(context, "1 : i32")?);
    }
    kernel_mut.set_attribute(tile_dialect::attrs::BLOCK_SIZE, Attribute::parse(context, &format!("{threads} : i64"))?);
    // SAFETY: the marker is a constant nothing uses.
    unsafe { mlir_sys::mlirOperationDestroy(marker.to_raw()) };
    Some(())
}

/// A producer warpgroup's registers to the consumers: its side gives all
/// but [`PRODUCER_REGISTERS`] up, and its warps but the first leave; the
/// consumers' side takes [`CONSUMER_REGISTERS`] first.
fn give_registers<'c>(
    lowering: &Lowering<'c>,
    producer_side: BlockRef<'c, 'c>,
    consumers: BlockRef<'c, 'c>,
    producer: &Producer,
) -> Option<()> {
    let context = lowering.context;
    let set = |at: &At<'c, 'c>, count: i64, action: &str| {
        let op = melior::ir::operation::OperationBuilder::new("nvvm.setmaxregister", at.location)
            .add_attributes(&[
                (Identifier::new(context, "regCount"), Attribute::parse(context, &format!("{count} : i32"))?),
                (Identifier::new(context, "action"), Attribute::parse(context, &format!("#nvvm<action {action}>"))?),
            ])
            .build()
            .ok()?;
        at.insert(op);
        Some(())
    };
    let mut kernel = consumers.parent_operation();
    while let Some(op) = kernel.filter(|op| crate::rewrite::op_name(*op) != "func.func") {
        kernel = op.parent_operation();
    }
    let (producer_registers, consumer_registers) =
        match kernel.is_some_and(|k| k.has_attribute(tile_dialect::attrs::STREAM_K)) {
            true => (STREAM_K_PRODUCER_REGISTERS, STREAM_K_CONSUMER_REGISTERS),
            false => (PRODUCER_REGISTERS, CONSUMER_REGISTERS),
        };
    set(&At::before(context, consumers.first_operation()?)?, consumer_registers, "increase")?;
    let first = producer_side.first_operation()?;
    let at = At::before(context, first)?;
    set(&at, producer_registers, "decrease")?;
    // The requests are the first warp's (their predicate is its first
    // thread). Its index from lane 0, so that ptxas sees the branch
    // warp-uniform, as the role's ([`Lowering::warpgroup`]).
    let i32_type: Type = melior::ir::r#type::IntegerType::new(context, 32).into();
    let warp = at.add(arith::index_cast(lowering.warp, i32_type, at.location))?;
    let warp = super::reduce::shuffle_i32(&at, warp, 0, "idx")?;
    let first_warp = at.cmpi(CmpiPredicate::Eq, warp, at.int(i32_type, producer.consumer_warps)?)?;
    let requests = if_else_op(&at, first_warp, &[], |_| Some(vec![]), |_| Some(vec![]))?;
    let inside = requests.region_at(0)?.first_block()?.terminator()?;
    crate::rewrite::move_following(requests, producer_side.terminator()?, inside);
    Some(())
}

fn ptr(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// What the producer's requests need, found backwards from them.
#[derive(Default)]
struct Needed<'c> {
    /// Ops kept with everything in them.
    whole: HashSet<usize>,
    /// Loops and ifs kept for what is inside, their bodies pruned.
    shells: HashSet<usize>,
    /// The carried values of shell loops that are kept: (loop, index).
    carried: HashSet<(usize, usize)>,
    values: Vec<IrValue<'c>>,
    ops: Vec<OperationRef<'c, 'c>>,
}

impl<'c> Needed<'c> {
    fn shell(&mut self, op: OperationRef<'c, 'c>, split: usize) {
        if ptr(op) == split || !inside(op, split) || self.whole.contains(&ptr(op)) {
            return;
        }
        let name = op_name(op);
        if name != "scf.for" && !(name == "scf.if" && op.result_count() == 0) {
            self.ops.push(op);
            return;
        }
        if !self.shells.insert(ptr(op)) {
            return;
        }
        let bounds = if name == "scf.for" { 3 } else { 1 };
        for i in 0..bounds {
            if let Some(value) = op.operand_at(i) {
                self.values.push(detach(value));
            }
        }
        if let Some(parent) = op.parent_operation() {
            // SAFETY: an op of the kernel, alive while it is.
            self.shell(unsafe { OperationRef::from_raw(parent.to_raw()) }, split);
        }
    }

    fn carry(&mut self, r#loop: OperationRef<'c, 'c>, index: usize, split: usize) -> Option<()> {
        self.shell(r#loop, split);
        if self.carried.insert((ptr(r#loop), index)) {
            self.values.push(detach(r#loop.operand_at(3 + index)?));
            let end = r#loop.region_at(0)?.first_block()?.terminator()?;
            self.values.push(detach(end.operand_at(index)?));
        }
        Some(())
    }

    fn whole(&mut self, op: OperationRef<'c, 'c>, split: usize) {
        if !self.whole.insert(ptr(op)) {
            return;
        }
        let mut operands = Vec::new();
        op.walk(WalkOrder::PreOrder, |nested| {
            self.whole.insert(ptr(nested));
            // SAFETY: values of the kernel's ops, alive while they are.
            operands.extend(nested.operands().map(|v| unsafe { IrValue::from_raw(v.to_raw()) }));
            WalkResult::Advance
        });
        self.values.extend(operands);
        if let Some(parent) = op.parent_operation() {
            // SAFETY: an op of the kernel, alive while it is.
            self.shell(unsafe { OperationRef::from_raw(parent.to_raw()) }, split);
        }
    }

    /// Keeps what defines `value`, if it is inside the producer's side.
    fn value(&mut self, value: IrValue<'c>, split: usize) -> Option<()> {
        // SAFETY: read-only queries of a live value; owners outlive it.
        unsafe {
            let raw = value.to_raw();
            if mlir_sys::mlirValueIsAOpResult(raw) {
                let owner = OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw));
                if !inside(owner, split) {
                    return Some(());
                }
                if op_name(owner) == "scf.for" {
                    let index = mlir_sys::mlirOpResultGetResultNumber(raw) as usize;
                    return self.carry(owner, index, split);
                }
                self.ops.push(owner);
            } else {
                let block = mlir_sys::mlirBlockArgumentGetOwner(raw);
                let parent = mlir_sys::mlirBlockGetParentOperation(block);
                if parent.ptr.is_null() {
                    return Some(());
                }
                let parent = OperationRef::from_raw(parent);
                if !inside(parent, split) {
                    return Some(());
                }
                let number = mlir_sys::mlirBlockArgumentGetArgNumber(raw) as usize;
                match (op_name(parent).as_str(), number) {
                    ("scf.for", 0) => self.shell(parent, split),
                    ("scf.for", n) => self.carry(parent, n - 1, split)?,
                    _ => self.ops.push(parent),
                }
            }
        }
        Some(())
    }
}

/// Erases from the producer's side (`block`, in `split`) everything its
/// requests do not need.
fn prune<'c>(context: &'c Context, block: BlockRef<'c, 'c>, split: OperationRef<'c, 'c>) -> Option<()> {
    let split_ptr = ptr(split);
    let mut all = Vec::new();
    let mut requests = Vec::new();
    for op in operations(block) {
        op.walk(WalkOrder::PreOrder, |nested| {
            // SAFETY: ops of the kernel, alive until erased below.
            let nested = unsafe { OperationRef::from_raw(nested.to_raw()) };
            if nested.has_attribute(REQUEST) {
                requests.push(nested);
            }
            all.push(nested);
            WalkResult::Advance
        });
    }
    let mut needed = Needed::default();
    needed.ops.extend(requests.iter().copied());
    loop {
        if let Some(op) = needed.ops.pop() {
            needed.whole(op, split_ptr);
        } else if let Some(value) = needed.values.pop() {
            needed.value(value, split_ptr)?;
        } else {
            break;
        }
    }
    // The carried values no request reads: zero, carried unchanged.
    for &op in &all {
        if op_name(op) != "scf.for" || !needed.shells.contains(&ptr(op)) {
            continue;
        }
        let body = op.region_at(0)?.first_block()?;
        let end = body.terminator()?;
        // SAFETY: the loop and its yield are alive; only operands change.
        let (mut op_mut, mut end_mut) =
            unsafe { (OperationRefMut::from_raw(op.to_raw()), OperationRefMut::from_raw(end.to_raw())) };
        for i in 0..op.result_count() {
            if needed.carried.contains(&(ptr(op), i)) {
                continue;
            }
            let argument = body.argument_at(i + 1)?;
            end_mut.set_operand(i, argument.into());
            let at = At::before(context, op)?;
            op_mut.set_operand(3 + i, zero(&at, argument.r#type())?);
        }
    }
    let kept = |op: OperationRef| needed.whole.contains(&ptr(op)) || needed.shells.contains(&ptr(op));
    let mut erase = Vec::new();
    for &op in &all {
        let parent_kept = op.parent_operation().is_some_and(|p| ptr(p) == split_ptr || kept(p));
        let terminator = op.next_in_block().is_none();
        if parent_kept && !terminator && !kept(op) {
            erase.push(op);
        }
    }
    for op in erase.into_iter().rev() {
        // SAFETY: no kept op uses it (what they use was kept), and every
        // other user comes after it in program order, erased already.
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    for op in requests {
        let name = std::ffi::CString::new(REQUEST).ok()?;
        // SAFETY: a live op and a NUL-terminated name that outlives the call.
        unsafe {
            mlir_sys::mlirOperationRemoveAttributeByName(
                op.to_raw(),
                mlir_sys::mlirStringRefCreateFromCString(name.as_ptr()),
            );
        }
    }
    Some(())
}

/// The consumers' side (`block`): no requests, and the block's barriers
/// become the consumer warps' named barrier.
fn consumers_only<'c>(context: &'c Context, block: BlockRef<'c, 'c>, producer: &Producer) -> Option<()> {
    let (mut requests, mut barriers) = (Vec::new(), Vec::new());
    for op in operations(block) {
        op.walk(WalkOrder::PreOrder, |nested| {
            // SAFETY: ops of the kernel, alive until erased below.
            let nested = unsafe { OperationRef::from_raw(nested.to_raw()) };
            if nested.has_attribute(REQUEST) {
                requests.push(nested);
            } else if op_name(nested) == "gpu.barrier" {
                barriers.push(nested);
            }
            WalkResult::Advance
        });
    }
    let i32_type: Type = melior::ir::r#type::IntegerType::new(context, 32).into();
    for barrier in barriers {
        let at = At::before(context, barrier)?;
        let id = at.int(i32_type, CONSUMER_BARRIER)?;
        let threads = at.int(i32_type, producer.consumer_warps * 32)?;
        let named = melior::ir::operation::OperationBuilder::new("nvvm.barrier", at.location)
            .add_operands(&[id, threads])
            .build()
            .ok()?;
        at.insert(crate::build::with_segments(named, context, &[1, 1, 0])?);
        requests.push(barrier);
    }
    for op in requests {
        // SAFETY: a request has no results and a barrier none either;
        // nothing refers to them.
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    }
    Some(())
}

/// The ops of `block`, in order.
fn operations<'c>(block: BlockRef<'c, 'c>) -> Vec<OperationRef<'c, 'c>> {
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        // SAFETY: ops of a live block.
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        ops.push(op);
        next = op.next_in_block();
    }
    ops
}

/// A zero of `r#type` (an integer, index or float, or a vector of them).
fn zero<'c>(at: &At<'c, 'c>, r#type: Type<'c>) -> Option<IrValue<'c>> {
    let element = crate::build::element_of(r#type).unwrap_or(r#type);
    let literal = if element.is_integer() || element.is_index() { "0" } else { "0.0" };
    let text =
        if super::is_vector(r#type) { format!("dense<{literal}> : {type}") } else { format!("{literal} : {type}") };
    let value = Attribute::parse(at.context, &text)?;
    at.add(arith::constant(at.context, value, at.location))
}
