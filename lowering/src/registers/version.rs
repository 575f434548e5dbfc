//! Loops of shared-tile copies versioned on how the arrays let them be
//! copied: one copy of the loop for arrays whose rows are whole 8-byte
//! chunks (`cp.async`), one for the others (each 16-byte chunk shifted out
//! of two aligned words, [`super::unaligned`]).
//!
//! Which copy a `tile.load` of a shared tile makes depends on its array's
//! address and strides, which do not change in a loop; but a choice made
//! at the load, in the loop, keeps every way's registers (row indices,
//! swizzled offsets, checks, which LLVM hoists out of the loop) live
//! whichever way runs, and LLVM does not unswitch a loop of barriers and
//! wgmmas. So before the lowering, each `scf.for` whose body loads shared
//! tiles by the threads' copies (not the TMA) becomes
//!
//! ```text
//! %all_8_byte = (every such load's array: start and row strides multiples of 8 bytes)
//! %r = scf.if %all_8_byte -> (...) {
//!   %r1 = scf.for ... { tile.load (16- or 8-byte cp.async) ... }   // a clone
//!   scf.yield %r1
//! } else {
//!   %r2 = scf.for ... { tile.load (two words a chunk, shifted) ... } // the loop
//!   scf.yield %r2
//! }
//! ```
//!
//! and [`super::shared::load`] makes only the copy its copy of the loop
//! was chosen for. The shifted copy is correct at any alignment, so an
//! array of aligned rows beside one of odd rows takes it too.
//!
//! The shifted copy's loads are ordinary `ld.global`s, which the threads
//! wait for before they can shift and store; in the shifted version of a
//! loop of one `tile.mma` whose block has its multiprocessor to itself
//! (its shared tiles take more than half of it), the stores of the tiles
//! ahead wait until the iteration's wgmmas are issued
//! ([`super::shared::finish_copies`]), so that the loads of both operands
//! are in flight together and their latency passes while the tensor cores
//! run. Holding the loaded words that long costs registers (30-40 a thread
//! in the GEMMs), which would cost a block a multiprocessor where the
//! block does not have it to itself.
//!
//! Caveats: a loop is left as it is (the choice made at each load) where
//! one of its loads pads with other values than zero (those take the
//! shifted copy whatever the alignment), reads an array whose rows are not
//! contiguous, is not a ring's later tile (a persistent kernel's outer
//! loop loads its inner loop's first tiles) or is one the TMA fills (in a
//! TMA variant, beside tiles the threads copy), or where a shared tile it
//! carries is used after it (an `scf.if` cannot say which buffer such a
//! tile is in). The loads before the loop (a ring's first tiles) keep the
//! choice at the load. The loop's code is there twice: the copies are most
//! of it, and each copy is there once. Whether the stores wait is decided
//! by shared memory, not by the registers ptxas ends up giving.

use super::global::global_pointer;
use super::shared::{Copy, SharedTile};
use crate::{
    build::{At, if_else_op},
    rewrite::{IrValue, Probe, defined_outside, defining_op, detach, op_name},
};
use melior::ir::{BlockLike as _, OperationRef, RegionLike as _, ValueLike as _, operation::OperationLike as _};
use melior::{
    Context,
    ir::{
        Type,
        operation::{OperationMutLike as _, OperationRefMut, WalkOrder, WalkResult},
    },
};
use std::collections::HashMap;

/// The versioned loops of a kernel.
#[derive(Default)]
pub struct Versions<'c> {
    /// The copy each load of the versions makes, by the load (op address).
    pub copies: HashMap<usize, Copy>,
    /// The `scf.if` that holds each version, by the loop (op address):
    /// after it, the loop's copies are done whichever version ran.
    pub ifs: HashMap<usize, OperationRef<'c, 'c>>,
    /// The shifted loads (op addresses) whose stores wait until the
    /// iteration's mma is issued ([`super::shared::finish_copies`]).
    pub stored_later: std::collections::HashSet<usize>,
}

