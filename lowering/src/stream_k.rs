//! `tile-stream-k`: a persistent variant asked for `stream_k = 1` shares
//! the K iterations of its last tiles out evenly among its blocks, so that
//! a last wave of tiles that would leave multiprocessors idle does not.
//!
//! Summary: `tile-persist-blocks` gives each of `G` resident blocks the
//! tiles `b, b + G, ...` below `T`. Where `T` is not a multiple of `G`, the
//! last wave keeps some blocks idle. This pass keeps the first `D` tiles a
//! tile a block (the whole waves; the runtime's
//! `tile_abi::StreamK::schedule` chooses `D`: all `T` where the last wave
//! is at least half full, which sharing made slower), and divides the
//! `R = (T - D) nk` K iterations of the others (`nk` the K loop's trip
//! count) into `G` contiguous ranges, `[D nk + b q + min(b, r), ... + q +
//! (b < r))` for block `b` (`q`, `r` = `R / G`, `R % G`). Each block then
//! walks units: its whole tiles, then the pieces of tiles its range
//! covers, each the K loop over the piece's iterations. A piece that does
//! not start at its tile's first iteration publishes its accumulator
//! (`tile.partial_store` into the workspace's slot `b`: a block has at most
//! one such piece, the first of its range); the piece that does adds the
//! other pieces' accumulators (`tile.partial_sum` over the slots of the
//! blocks after it whose ranges reach into the tile) and runs the
//! program's epilogue. The walk carries the ring position of each unit's
//! first K tile (`tile.ring_base`), since the units' K loops differ in
//! length.
//!
//! Before (after `tile-persist-blocks`):
//! ```mlir
//! scf.for %v = %b to %T step %g {
//!   ... %bm, %bn from %v; the first ring tiles at %k = 0 ...
//!   %acc:3 = scf.for %k = %c0 to %nk step %c1 iter_args(%a = %zero, ...) { ... tile.mma ... }
//!   ... epilogue of %acc#0; tile.store ...
//! }
//! ```
//! After (`%ws: memref<?xf32>`, `%flags: memref<?xi32>` and the
//! schedule's seven `index`es ([`SCHEDULE`]) inserted before the program's
//! grid; `tile.stream_k = array<i64: elements of a slot, and the argument,
//! dim and tile size the K loop counts>`):
//! ```mlir
//! %units, ... = (the block's whole tiles and pieces)
//! scf.for %j = %c0 to %units step %c1 iter_args(%pos = %c0) -> (index) {
//!   %t, %k0, %k1 = (unit %j's tile and K range)
//!   ... %bm, %bn from %t; the first ring tiles at K tile %k0 ...
//!   %acc:3 = scf.for %i = %c0 to %k1 - %k0 step %c1 iter_args(...) {    // K tile %k0 + %i
//!     ...
//!   } {tile.ring_base = 0}
//!   scf.if %owner {                                   // %k0 == 0
//!     %sum = tile.partial_sum %acc#0, %ws[%next to %last], %flags
//!     ... epilogue of %sum ...
//!   } else {
//!     tile.partial_store %acc#0, %ws[%b], %flags
//!   }
//!   scf.yield %pos + (%k1 - %k0)
//! }
//! ```
//!
//! The sum adds the pieces in slot order, which is K order, so a result
//! does not depend on timing; it differs from one block's sum of the same
//! products in rounding only. A block waits only for blocks after it, each
//! of which publishes its piece before it waits for anything, and every
//! block is resident (the persistent launch), so no block waits for ever.
//!
//! Caveats: only a variant of `tile-persist-blocks` (`tile.persistent`,
//! not in clusters) whose walk body holds one K loop with the mma, from 0
//! by 1 over a view's tile count fixed across the walk, carrying an f32
//! accumulator that starts at zero and ring tiles, and whose other results
//! nothing reads; the epilogue is every op after that loop. Otherwise the
//! variant stays a tile a block, with a remark (`StreamKNotApplied`).
//! Where the runtime shares nothing (whole waves, a last wave at least
//! half full, fewer tiles than blocks), every unit is a whole tile and
//! nothing is published, at the cost of the bookkeeping (1.4-2.2%,
//! BENCHMARKS.md, session 47). The runtime holds the workspace (a slot
//! and a flag for each launched block, flags zero at the first launch;
//! the kernel leaves them zero).

