//! `tile-prefetch-loads`: a loop's tile loads issued iterations ahead.
//!
//! Summary: in an `scf.for` of a kernel on the register path, every
//! `tile.load` at the top of the body whose coordinates follow from the
//! induction variable (values from outside the loop, the variable, and
//! `arith` ops on them) is issued [`DISTANCE`] iterations ahead: the first
//! tiles are loaded before the loop, each iteration loads the tile of
//! iteration `i + DISTANCE` and uses the one loaded earlier, which the
//! loop carries (in registers, once lowered). The loads of one iteration
//! then overlap the work of the ones before, as a software pipeline does.
//!
//! Before:
//! ```mlir
//! %s = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) {
//!   %x = tile.load %v[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
//!   ...
//! }
//! ```
//! After (two ahead, as `num_stages = 3` asks; one ahead by default):
//! ```mlir
//! %x0 = tile.load %v[%lb, %j]
//! %x1 = tile.load %v[%lb + 1, %j]
//! %s:3 = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z, %cur = %x0, %nxt = %x1) -> (...) {
//!   %x2 = tile.load %v[%i + 2, %j]
//!   ... uses of %x are uses of %cur ...
//!   scf.yield ..., %nxt, %x2
//! }
//! ```
//!
//! Why it is safe: a load at any coordinate is defined (out-of-bounds
//! elements are padding), so the loads past the loop's end read nothing
//! they should not and are discarded; and the loop stores no tile, so no
//! load is moved across a store that could change what it reads.
//!
//! The kernel's `num_stages` hint sets the tiles in flight, the one in use
//! included: `num_stages = 1` prefetches nothing.
//!
//! Caveats: loops that store tiles, loads inside nested regions of the
//! body, loads whose coordinates are not computable ahead, and tiles over
//! [`MAX_BYTES`] (whose copies would not fit in registers) are left as
//! they are, each with a remark at the load saying which
//! (`--remarks-filter=tile`). Only register-path kernels are changed.
//!
//! An mma loop's operand loads (tiles `tile-assign-layouts` keeps in shared
//! memory) go [`MMA_DISTANCE`] iterations ahead without a hint, as far as
//! their rings fit in [`RING_BUDGET`] (a share of the multiprocessor's
//! memory where an `occupancy` hint asks for several resident blocks:
//! [`ring_budget`]; where that cuts the distance short of the hint's or
//! the default, a remark at the loop's first operand load says so, with
//! the bytes); each load issued ahead carries
//! [`RING`]: its ring, the distance, which tile it is, and the ring's slots
//! (distance + 2, + 1 more when the loop's mmas can stay in flight, which
//! a TMA variant's ring may give back: `tile-use-tma`; a TMA variant's
//! mma stays in flight on distance + 2 slots too, its block meeting after
//! the mma's wait, `registers::groups::spareless`), which
//! `convert-tile-to-registers` places the tile by. The first tiles are
//! loaded iteration by iteration, so that the copies' commit groups come
//! in iteration order. Beside the rings, each mma result's exchange for its
//! store is counted: the size of the tile stored where the result only
//! flows through element-wise ops and reshapes into stores (a bias, an
//! activation, a narrowing), else the accumulator's. A widened instance
//! (`tile-widen-blocks`), compiled only for its TMA variant whose store
//! stages the tile in the rings' memory after a top-level loop
//! (`registers/tma_store.rs`), counts none where the stored tiles have the
//! rings' element type; nor does a kernel split along K (`tile-split-k`,
//! whose sum also goes through the done rings' memory), whose mma loop
//! without a hint goes [`MAX_DISTANCE`] ahead, as far as its rings fit (a
//! tile a block, the K loop all it does).
//!
//! The B of a tf32 mma computed transposed (`layout::shared::
//! swapped_operands`) is read by wgmma from registers: it takes no room
//! beside the rings, its mma gets no spare slot (it is waited for in its
//! iteration), and its tile issued ahead is loaded at the end of the
//! iteration, after the mma, so that the loads go out while it runs.

