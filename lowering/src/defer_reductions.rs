//! `tile-defer-reductions`: a loop that sums reductions of tiles sums the
//! tiles instead, and reduces once after the loop.
//!
//! Summary: in an `scf.for` of a kernel on the register path, a carried
//! value `%acc` whose only use is `%acc + tile.reduce add %x` (either
//! order), yielded as the next `%acc`, becomes two: `%acc` passes through
//! unchanged, and a new carried tile of `%x`'s shape (zeros at first)
//! gains `%x` each iteration. After the loop, one `tile.reduce` of that
//! tile is added to `%acc`.
//!
//! Before:
//! ```mlir
//! %s = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> (tensor<128xf32>) {
//!   %x = tile.load %v[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
//!   %p = tile.reduce add %x dim 0 : tensor<64x128xf32> -> tensor<128xf32>
//!   %n = arith.addf %acc, %p : tensor<128xf32>
//!   scf.yield %n : tensor<128xf32>
//! }
//! ```
//! After:
//! ```mlir
//! %zero = arith.constant dense<0.0> : tensor<64x128xf32>
//! %s:2 = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z, %sum = %zero) -> (tensor<128xf32>, tensor<64x128xf32>) {
//!   %x = tile.load %v[%i, %j] : !tile.partition_view<64x128xf32> -> tensor<64x128xf32>
//!   %n = arith.addf %sum, %x : tensor<64x128xf32>
//!   scf.yield %acc, %n : tensor<128xf32>, tensor<64x128xf32>
//! }
//! %p = tile.reduce add %s#1 dim 0 : tensor<64x128xf32> -> tensor<128xf32>
//! %r = arith.addf %s#0, %p : tensor<128xf32>
//! ```
//!
//! Why: a reduction across threads costs shuffles and a shared-memory
//! exchange between barriers; inside a loop it runs every iteration,
//! between one tile's loads and the next. Adding tiles costs one
//! instruction a register and no communication, so the loop is left to
//! its loads (the column sum of the suite).
//!
//! Semantics: `tile.reduce` adds in an unspecified order; the rewrite adds
//! the same terms in another order, so a floating-point sum may round
//! differently (as the GPU's and the CPU's sums already do). Integer sums
//! are exact either way.
//!
//! Caveats: sums only (`add`), the reduction and the accumulator each used
//! only by the add, the add yielded directly, in the loop's own block;
//! tiles over [`MAX_BYTES`] are left (the carried copy must fit in
//! registers). Kernels off the register path are left as they are.