use crate::{
    build::{At, CmpiPredicate},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, defining_op, detach, op_name},
};
use melior::{
    ContextRef,
    ir::{
        Block, BlockLike, OperationRef, Region, RegionLike, Type, TypeLike, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut},
        r#type::{IntegerType, MemRefType},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::{attrs, ops};

/// The schedule's numbers the runtime passes a stream-K variant after its
/// workspace and flags, in this order (`tile_abi::StreamK::schedule`).
pub const SCHEDULE: [&str; 7] = [
    "whole tiles (D): those before the shared ones",
    "D / G: whole tiles every block takes",
    "D % G: the blocks that take one more",
    "q = R / G: shared iterations every block takes (R = (T - D) nk)",
    "r = R % G: the blocks that take one more",
    "m: the magic number that divides by nk",
    "s: its shift (n / nk = (n m) >> s for n < 2^31)",
];

/// The `tile-stream-k` pass.
#[derive(Clone, Default)]
pub struct StreamK;

impl TilePass for StreamK {
    const INFO: PassInfo = PassInfo {
        argument: "tile-stream-k",
        name: "TileStreamK",
        summary: "Share the K iterations of a persistent variant's last tiles (stream_k = 1) evenly among its \
                  blocks, the pieces of a tile summed through a workspace by the block that runs its first",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for StreamK {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let asked = operation.has_attribute(attrs::VARIANT_OF)
            && crate::rewrite::hint(operation, attrs::knob::STREAM_K.key) == Some(1);
        if !asked || operation.has_attribute(attrs::STREAM_K) {
            return;
        }
        // SAFETY: the op outlives the pass run, and so does its context.
        let variant = unsafe { OperationRef::from_raw(operation.to_raw()) };
        let plan = match operation.has_attribute(attrs::PERSISTENT) {
            true => Plan::of(variant),
            false => Err("its blocks do not walk the tiles (persistent = 1, tile-persist-blocks)"),
        };
        let plan = match plan {
            Ok(plan) => plan,
            Err(why) => {
                let name = crate::rewrite::symbol_label(variant);
                crate::remarks::missed(
                    variant.location(),
                    Self::INFO.argument,
                    "StreamKNotApplied",
                    &format!("variant{name} keeps whole tiles a block (stream_k = 1 not applied): {why}"),
                );
                return;
            }
        };
        let context = operation.context();
        // SAFETY: the context outlives the pass run, and `context` (the
        // handle the reference points into) outlives its use below.
        let context = unsafe { context.to_ref() };
        if rewrite(context, variant, &plan).is_none() {
            crate::rewrite::emit_error(operation.location(), "tile-stream-k: could not rewrite this variant");
            pass.signal_failure();
        }
    }
}

/// What the rewrite works on.
struct Plan<'c> {
    walk: OperationRef<'c, 'c>,
    k_loop: OperationRef<'c, 'c>,
    /// The tile's elements (a workspace slot).
    elements: i64,
    /// The K loop's trip count: the tiles of argument `[0]` along dim
    /// `[1]`, `[2]` elements a tile.
    trips: [i64; 3],
    /// The first ring tiles, before the K loop: each with its ring's load in
    /// the loop and which first tile it is.
    first_tiles: Vec<(OperationRef<'c, 'c>, OperationRef<'c, 'c>, i64)>,
}

fn constant_index(value: IrValue) -> Option<i64> {
    let op = defining_op(value)?;
    (op_name(op) == "arith.constant")
        .then(|| op.attribute("value").ok())
        .flatten()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .map(|a| a.value())
}

fn ring_of(op: OperationRef) -> Option<Vec<i64>> {
    let ring = op.attribute(crate::prefetch::RING).ok()?;
    let ring = melior::ir::attribute::DenseI64ArrayAttribute::try_from(ring).ok()?;
    (0..ring.len()).map(|i| ring.element(i).ok()).collect()
}

impl<'c> Plan<'c> {
    fn of(variant: OperationRef<'c, 'c>) -> Result<Self, &'static str> {
        let entry = variant.region_at(0).and_then(|r| r.first_block()).ok_or("it has no body")?;
        let mut walks = Vec::new();
        let mut next = entry.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let from = |i: usize, name: &str| {
                op.operand_at(i).and_then(|v| defining_op(detach(v))).is_some_and(|d| op_name(d) == name)
            };
            if op_name(op) == "scf.for" && from(0, "tile.block_id") && from(2, "tile.num_blocks") {
                // SAFETY: an op of the variant, which outlives the pass.
                walks.push(unsafe { OperationRef::from_raw(op.to_raw()) });
            }
        }
        let [walk] = walks[..] else { return Err("it does not walk its tiles in one loop") };
        if crate::registers::cluster::blocks(variant) > 1 {
            // Its blocks' ids are the clusters', and a cluster's blocks
            // would share a slot.
            return Err("its blocks run as clusters");
        }
        if walk.result_count() != 0 {
            return Err("its walk carries values");
        }
        let body = walk.region_at(0).and_then(|r| r.first_block()).ok_or("its walk has no body")?;
        let mut k_loops = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let mut mma = false;
            op.walk(melior::ir::operation::WalkOrder::PreOrder, |inner| {
                mma |= op_name(inner) == "tile.mma";
                melior::ir::operation::WalkResult::Advance
            });
            if mma {
                // SAFETY: as above.
                k_loops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
            }
        }
        let [k_loop] = k_loops[..] else { return Err("its tile's mmas are not in one loop") };
        if op_name(k_loop) != "scf.for" {
            return Err("its tile's mmas are not in one loop");
        }
        let operand = |i: usize| k_loop.operand_at(i).map(detach).ok_or("its K loop has no bounds");
        if constant_index(operand(0)?) != Some(0) || constant_index(operand(2)?) != Some(1) {
            return Err("its K loop does not run from 0 by 1");
        }
        if !crate::rewrite::defined_outside(operand(1)?, body) {
            return Err("its K loop's trip count changes from one tile to the next");
        }
        if k_loop.result_count() == 0 {
            return Err("its K loop carries no accumulator");
        }
        let init = operand(3)?;
        let zero =
            defining_op(init).filter(|d| op_name(*d) == "arith.constant").and_then(|d| d.attribute("value").ok());
        // A splat of zero (each piece starts from it, and its sum is the
        // pieces' sum).
        let is_zero = zero.is_some_and(|z| {
            let text = z.to_string();
            ["dense<0.000000e+00> ", "dense<-0.000000e+00> "].iter().any(|p| text.starts_with(p))
        });
        if !is_zero {
            return Err("its accumulator does not start at zero");
        }
        let (shape, element) = crate::build::tile_type(init.r#type()).ok_or("its accumulator is not a tile")?;
        if !element.is_f32() {
            return Err("its accumulator is not f32");
        }
        for i in 1..k_loop.result_count() {
            if k_loop.result_at(i).is_some_and(|r| !crate::rewrite::unused(r.into())) {
                return Err("its K loop gives more than the accumulator");
            }
            // Only ring tiles (recomputed at each piece's start) besides
            // the accumulator: any other carried value would start each
            // piece where the tile's first iteration does.
            let ring_tile = operand(3 + i)
                .ok()
                .and_then(defining_op)
                .is_some_and(|d| op_name(d) == "tile.load" && ring_of(d).is_some());
            if !ring_tile {
                return Err("its K loop carries more than the accumulator and its ring tiles");
            }
        }
        let k_body = k_loop.region_at(0).and_then(|r| r.first_block()).ok_or("its K loop has no body")?;
        let mut first_tiles = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            if op.to_raw().ptr == k_loop.to_raw().ptr {
                break;
            }
            next = op.next_in_block();
            let Some(ring) = ring_of(op).filter(|_| op_name(op) == "tile.load") else { continue };
            let index = *ring.get(2).ok_or("a first ring tile has no index")?;
            let mut in_loop = None;
            let mut inner = k_body.first_operation();
            while let Some(candidate) = inner {
                inner = candidate.next_in_block();
                if op_name(candidate) == "tile.load"
                    && ring_of(candidate).is_some_and(|r| r[0] == ring[0] && r[2] == -1)
                {
                    // SAFETY: as above.
                    in_loop = Some(unsafe { OperationRef::from_raw(candidate.to_raw()) });
                }
            }
            let in_loop = in_loop.ok_or("a first ring tile has no load in the K loop")?;
            // SAFETY: as above.
            first_tiles.push((unsafe { OperationRef::from_raw(op.to_raw()) }, in_loop, index));
        }
        // The K loop's trip count as the runtime computes it: the tiles of
        // an argument's view along one dim.
        let counted = defining_op(operand(1)?).filter(|d| op_name(*d) == "tile.num_tiles");
        let counted = counted.ok_or("its K loop's trip count is not a view's tile count")?;
        let dim = counted
            .attribute("dim")
            .ok()
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map(|a| a.value())
            .ok_or("its K loop's trip count is not a view's tile count")?;
        let view = counted.operand_at(0).map(detach).ok_or("its K loop's trip count is not a view's tile count")?;
        let tile = tile_dialect::types::PartitionViewType::try_from_type(view.r#type())
            .and_then(|v| v.shape().get(usize::try_from(dim).ok()?).copied())
            .ok_or("its K loop's trip count is not a view's tile count")?;
        let source = defining_op(view)
            .filter(|d| op_name(*d) == "tile.partition_view")
            .and_then(|d| d.operand_at(0))
            .ok_or("its K loop counts the tiles of a view that is not of an argument")?;
        let argument = (0..entry.argument_count())
            .find(|&i| entry.argument_at(i).is_some_and(|a| a.to_raw().ptr == source.to_raw().ptr))
            .ok_or("its K loop counts the tiles of a view that is not of an argument")?;
        Ok(Plan { walk, k_loop, elements: shape.iter().product(), trips: [argument as i64, dim, tile], first_tiles })
    }
}