use crate::{
    build::{At, tile_type},
    layout::{assign::register_path, element_bytes},
    loops::{extend_for, set_yield},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, detach, emit_error, op_name},
};
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, BlockLike, Operation, OperationRef, RegionLike, Value, ValueLike,
        attribute::DenseI64ArrayAttribute,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::HashMap;
use tile_dialect::ops;

/// Iterations a load is issued ahead (without a `num_stages` hint): one
/// tile in flight while one is used, which measured fastest for the column
/// sum once its reductions are deferred (BENCHMARKS.md, session 12).
pub const DISTANCE: i64 = 1;

/// The most iterations ahead a `num_stages` hint asks for.
pub const MAX_DISTANCE: i64 = 7;

/// The largest tile prefetched: `DISTANCE + 1` copies of it are live.
pub const MAX_BYTES: i64 = 32 * 1024;

/// The `tile-prefetch-loads` pass.
#[derive(Clone, Default)]
pub struct PrefetchLoads;

impl TilePass for PrefetchLoads {
    const INFO: PassInfo = PassInfo {
        argument: "tile-prefetch-loads",
        name: "TilePrefetchLoads",
        summary: "Issue a loop's tile loads iterations ahead, carrying the tiles (register-path kernels)",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for PrefetchLoads {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !register_path(operation) {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        // The `num_stages` hint: that many tiles in flight, the one in use
        // included (1: none ahead).
        let stages_hint = crate::rewrite::hint(operation, tile_dialect::attrs::knob::NUM_STAGES.key);
        let distance = stages_hint.map_or(DISTANCE, |stages| (stages - 1).clamp(0, MAX_DISTANCE));
        // How far a loop of mma operands goes ahead: the hint's, else
        // MMA_DISTANCE; a kernel split along K (`tile-split-k`: a tile a
        // block, its K loop all it does) as far as its rings fit.
        let split = crate::rewrite::has_op(operation, "tile.cluster_sum");
        // Kernels whose top-level loops keep no room for an exchange the
        // rings' memory takes after them ([`other_shared_bytes`]).
        let staged = split || operation.has_attribute(tile_dialect::attrs::WIDE_OF);
        let budget = ring_budget(crate::rewrite::hint(operation, tile_dialect::attrs::knob::OCCUPANCY.key));
        let mma_distance = match stages_hint {
            Some(_) => distance,
            None if split => MAX_DISTANCE,
            None => MMA_DISTANCE,
        };
        if distance == 0 {
            return;
        }
        let mut next_ring = 0;
        for raw in crate::loops::for_loops(operation) {
            // SAFETY: a loop of the kernel; each rewrite replaces only the
            // loop it is given (inner loops come first, post-order).
            let op = unsafe { OperationRef::from_raw(raw) };
            let fit = Fit { distance, mma_distance, staged, budget };
            if prefetch(context, op, fit, &mut next_ring).is_none() {
                emit_error(op.location(), "tile-prefetch-loads: could not rewrite this loop");
                pass.signal_failure();
                return;
            }
        }
    }
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// Says at `load` why it is not loaded ahead.
fn missed(load: OperationRef, why: &str) {
    crate::remarks::missed(
        load.location(),
        PrefetchLoads::INFO.argument,
        "Prefetch",
        &format!("this load is not issued ahead of its iteration: {why}"),
    );
}

/// Whether `value` is defined outside `body` (the loop's block).
fn outside(value: Value, body: melior::ir::BlockRef) -> bool {
    // SAFETY: queries on live IR handles; null blocks and ops end the walk.
    unsafe {
        let raw = value.to_raw();
        let mut block = if mlir_sys::mlirValueIsABlockArgument(raw) {
            mlir_sys::mlirBlockArgumentGetOwner(raw)
        } else {
            mlir_sys::mlirOperationGetBlock(mlir_sys::mlirOpResultGetOwner(raw))
        };
        // Defined in the body, or in a region nested in it, is inside.
        while !block.ptr.is_null() {
            if block.ptr == body.to_raw().ptr {
                return false;
            }
            let parent = mlir_sys::mlirBlockGetParentOperation(block);
            if parent.ptr.is_null() {
                break;
            }
            block = mlir_sys::mlirOperationGetBlock(parent);
        }
        true
    }
}

/// Whether `value` can be recomputed for another iteration: outside the
/// loop, the induction variable, or a pure `arith` op of such values at
/// the top of the body.
fn recomputable(value: Value, body: melior::ir::BlockRef, iv: Value, depth: usize) -> bool {
    if outside(value, body) || value == iv {
        return true;
    }
    let Some(result) = crate::rewrite::op_result(value) else { return false };
    let op = result.owner();
    depth < 8
        && op_name(op).starts_with("arith.")
        && op.region_count() == 0
        && op.block() == Some(body)
        && op.operands().all(|v| recomputable(v, body, iv, depth + 1))
}

/// `value` at the iteration whose induction variable is `iv_value`, built
/// before `at` (cloning the `arith` ops between).
fn recompute<'c>(
    at: &At<'c, 'c>,
    value: IrValue<'c>,
    body: melior::ir::BlockRef,
    iv: Value,
    iv_value: IrValue<'c>,
    memo: &mut HashMap<usize, IrValue<'c>>,
) -> Option<IrValue<'c>> {
    if value == iv {
        return Some(iv_value);
    }
    if outside(value, body) {
        return Some(value);
    }
    if let Some(&done) = memo.get(&key(value)) {
        return Some(done);
    }
    let result = crate::rewrite::op_result(value)?;
    let op = result.owner();
    let operands: Vec<IrValue> =
        op.operands().map(|v| recompute(at, detach(v), body, iv, iv_value, memo)).collect::<Option<_>>()?;
    // SAFETY: `op` is live; the clone is a new op that `at` takes ownership of.
    let clone = unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) };
    let inserted = at.insert(clone);
    // SAFETY: the clone was just inserted; only its operands change.
    let mut inserted_mut = unsafe { OperationRefMut::from_raw(inserted.to_raw()) };
    for (i, operand) in operands.into_iter().enumerate() {
        inserted_mut.set_operand(i, operand);
    }
    let new = detach(inserted.result_at(result.result_number())?.into());
    memo.insert(key(value), new);
    Some(new)
}