use crate::{
    build::{At, combine, scalar_attribute, tile_type},
    layout::{assign::register_path, element_bytes},
    loops::{clone_with, extend_for, set_yield},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, Probe, defining_op, detach, emit_error, op_name, single_use},
};
use melior::{
    Context, ContextRef,
    dialect::arith,
    ir::{
        Attribute, BlockLike, OperationRef, RegionLike, Type, ValueLike, attribute::DenseElementsAttribute,
        operation::OperationLike,
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The largest tile summed across iterations.
pub const MAX_BYTES: i64 = 32 * 1024;

/// The `tile-defer-reductions` pass.
#[derive(Clone, Default)]
pub struct DeferReductions;

impl TilePass for DeferReductions {
    const INFO: PassInfo = PassInfo {
        argument: "tile-defer-reductions",
        name: "TileDeferReductions",
        summary: "Sum a loop's tiles and reduce once after it, instead of reducing every iteration (register-path kernels)",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for DeferReductions {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !register_path(operation) {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run, and `context` (the
        // handle the reference points into) lives until the end of `run`.
        let context = unsafe { context.to_ref() };
        for raw in crate::loops::for_loops(operation) {
            // SAFETY: a loop of the kernel; each rewrite replaces only the
            // loop it is given (inner loops come first, post-order).
            let mut op = unsafe { OperationRef::from_raw(raw) };
            // One sum at a time: each rewrite makes a new loop.
            while let Some(sum) = find_sum(op) {
                match defer(context, op, sum) {
                    Some(new_loop) => op = new_loop,
                    None => {
                        emit_error(op.location(), "tile-defer-reductions: could not rewrite this loop");
                        pass.signal_failure();
                        return;
                    }
                }
            }
        }
    }
}

/// A sum of reductions that a loop carries.
struct Sum<'c> {
    /// Its position among the carried values.
    index: usize,
    /// `%acc + %p`.
    add: OperationRef<'c, 'c>,
    /// `%p = tile.reduce add %x`.
    reduce: OperationRef<'c, 'c>,
}

fn find_sum<'c>(op: OperationRef<'c, 'c>) -> Option<Sum<'c>> {
    let body = op.region_at(0)?.first_block()?;
    let terminator = body.terminator()?;
    for index in 0..op.operand_count().saturating_sub(3) {
        let found = (|| {
            let acc = body.argument_at(1 + index)?;
            let (add, position) = single_use(acc.into())?;
            if !matches!(op_name(add).as_str(), "arith.addf" | "arith.addi") || add.block() != Some(body) {
                return None;
            }
            let (user, slot) = single_use(add.result_at(0)?.into())?;
            if user != terminator || slot != index {
                return None;
            }
            let reduce = defining_op(add.operand_at(1 - position)?)?;
            if op_name(reduce) != "tile.reduce"
                || reduce.block() != Some(body)
                || crate::build::reduce_kind(reduce.attribute("kind").ok()?) != Some("add")
                || single_use(reduce.result_at(0)?.into())?.0 != add
            {
                return None;
            }
            let (shape, element) = tile_type(reduce.operand_at(0)?.r#type())?;
            (shape.iter().product::<i64>() * element_bytes(element) <= MAX_BYTES).then_some(())?;
            // SAFETY: ops of the loop body, alive until the rewrite.
            let (add, reduce) =
                unsafe { (OperationRef::from_raw(add.to_raw()), OperationRef::from_raw(reduce.to_raw())) };
            Some(Sum { index, add, reduce })
        })();
        if found.is_some() {
            return found;
        }
    }
    None
}

fn defer<'c>(context: &'c Context, op: OperationRef<'c, 'c>, sum: Sum<'c>) -> Option<OperationRef<'c, 'c>> {
    let x_type: Type = sum.reduce.operand_at(0)?.r#type();
    let (_, element) = tile_type(x_type)?;
    let zero: Attribute = scalar_attribute(context, element, 0.0, 0);
    let before = At::before(context, op)?;
    let zeros =
        before.add(arith::constant(context, DenseElementsAttribute::splat(x_type, zero).into(), op.location()))?;
    let carried = op.operand_count() - 3;
    let (add, reduce, index) = (sum.add, sum.reduce, sum.index);
    let new_loop = extend_for(context, op, &[zeros])?;
    let body = new_loop.region_at(0)?.first_block()?;
    let terminator = body.terminator()?;
    let acc = detach(body.argument_at(1 + index)?.into());
    let running = detach(body.argument_at(1 + carried)?.into());
    // After the loop: one reduction of the running tile, added to the
    // accumulator; every use of the loop's sum reads that instead.
    let after = At::before(context, new_loop.next_in_block()?)?;
    let total = detach(new_loop.result_at(carried)?.into());
    let result = detach(new_loop.result_at(index)?.into());
    let reduced = clone_with(&after, reduce, &[total])?;
    let position = (0..2).find(|&i| add.operand_at(i).is_some_and(|v| v == acc))?;
    let mut operands = [result, reduced];
    if position == 1 {
        operands.swap(0, 1);
    }
    let final_sum = clone_with(&after, add, &operands)?;
    let final_op = defining_op(final_sum)?;
    let mut exceptions = [final_op.to_raw()];
    // SAFETY: both values are live; every use of the loop's result except
    // the final add's now reads the final add.
    unsafe { mlir_sys::mlirValueReplaceAllUsesExcept(result.to_raw(), final_sum.to_raw(), 1, exceptions.as_mut_ptr()) };
    // The body adds each tile to the running tile; the accumulator passes
    // through unchanged.
    let x = detach(reduce.operand_at(0)?);
    let mut running_operands = [running, x];
    if position == 1 {
        running_operands.swap(0, 1);
    }
    let float = op_name(add) == "arith.addf";
    let [a, b] = running_operands;
    let next = At::before(context, terminator)?.add(combine(context, "add", float, a, b, add.location()))?;
    set_yield(new_loop, carried, next)?;
    set_yield(new_loop, index, acc)?;
    // SAFETY: the add's only use (the yield) and the reduction's (the add)
    // are gone, so both die, the add first.
    unsafe {
        mlir_sys::mlirOperationDestroy(add.to_raw());
        mlir_sys::mlirOperationDestroy(reduce.to_raw());
    }
    Some(new_loop)
}