/// Versions each loop of `kernel` whose shared-tile loads can take either
/// copy.
pub fn loops<'c>(context: &'c Context, kernel: OperationRef<'c, 'c>) -> Option<Versions<'c>> {
    let mut candidates = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "scf.for" {
            // SAFETY: an op of the kernel, which outlives the pass run.
            candidates.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    let mut versions = Versions::default();
    let alone = super::shared::alone(kernel);
    for r#loop in candidates {
        let Some(loads) = copied_loads(r#loop) else { continue };
        let mut all_8_byte = Vec::new();
        let at = At::before(context, r#loop)?;
        for &load in &loads {
            let view = defining_op(load.operand_at(0)?)?;
            let tile = SharedTile::of_type(load.result_at(0)?.r#type())?;
            let global = global_pointer(&at, detach(view.operand_at(0)?), tile.bytes)?;
            all_8_byte.push(global.aligned(&at, 8)?);
        }
        let condition = super::all(&at, &all_8_byte)?;
        let (clone, r#if) = version(&at, r#loop, condition)?;
        for load in copied_loads(clone)? {
            versions.copies.insert(load.to_raw().ptr as usize, Copy::Async);
        }
        let later = alone && one_mma(r#loop);
        for load in loads {
            versions.copies.insert(load.to_raw().ptr as usize, Copy::Shifted);
            if later {
                versions.stored_later.insert(load.to_raw().ptr as usize);
            }
        }
        for version in [clone, r#loop] {
            versions.ifs.insert(version.to_raw().ptr as usize, r#if);
        }
    }
    Some(versions)
}

/// Whether `loop`'s body has one `tile.mma`.
fn one_mma(r#loop: OperationRef) -> bool {
    let Some(body) = r#loop.region_at(0).and_then(|r| r.first_block()) else { return false };
    let mut count = 0;
    let mut next = body.first_operation();
    while let Some(op) = next {
        count += usize::from(op_name(op) == "tile.mma");
        next = op.next_in_block();
    }
    count == 1
}

/// The loads in `loop`'s body that copy a shared tile by the threads,
/// if there are any, every one is a ring's later tile that can take
/// either copy, and the loop's carried shared tiles are not used after
/// it.
fn copied_loads<'c>(r#loop: OperationRef<'c, 'c>) -> Option<Vec<OperationRef<'c, 'c>>> {
    let body = r#loop.region_at(0)?.first_block()?;
    let mut loads = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        // SAFETY: an op of the kernel, which outlives the pass run.
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        next = op.next_in_block();
        if op_name(op) != "tile.load" {
            continue;
        }
        // A loop the TMA feeds keeps one copy: its rings' barriers and
        // phases belong to one loop.
        if op.has_attribute(tile_dialect::attrs::TMA_LOAD) {
            return None;
        }
        let Some(tile) = op.result_at(0).and_then(|r| SharedTile::of_type(r.r#type())) else { continue };
        // Only a loop that loads its rings' later tiles: a persistent
        // kernel's outer loop, whose body loads a ring's first tiles
        // before the inner loop, is left alone (its inner loop is
        // versioned).
        if super::rings::ring_of(op).is_none_or(|[_, _, index, _]| index >= 0) {
            return None;
        }
        let view = defining_op(op.operand_at(0)?).filter(|v| op_name(*v) == "tile.partition_view")?;
        let memref = detach(view.operand_at(0)?);
        let padding = tile_dialect::types::PartitionViewType::try_from_type(view.result_at(0)?.r#type())?.padding();
        let zero_padding = matches!(padding, tile_dialect::types::Padding::Zero);
        if tile.transposed
            || !zero_padding
            || !defined_outside(memref, body)
            || !super::memory::unit_innermost_stride(memref)
        {
            return None;
        }
        loads.push(op);
    }
    let carried_shared_used =
        r#loop.results().any(|r| SharedTile::of_type(r.r#type()).is_some() && !crate::rewrite::unused(r.into()));
    (!loads.is_empty() && !carried_shared_used).then_some(loads)
}

/// Puts `loop` in the else branch of an `scf.if` on `condition` and a
/// clone of it in the then branch; the clone and the `scf.if`.
fn version<'c>(
    at: &At<'c, 'c>,
    r#loop: OperationRef<'c, 'c>,
    condition: IrValue<'c>,
) -> Option<(OperationRef<'c, 'c>, OperationRef<'c, 'c>)> {
    // The results the branches give: all but the carried shared tiles
    // (unused after the loop, [`copied_loads`]).
    let kept: Vec<usize> = (0..r#loop.result_count())
        .filter(|&i| r#loop.result_at(i).is_some_and(|r| SharedTile::of_type(r.r#type()).is_none()))
        .collect();
    let types: Vec<Type<'c>> = kept.iter().map(|&i| r#loop.result_at(i).map(|r| r.r#type())).collect::<Option<_>>()?;
    let result = |op: OperationRef<'c, 'c>, i: usize| op.result_at(i).map(|r| detach(r.into()));
    let mut clone = None;
    let op = if_else_op(
        at,
        condition,
        &types,
        |then| {
            // SAFETY: cloning a live op gives a new, unparented op, which
            // the then branch's block takes ownership of.
            let copy =
                unsafe { melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(r#loop.to_raw())) };
            let copy = then.insert(copy);
            // SAFETY: the clone lives in the kernel as long as the loop.
            let copy = unsafe { OperationRef::from_raw(copy.to_raw()) };
            clone = Some(copy);
            kept.iter().map(|&i| result(copy, i)).collect()
        },
        |_| kept.iter().map(|&i| result(r#loop, i)).collect(),
    )?;
    let otherwise = op.region_at(1)?.first_block()?;
    let r#yield = otherwise.terminator()?;
    for (k, &i) in kept.iter().enumerate() {
        let old = r#loop.result_at(i)?;
        let new = op.result_at(k)?;
        // SAFETY: both values are alive; the scf.if comes right after the
        // loop, so its results dominate every use of the loop's results
        // after it (the else branch's yield is set back just below).
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
    }
    // SAFETY: the yield is a live op of the else branch; its operands are
    // set back to the loop's results, which it will follow.
    let mut yield_mut = unsafe { OperationRefMut::from_raw(r#yield.to_raw()) };
    for (k, &i) in kept.iter().enumerate() {
        yield_mut.set_operand(k, r#loop.result_at(i)?.into());
    }
    // SAFETY: the loop is alive; it moves, with its body, in front of the
    // else branch's terminator, which is alive (owned by the scf.if).
    let mut moved = unsafe { OperationRefMut::from_raw(r#loop.to_raw()) };
    moved.move_before(r#yield);
    Some((clone?, op))
}