/// A clone of `load` for the iteration `iv_value`, before `at`.
pub(crate) fn load_at<'c>(
    context: &'c Context,
    at: &At<'c, 'c>,
    load: OperationRef<'c, 'c>,
    body: melior::ir::BlockRef,
    iv: Value,
    iv_value: IrValue<'c>,
) -> Option<IrValue<'c>> {
    let mut memo = HashMap::new();
    let coords: Vec<IrValue> = (1..load.operand_count())
        .map(|i| recompute(at, detach(load.operand_at(i)?), body, iv, iv_value, &mut memo))
        .collect::<Option<_>>()?;
    let view = detach(load.operand_at(0)?);
    let r#type = load.result_at(0)?.r#type();
    at.add(ops::load(context, r#type, view, &coords, load.location()))
}

/// Iterations ahead for a loop of mma operand loads without a
/// `num_stages` hint.
pub const MMA_DISTANCE: i64 = 2;

/// The most bytes of shared memory a loop's operand rings take, with the
/// kernel's other buffers (a Hopper block has 227 KiB; 8 are left for the
/// exchanges of reductions and the like).
pub const RING_BUDGET: i64 = 219 * 1024;

/// Shared memory of one Hopper multiprocessor, of which each resident
/// block also takes 1 KiB for the system.
const SM_SHARED_MEMORY: i64 = 228 * 1024;

/// [`RING_BUDGET`] where `occupancy` blocks (the hint) should be resident
/// on a multiprocessor at once: each block's share, less the system's
/// kilobyte and the room [`RING_BUDGET`] keeps for exchanges.
pub fn ring_budget(occupancy: Option<i64>) -> i64 {
    let blocks = occupancy.unwrap_or(1).max(1);
    RING_BUDGET.min(SM_SHARED_MEMORY / blocks - 1024 - (tile_dialect::attrs::MAX_TILE_BYTES - RING_BUDGET))
}

/// The attribute on each load `tile-prefetch-loads` issues ahead: the
/// ring it belongs to (one per load of the loop), the distance, which of
/// the first tiles it loads before the loop (`-1`: the one in the loop),
/// and the ring's slots. `convert-tile-to-registers` places a shared
/// operand tile by it.
pub const RING: &str = "tile.ring";

fn ring_attribute<'c>(context: &'c Context, id: usize, distance: i64, index: i64, slots: i64) -> Attribute<'c> {
    DenseI64ArrayAttribute::new(context, &[id as i64, distance, index, slots]).into()
}