/// The rewrite (see the module's summary).
fn rewrite<'c>(context: &'c melior::Context, variant: OperationRef<'c, 'c>, plan: &Plan<'c>) -> Option<()> {
    let location = variant.location();
    let f32_type = Type::float32(context);
    let i32_type: Type = IntegerType::new(context, 32).into();
    let workspace_type: Type = MemRefType::new(f32_type, &[i64::MIN], None, None).into();
    let flags_type: Type = MemRefType::new(i32_type, &[i64::MIN], None, None).into();
    // Before the program's grid, which stays the last argument.
    let grid_argument = variant.region_at(0)?.first_block()?.argument_count().checked_sub(1)?;
    // The schedule's numbers, which the runtime computes for the launch
    // (`tile_abi::StreamK`): computed here, their divisions (by the grid,
    // by the K loop's trip count) ran on the threads' datapath, and ptxas
    // then kept the walk's ring position and the K loop's trip count, and
    // so the wgmma descriptors, off the uniform datapath (BENCHMARKS.md,
    // session 47). Here only products, sums, minima and shifts.
    let index = Type::index(context);
    let mut types = vec![workspace_type, flags_type];
    types.extend([index; SCHEDULE.len()]);
    let arguments = crate::abi::insert_arguments(context, variant, grid_argument, &types)?;
    let [workspace, flags, whole, own_quotient, own_remainder, share, share_remainder, magic, shift] =
        arguments.iter().map(|&v| detach(v)).collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let walk = plan.walk;
    let (block, blocks) = (detach(walk.operand_at(0)?), detach(walk.operand_at(2)?));
    let nk = detach(plan.k_loop.operand_at(1)?);

    // The units, before the walk.
    let at = At::before(context, walk)?;
    let (zero, one) = (at.index(0)?, at.index(1)?);
    let below = |at: &At<'c, 'c>, a: IrValue<'c>, b: IrValue<'c>| -> Option<IrValue<'c>> {
        let is = at.cmpi(CmpiPredicate::Ult, a, b)?;
        at.select(is, one, zero)
    };
    // Exact for n < 2^31 (the runtime's magic number and shift).
    let divide = |at: &At<'c, 'c>, n: IrValue<'c>| -> Option<IrValue<'c>> { at.shrui(at.muli(n, magic)?, shift) };
    let own_whole = at.addi(own_quotient, below(&at, block, own_remainder)?)?;
    let first_shared = at.muli(whole, nk)?;
    let start = at.addi(first_shared, at.addi(at.muli(block, share)?, at.minui(block, share_remainder)?)?)?;
    let end = at.addi(start, at.addi(share, below(&at, block, share_remainder)?)?)?;
    let first_tile = divide(&at, start)?;
    let pieces = {
        let any = at.cmpi(CmpiPredicate::Ugt, end, start)?;
        // ceil(end / nk) as (end - 1) / nk + 1, its numerator below 2^31.
        let past = at.addi(divide(&at, at.subi(end, one)?)?, one)?;
        at.select(any, at.subi(past, first_tile)?, zero)?
    };
    let units = at.addi(own_whole, pieces)?;

    // The new walk, carrying the ring position.
    let region = Region::new();
    let new_body =
        region.append_block(Block::new(&[(Type::index(context), location), (Type::index(context), location)]));
    let unit = detach(new_body.argument_at(0)?.into());
    let position = detach(new_body.argument_at(1)?.into());
    let new_walk = at.insert(
        OperationBuilder::new("scf.for", location)
            .add_operands(&[zero, units, one, zero])
            .add_results(&[Type::index(context)])
            .add_regions([region])
            .build()
            .ok()?,
    );
    let new_body = new_walk.region_at(0)?.first_block()?;
    let head = At { context, location, block: new_body, before: None };
    let is_whole = head.cmpi(CmpiPredicate::Ult, unit, own_whole)?;
    let tile = head.select(
        is_whole,
        head.addi(block, head.muli(unit, blocks)?)?,
        head.addi(first_tile, head.subi(unit, own_whole)?)?,
    )?;
    let tile_start = head.muli(tile, nk)?;
    let k0 = head.select(is_whole, zero, head.subi(head.maxsi(start, tile_start)?, tile_start)?)?;
    let k1 = head.select(is_whole, nk, head.subi(head.minui(end, head.addi(tile_start, nk)?)?, tile_start)?)?;
    // (Here, before the first tiles, whose requests ask the trip count.)
    let span = head.subi(k1, k0)?;
    let yield_at = head.insert(melior::dialect::scf::r#yield(&[head.addi(position, span)?], location));

    // The old walk's body moves in, its block index the unit's tile.
    let old_body = walk.region_at(0)?.first_block()?;
    let old_iv = old_body.argument_at(0)?;
    // SAFETY: both values are live; the old walk is erased below.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old_iv.to_raw(), tile.to_raw()) };
    let mut next = old_body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(op) == "scf.yield" {
            break;
        }
        // SAFETY: a live op of the old walk, moved before the new walk's
        // yield, keeping its order.
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), yield_at.to_raw()) };
    }
    // SAFETY: the old walk is now empty but for its yield, and unused.
    unsafe { mlir_sys::mlirOperationDestroy(walk.to_raw()) };

    // The K loop over the unit's range, from 0: its iteration `i` loads K
    // tile `k0 + i`, and its first tiles are the range's first. (With the
    // loop's bounds `k0` and `k1` the consumers kept `k0` live across the
    // loop, and the whole-tile walk ran 12% slower: BENCHMARKS.md, session
    // 47.)
    // SAFETY: the K loop is live; only an operand and an attribute change.
    let mut k_loop = unsafe { OperationRefMut::from_raw(plan.k_loop.to_raw()) };
    k_loop.set_operand(1, span);
    k_loop.set_attribute(attrs::RING_BASE, IntegerAttribute::new(Type::index(context), 0).into());
    let k_body = plan.k_loop.region_at(0)?.first_block()?;
    let k_iv = k_body.argument_at(0)?;
    let shifted = At::before(context, k_body.first_operation()?)?.addi(detach(k_iv.into()), k0)?;
    let shift = defining_op(shifted)?;
    // SAFETY: both values are live; the shift itself keeps reading the
    // induction variable (set back below).
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(k_iv.to_raw(), shifted.to_raw()) };
    // SAFETY: the shift is live; only its operand changes.
    unsafe { OperationRefMut::from_raw(shift.to_raw()) }.set_operand(0, detach(k_iv.into()));
    for &(first, in_loop, index) in &plan.first_tiles {
        let distance = ring_of(first)?.get(1).copied()?;
        let at = At::before(context, first)?;
        let iv_value = at.index(index - distance)?;
        let fresh = crate::prefetch::load_at(context, &at, in_loop, k_body, k_iv.into(), iv_value)?;
        let fresh_op = defining_op(fresh)?;
        // SAFETY: the fresh load was just built; it takes the old one's marks.
        let mut fresh_mut = unsafe { OperationRefMut::from_raw(fresh_op.to_raw()) };
        for name in [crate::prefetch::RING, attrs::TMA_LOAD] {
            if let Ok(value) = first.attribute(name) {
                fresh_mut.set_attribute(name, value);
            }
        }
        // SAFETY: both values are live; the old load is erased right after.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(first.result_at(0)?.to_raw(), fresh.to_raw());
            mlir_sys::mlirOperationDestroy(first.to_raw());
        }
    }

    // The epilogue in the owner's branch, after the pieces' sum.
    let accumulator = plan.k_loop.result_at(0)?;
    // Computed after the K loop, so that nothing more is live across it
    // than the tile and its range.
    let after = At { context, location, block: new_body, before: plan.k_loop.next_in_block() };
    let owner = after.cmpi(CmpiPredicate::Eq, k0, zero)?;
    let ends = after.cmpi(CmpiPredicate::Eq, k1, nk)?;
    // The block whose range holds the tile's last iteration `g` (counted
    // from the first shared one): the first `r` blocks take `q + 1`, the
    // others `q`. (Divisions here, after the K loop, keep nothing off the
    // uniform datapath that the loop uses.)
    let last_iteration = after.subi(after.subi(after.addi(tile_start, nk)?, first_shared)?, one)?;
    let last_block = {
        let longer = after.addi(share, one)?;
        let in_longer = after.muli(share_remainder, longer)?;
        let early = after.cmpi(CmpiPredicate::Ult, last_iteration, in_longer)?;
        let late = after
            .addi(share_remainder, after.divui(after.subi(last_iteration, in_longer)?, after.maxsi(share, one)?)?)?;
        after.select(early, after.divui(last_iteration, longer)?, late)?
    };
    let next_block = after.addi(block, one)?;
    let has_peers = after.andi(owner, after.xori(ends, after.int(IntegerType::new(context, 1).into(), 1)?)?)?;
    let peers_end = after.select(has_peers, after.addi(last_block, one)?, next_block)?;
    let regions = [Region::new(), Region::new()];
    let then_block = regions[0].append_block(Block::new(&[]));
    let else_block = regions[1].append_block(Block::new(&[]));
    let then_yield = then_block.append_operation(melior::dialect::scf::r#yield(&[], location));
    else_block.append_operation(melior::dialect::scf::r#yield(&[], location));
    let [then_region, else_region] = regions;
    let branch = after.insert(melior::dialect::scf::r#if(owner, &[], then_region, else_region, location));
    let acc_value = detach(accumulator.into());
    let then_at = At::before(context, then_yield)?;
    let sum: IrValue = then_at.add(ops::partial_sum(
        context,
        acc_value.r#type(),
        acc_value,
        workspace,
        next_block,
        peers_end,
        flags,
        location,
    ))?;
    // The epilogue's readers (the accumulator's only ones, nested ones
    // too) read the sum; the sum itself reads the accumulator, as does the
    // other branch's publication, built after.
    // SAFETY: both values are live; the sum's operand is set back below.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(acc_value.to_raw(), sum.to_raw()) };
    // SAFETY: the sum is live; only its operand changes.
    unsafe { OperationRefMut::from_raw(defining_op(sum)?.to_raw()) }.set_operand(0, acc_value);
    let else_block = branch.region_at(1)?.first_block()?;
    let else_at = At::before(context, else_block.terminator()?)?;
    else_at.insert(ops::partial_store(context, acc_value, workspace, block, flags, location));
    // Every op after the branch but the walk's yield moves into its
    // first region.
    let mut next = branch.next_in_block();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.to_raw().ptr == yield_at.to_raw().ptr {
            break;
        }
        // SAFETY: a live op of the walk, moved before the branch's yield.
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), then_yield.to_raw()) };
    }

    // SAFETY: the variant is live; only attributes change.
    let mut variant = unsafe { OperationRefMut::from_raw(variant.to_raw()) };
    let [argument, dim, tile] = plan.trips;
    variant.set_attribute(
        attrs::STREAM_K,
        melior::ir::attribute::DenseI64ArrayAttribute::new(context, &[plan.elements, argument, dim, tile]).into(),
    );
    Some(())
}
