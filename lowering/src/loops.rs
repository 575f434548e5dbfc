//! The `scf.for` loops of a function, and rebuilding one with more carried
//! values, for the passes that carry tiles and buffers
//! (`tile-prefetch-loads`, `tile-defer-reductions`, `tile-carry-in-place`).

use crate::{
    build::At,
    rewrite::{IrValue, Probe, detach},
};
use melior::{
    Context,
    dialect::ods,
    ir::{
        BlockLike, OperationRef, Region, RegionLike, Type, ValueLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
};

/// The `scf.for` ops under `operation`, inner loops first (post-order), as
/// raw handles: a pass that replaces a loop keeps the others valid, since
/// each rewrite touches only the loop it is given.
pub fn for_loops(operation: OperationRef) -> Vec<mlir_sys::MlirOperation> {
    let mut loops = Vec::new();
    operation.walk(WalkOrder::PostOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("scf.for") {
            loops.push(op.to_raw());
        }
        WalkResult::Advance
    });
    loops
}

/// Replaces the `scf.for` `op` by a loop with the same body that also
/// carries `inits`, after its own carried values; the body passes each new
/// iteration argument through unchanged until the caller sets its yield
/// with [`set_yield`]. The old loop's results become the new loop's first
/// results, and the old loop is erased.
pub fn extend_for<'c>(
    context: &'c Context,
    op: OperationRef<'c, 'c>,
    inits: &[IrValue<'c>],
) -> Option<OperationRef<'c, 'c>> {
    let before = At::before(context, op)?;
    let mut all_inits: Vec<IrValue> =
        (3..op.operand_count()).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    let carried = all_inits.len();
    all_inits.extend_from_slice(inits);
    let region = Region::new();
    // SAFETY: both regions are live; the body moves into the new region,
    // which the new loop below owns.
    unsafe { mlir_sys::mlirRegionTakeBody(region.to_raw(), op.region_at(0)?.to_raw()) };
    let block = region.first_block()?;
    let arguments: Vec<IrValue> =
        inits.iter().map(|init| detach(block.add_argument(init.r#type(), op.location()))).collect();
    let result_types: Vec<Type> = all_inits.iter().map(|v| v.r#type()).collect();
    let new_loop = before.insert(ods::scf::r#for(
        context,
        &result_types,
        detach(op.operand_at(0)?),
        detach(op.operand_at(1)?),
        detach(op.operand_at(2)?),
        &all_inits,
        region,
        op.location(),
    ));
    let terminator = new_loop.region_at(0)?.first_block()?.terminator()?;
    let mut yielded: Vec<IrValue> =
        (0..terminator.operand_count()).map(|i| terminator.operand_at(i).map(detach)).collect::<Option<_>>()?;
    yielded.extend(arguments);
    At::before(context, terminator)?.insert(melior::dialect::scf::r#yield(&yielded, terminator.location()));
    // SAFETY: the old yield is replaced by the one just inserted.
    unsafe { mlir_sys::mlirOperationDestroy(terminator.to_raw()) };
    for i in 0..carried {
        // SAFETY: the old loop's results move to the new loop's; the old
        // loop (now without a body) is erased below.
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(op.result_at(i)?.to_raw(), new_loop.result_at(i)?.to_raw()) };
    }
    // SAFETY: no use of the old loop is left.
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    Some(new_loop)
}

/// Makes the loop's body yield `value` for carried value `index`.
pub fn set_yield<'c>(r#loop: OperationRef<'c, 'c>, index: usize, value: IrValue<'c>) -> Option<()> {
    let terminator = r#loop.region_at(0)?.first_block()?.terminator()?;
    if index >= terminator.operand_count() {
        return None;
    }
    // SAFETY: the terminator is live and `index` is one of its operands.
    let mut terminator = unsafe { OperationRefMut::from_raw(terminator.to_raw()) };
    terminator.set_operand(index, value);
    Some(())
}

/// A clone of `op` before `at` with operands `operands` (the first ones;
/// the rest as they are), and its first result.
pub fn clone_with<'c>(at: &At<'c, 'c>, op: OperationRef<'c, 'c>, operands: &[IrValue<'c>]) -> Option<IrValue<'c>> {
    // SAFETY: `op` is live; the clone is a new op that `at` takes ownership of.
    let clone = unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) };
    let inserted = at.insert(clone);
    // SAFETY: the clone was just inserted; only its operands change.
    let mut inserted_mut = unsafe { OperationRefMut::from_raw(inserted.to_raw()) };
    for (i, &operand) in operands.iter().enumerate() {
        inserted_mut.set_operand(i, operand);
    }
    Some(detach(inserted.result_at(0)?.into()))
}