fn mark(tile: IrValue, ring: Attribute) {
    if let Some(load) = crate::rewrite::defining_op(tile) {
        // SAFETY: the load was just built; only an attribute is added.
        let mut load = unsafe { OperationRefMut::from_raw(load.to_raw()) };
        load.set_attribute(RING, ring);
    }
}

/// Shared memory the loop's mmas take besides their rings: each result's
/// exchange (its accumulator converted for a store, at most its size) and
/// each operand not loaded into a ring (written there from registers, but
/// for the B of an mma computed transposed, which wgmma reads from them).
fn other_shared_bytes(
    r#loop: OperationRef,
    loads: &[OperationRef],
    shared_loads: &[bool],
    bytes_of: &dyn Fn(Value) -> i64,
    register_copies: i64,
    staged: bool,
) -> i64 {
    let Some(body) = r#loop.region_at(0).and_then(|r| r.first_block()) else { return 0 };
    // After a loop outside any other, the exchange of a stored result
    // (`registers/convert.rs`) and the TMA store's staging
    // (`registers/tma_store.rs`) take the memory of a ring whose loop is
    // done, of their element type: the loop needs no room for them. So
    // far taken only where measured (`staged`): in a widened instance
    // (`tile-widen-blocks`, compiled only for its TMA variant) and in a
    // kernel split along K (`tile-split-k`), whose sum also goes through
    // the rings' memory. Elsewhere rings are as they were tuned.
    let staged_in_rings = staged && !crate::registers::in_loop(r#loop);
    let ring_element = loads
        .iter()
        .zip(shared_loads)
        .find(|(_, s)| **s)
        .and_then(|(l, _)| l.result_at(0))
        .and_then(|r| tile_type(r.r#type()))
        .map(|(_, e)| e);
    let mut total = 0;
    let mut next = body.first_operation();
    while let Some(op) = next {
        let staged = |result: Value| {
            staged_in_rings
                && carried_result(r#loop, result).is_some_and(|carried| {
                    let other_type = |v: Value| i64::from(tile_type(v.r#type()).map(|(_, e)| e) != ring_element);
                    stored(carried, &other_type, 0) == Some(0)
                })
        };
        if op_name(op) == "tile.mma" {
            if !op.result_at(0).is_some_and(|r| staged(r.into())) {
                total += op.result_at(0).map_or(0, |r| exchange_bytes(r#loop, r.into(), bytes_of));
            }
            for k in 0..2 {
                let Some(operand) = op.operand_at(k) else { continue };
                let mut source = crate::rewrite::defining_op(operand);
                while let Some(d) = source.filter(|d| matches!(op_name(*d).as_str(), "tile.permute" | "tile.reshape")) {
                    source = d.operand_at(0).and_then(crate::rewrite::defining_op);
                }
                let ringed = source.is_some_and(|d| {
                    loads.iter().zip(shared_loads).any(|(l, s)| *s && l.to_raw().ptr == d.to_raw().ptr)
                });
                if !ringed {
                    total += register_copies * bytes_of(operand);
                }
            }
        }
        next = op.next_in_block();
    }
    total
}

/// The bytes of an mma result's exchange: its size, or, where the loop's
/// result only flows through element-wise ops and reshapes into stores,
/// the largest tile stored. The conversion for a store (or the TMA
/// store's staging, which replaces it) sits at the store, after an
/// epilogue's bias, activation and narrowing, so it holds the tile as
/// stored, not the accumulator.
fn exchange_bytes(r#loop: OperationRef, result: Value, bytes_of: &dyn Fn(Value) -> i64) -> i64 {
    let whole = bytes_of(result);
    carried_result(r#loop, result).and_then(|carried| stored(carried, bytes_of, 0)).filter(|&b| b > 0).unwrap_or(whole)
}

/// The loop's result that an mma result becomes, where the yield is its
/// one use.
fn carried_result<'c, 'a>(r#loop: OperationRef<'c, 'a>, result: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    let (user, n) = crate::rewrite::single_use(result)?;
    if op_name(user) != "scf.yield" {
        return None;
    }
    r#loop.result_at(n).map(Into::into)
}

/// The largest `measure` of the tiles that the stores fed by `value`
/// (through element-wise ops and reshapes) take, or `None` where it also
/// reaches another op.
fn stored(value: Value, measure: &dyn Fn(Value) -> i64, depth: usize) -> Option<i64> {
    let users = crate::rewrite::uses(value);
    if depth > 16 || users.is_empty() {
        return None;
    }
    let mut most = 0;
    for (user, index) in users {
        let name = op_name(user);
        let bytes = if name == "tile.store" && index == 0 {
            measure(value)
        } else if (crate::layout::assign::elementwise(&name) || name == "tile.reshape" || name == "tile.cluster_sum")
            && user.result_count() == 1
        {
            stored(user.result_at(0)?.into(), measure, depth + 1)?
        } else {
            return None;
        };
        most = most.max(bytes);
    }
    Some(most)
}

/// Whether the loop's mmas can stay in flight across iterations once its
/// loads are carried: each accumulates into a carried tile that nothing
/// else reads and yields the result straight back.
fn mma_in_flight_shape(r#loop: OperationRef, loads: &[OperationRef]) -> bool {
    let Some(body) = r#loop.region_at(0).and_then(|r| r.first_block()) else { return false };
    let mut found = false;
    let mut next = body.first_operation();
    while let Some(op) = next {
        if op_name(op) == "tile.mma" {
            found = true;
            // The threads read the B of an mma computed transposed into
            // wgmma's A fragments, so it is waited for in its iteration.
            if crate::layout::shared::swapped_operands(op) {
                return false;
            }
            let Some(accumulator) = op.operand_at(2) else { return false };
            let Some(i) = crate::rewrite::argument_of(accumulator, body) else { return false };
            let carried_back = op.result_at(0).is_some_and(|r| {
                crate::rewrite::single_use(r.into()).is_some_and(|(user, n)| op_name(user) == "scf.yield" && n + 1 == i)
            });
            let operands_loaded = (0..2).all(|k| {
                op.operand_at(k).is_some_and(|v| {
                    let mut source = crate::rewrite::defining_op(v);
                    while let Some(d) =
                        source.filter(|d| matches!(op_name(*d).as_str(), "tile.permute" | "tile.reshape"))
                    {
                        source = d.operand_at(0).and_then(crate::rewrite::defining_op);
                    }
                    source.is_some_and(|d| loads.iter().any(|l| l.to_raw().ptr == d.to_raw().ptr))
                })
            });
            if crate::rewrite::uses(accumulator).len() != 1 || !carried_back || !operands_loaded {
                return false;
            }
        }
        next = op.next_in_block();
    }
    found
}

/// How far a kernel's loops load ahead, and in how much shared memory.
#[derive(Clone, Copy)]
struct Fit {
    /// Iterations ahead: loops without mma operands, and mma loops at most
    /// this far or `mma_distance`, whichever is further.
    distance: i64,
    mma_distance: i64,
    /// Whether top-level loops keep no room for an exchange the rings'
    /// memory takes after them ([`other_shared_bytes`]).
    staged: bool,
    /// The bytes the rings and the kernel's other buffers may take
    /// ([`ring_budget`]).
    budget: i64,
}

fn prefetch<'c>(context: &'c Context, op: OperationRef<'c, 'c>, fit: Fit, next_ring: &mut usize) -> Option<()> {
    let Fit { distance, mma_distance, staged, budget: ring_budget } = fit;
    let mut stores = false;
    op.walk(WalkOrder::PreOrder, |inner| {
        if op_name(inner) == "tile.store" {
            stores = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    let body = op.region_at(0)?.first_block()?;
    if stores {
        // Loads a store may have changed stay where they are.
        op.walk(WalkOrder::PreOrder, |inner| {
            if op_name(inner) == "tile.load" {
                missed(inner, "the loop stores tiles, which the tiles loaded ahead could overlap");
            }
            WalkResult::Advance
        });
        return Some(());
    }
    let iv: Value = body.argument_at(0)?.into();
    let mut loads = Vec::new();
    op.walk(WalkOrder::PreOrder, |inner| {
        if op_name(inner) == "tile.load" && inner.block() != Some(body) {
            missed(inner, "it is inside a region nested in the loop (an scf.if or an inner loop's body)");
        }
        WalkResult::Advance
    });
    let mut next = body.first_operation();
    while let Some(inner) = next {
        if op_name(inner) == "tile.load" {
            let bytes = tile_type(inner.result_at(0)?.r#type())
                .map_or(i64::MAX, |(shape, e)| shape.iter().product::<i64>() * element_bytes(e));
            if !outside(inner.operand_at(0)?, body) {
                missed(inner, "its view is made inside the loop");
            } else if !(1..inner.operand_count())
                .all(|i| inner.operand_at(i).is_some_and(|v| recomputable(v, body, iv, 0)))
            {
                missed(
                    inner,
                    "its coordinates are not computable ahead (from values outside the loop, the induction \
                     variable and arith ops on them)",
                );
            } else if bytes > MAX_BYTES && !crate::layout::shared::stays_shared(inner) {
                missed(
                    inner,
                    &format!(
                        "its tile ({bytes} bytes) is over {MAX_BYTES}: two copies of it would not fit in registers"
                    ),
                );
            } else {
                // SAFETY: an op of the body, alive until this rewrite erases it.
                loads.push(unsafe { OperationRef::from_raw(inner.to_raw()) });
            }
        }
        next = inner.next_in_block();
    }
    if loads.is_empty() {
        return Some(());
    }

    // Loops of mma operands go further ahead (their tiles wait in shared
    // memory, not registers), as far as the rings fit beside the kernel's
    // other shared memory: the operands written from registers and the
    // accumulators' exchanges (at most their size).
    let bytes_of = |value: Value| {
        tile_type(value.r#type()).map_or(0, |(shape, e)| shape.iter().product::<i64>() * element_bytes(e))
    };
    let shared_loads: Vec<bool> = loads.iter().map(|l| crate::layout::shared::stays_shared(*l)).collect();
    let operand_bytes: i64 = loads
        .iter()
        .zip(&shared_loads)
        .filter(|(_, s)| **s)
        .filter_map(|(l, _)| l.result_at(0))
        .map(|r| bytes_of(r.into()))
        .sum();
    let wanted = if operand_bytes > 0 { distance.max(mma_distance) } else { distance };
    // The ring's distance with `spare` slots more (1: its mmas stay in
    // flight, and then write their operands from registers into two
    // buffers in turn, `registers/mma.rs`), as far as it fits beside the
    // rest, whether it fits at all, and the rest's bytes.
    let fit = |spare: i64| {
        let other = other_shared_bytes(op, &loads, &shared_loads, &bytes_of, 1 + spare, staged);
        let budget = ring_budget - other;
        let mut distance = wanted;
        while operand_bytes > 0 && distance > 1 && (distance + 2 + spare) * operand_bytes > budget {
            distance -= 1;
        }
        (distance, (distance + 2 + spare) * operand_bytes <= budget, other)
    };
    let (distance, in_flight, other) = match mma_in_flight_shape(op, &loads).then(|| fit(1)) {
        Some((distance, true, other)) => (distance, 1, other),
        _ => {
            let (distance, _, other) = fit(0);
            (distance, 0, other)
        }
    };
    let slots = distance + 2 + in_flight;
    if distance < wanted
        && let Some((&first, _)) = loads.iter().zip(&shared_loads).find(|(_, s)| **s)
    {
        let share = match ring_budget < RING_BUDGET {
            true => " (a block's share under the occupancy hint)",
            false => "",
        };
        crate::remarks::missed(
            first.location(),
            PrefetchLoads::INFO.argument,
            "RingShortened",
            &format!(
                "this loop's mma operand tiles go {distance} iteration(s) ahead, not {wanted}: {slots} ring slots of \
                 {operand_bytes} bytes beside the kernel's other {other} bytes of shared memory is what fits in \
                 {ring_budget}{share}"
            ),
        );
    }

    // The first `distance` tiles of each load, before the loop, iteration
    // by iteration (a ring's waits count the copies issued in that order).
    let before = At::before(context, op)?;
    let (lower, step) = (detach(op.operand_at(0)?), detach(op.operand_at(2)?));
    let carried = op.operand_count() - 3;
    let mut tiles = vec![None; loads.len() * distance as usize];
    let first_ring = *next_ring;
    *next_ring += loads.len();
    let ring = |j: usize, index: i64| ring_attribute(context, first_ring + j, distance, index, slots);
    for k in 0..distance {
        let offset = before.muli(step, before.index(k)?)?;
        let iv_k = before.addi(lower, offset)?;
        for (j, &load) in loads.iter().enumerate() {
            let tile = load_at(context, &before, load, body, iv, iv_k)?;
            mark(tile, ring(j, k));
            tiles[j * distance as usize + k as usize] = Some(tile);
        }
    }
    let tiles: Vec<IrValue> = tiles.into_iter().collect::<Option<_>>()?;

    // The tiles become carried values: each iteration loads the tile
    // `distance` ahead, uses the oldest, and passes the others one slot down.
    let new_loop = extend_for(context, op, &tiles)?;
    let body = new_loop.region_at(0)?.first_block()?;
    let iv = detach(body.argument_at(0)?.into());
    let first = body.first_operation()?;
    // SAFETY: the body's first op lives as long as the loop.
    let at_start = At::before(context, unsafe { OperationRef::from_raw(first.to_raw()) })?;
    let ahead = at_start.addi(iv, at_start.muli(step, at_start.index(distance)?)?)?;
    // The fresh loads go before the first op that stays: the loads below
    // are erased one by one, so none of them may anchor the others.
    let mut anchor = first;
    while loads.iter().any(|l| l.to_raw().ptr == anchor.to_raw().ptr) {
        anchor = anchor.next_in_block()?;
    }
    // SAFETY: an op of the body that this rewrite keeps.
    let at_start = At::before(context, unsafe { OperationRef::from_raw(anchor.to_raw()) })?;
    let distance = distance as usize;
    for (j, &load) in loads.iter().enumerate() {
        let first_slot = carried + j * distance;
        let slot = |k: usize| body.argument_at(1 + first_slot + k).map(|a| detach(a.into()));
        let fresh = load_at(context, &at_start, load, body, iv, ahead)?;
        mark(fresh, ring(j, -1));
        let value = load.result_at(0)?;
        // SAFETY: both values are live; the load's users read the carried
        // tile instead, and the load is erased just below.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(value.to_raw(), slot(0)?.to_raw());
            mlir_sys::mlirOperationDestroy(load.to_raw());
        }
        for k in 1..distance {
            set_yield(new_loop, first_slot + k - 1, slot(k)?)?;
        }
        set_yield(new_loop, first_slot + distance - 1, fresh)?;
    }
    Some(())
}
