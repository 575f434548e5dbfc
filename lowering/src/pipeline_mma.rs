//! `tile-pipeline-mma`: the last mma of a loop of several runs one
//! iteration late, beside the next iteration's first mma and the work
//! between them (FlashAttention-3's intra-warpgroup overlap).
//!
//! Summary: in a kernel's top-level `scf.for` from 0 by 1 whose body holds
//! several `tile.mma`s, the last one, `D = A B + C` with `D` only yielded
//! (carried value `r`), `C` computed in the body from the carried `D` of
//! the iteration before (attention's rescaled output), `A` computed in
//! the body (its probabilities) and `B` a load of iteration `j` (its
//! values), moves into the next iteration, right after the first mma:
//! iteration `j` multiplies iteration `j - 1`'s `A`, carried, by `B`
//! loaded at `j - 1`, into iteration `j - 1`'s `C`, carried in place of
//! `D`; what read the carried `D` reads that product. One mma after the
//! loop finishes the last iteration's, with `B` at the loop's last index
//! (loaded before the loop, where nothing the loop stores can change it).
//!
//! Before:
//! ```mlir
//! %o = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
//!   %s = tile.mma %q, %kt, %zs : ...                 // the first mma
//!   %p, %alpha = (softmax of %s)
//!   %scaled = arith.mulf %acc, %alpha : tensor<128x128xf32>
//!   %v = tile.load %pv[%j, %c0] : ... -> tensor<64x128xf16>
//!   %next = tile.mma %p, %v, %scaled : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
//!   scf.yield %next : tensor<128x128xf32>
//! }
//! ```
//! After:
//! ```mlir
//! %last = arith.subi %n, %c1 : index
//! %v_last = tile.load %pv[%last, %c0] : ... -> tensor<64x128xf16>
//! %zp = arith.constant dense<0.0> : tensor<128x64xf16>
//! %o:2 = scf.for %j = %c0 to %n step %c1 iter_args(%c = %zero, %p_prev = %zp) -> (...) {
//!   %s = tile.mma %q, %kt, %zs : ...
//!   %j1 = arith.subi %j, %c1 : index
//!   %v = tile.load %pv[%j1, %c0] : ... -> tensor<64x128xf16>
//!   %acc = tile.mma %p_prev, %v, %c : ...               // iteration j - 1's
//!   %p, %alpha = (softmax of %s)
//!   %scaled = arith.mulf %acc, %alpha : tensor<128x128xf32>
//!   scf.yield %scaled, %p : ...
//! }
//! %out = tile.mma %o#1, %v_last, %o#0 : ...
//! ```
//!
//! Why: on the GPU the deferred mma is issued after the first and waited
//! for only where its product is read, so the tensor cores multiply it
//! while the threads compute the softmax of the next scores.
//!
//! Semantics: the same products in the same order. The first iteration
//! multiplies zeros (the carried `A`'s start) by `B` at index -1, which
//! the view pads with zeros, into the loop's initial value: exactly that
//! value. With no iteration, the mma after the loop does the same.
//!
//! Caveats: only `index` loops from a constant 0 by 1 whose body stores
//! nothing, `B` a load (through reshapes and permutes used only by the
//! mma) from a view padded with zeros whose coordinates are the induction
//! variable (one at least) and values defined before the loop; the carried `D` read only after
//! the first mma; `A` not a loaded tile. Kernels off the register path
//! are left as they are.
//!
//! Not in `tile-to-ptx` yet: on the suite's attention it measured within
//! -3% to +5% of the loop as written (BENCHMARKS.md, session 24, runs
//! 6-8; ptxas spreads the softmax between the deferred mma's
//! instructions and waits right after them). Those runs also let a
//! kernel with an mma after its loops keep its producer warp, which
//! `registers::warps` does not: with this pass, the head-dim-128
//! programs lose theirs. (racecheck's reports in those runs were the
//! warpgroups' turns', false positives: runs 9-11.) Run it by name
//! (`tile-opt --pass-pipeline`) to experiment.

use crate::{
    build::At,
    layout::assign::register_path,
    loops::{clone_with, extend_for, set_yield},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, argument_of, defining_op, detach, emit_error, op_name, single_use},
};
use melior::{
    Context, ContextRef,
    dialect::arith,
    ir::{
        BlockLike, BlockRef, OperationRef, RegionLike, ValueLike,
        attribute::DenseElementsAttribute,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::types::{Padding, PartitionViewType};

/// The `tile-pipeline-mma` pass.
#[derive(Clone, Default)]
pub struct PipelineMma;

impl TilePass for PipelineMma {
    const INFO: PassInfo = PassInfo {
        argument: "tile-pipeline-mma",
        name: "TilePipelineMma",
        summary: "Run the last mma of a loop of several one iteration late, beside the next iteration's work \
                  (register-path kernels)",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for PipelineMma {
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
            // loop it is given.
            let op = unsafe { OperationRef::from_raw(raw) };
            let Some(found) = find(op) else { continue };
            if defer(context, op, found).is_none() {
                emit_error(op.location(), "tile-pipeline-mma: could not rewrite this loop");
                pass.signal_failure();
                return;
            }
        }
    }
}

/// The mma a loop runs one iteration late.
struct Deferred<'c> {
    /// The first mma of the body, after which it goes.
    first: OperationRef<'c, 'c>,
    /// The last mma of the body.
    last: OperationRef<'c, 'c>,
    /// The carried value it gives.
    index: usize,
    /// `B`'s load, then the reshapes and permutes to the mma.
    chain: Vec<OperationRef<'c, 'c>>,
}

fn constant_index(value: melior::ir::Value) -> Option<i64> {
    let op = defining_op(value)?;
    if op_name(op) != "arith.constant" {
        return None;
    }
    melior::ir::attribute::IntegerAttribute::try_from(op.attribute("value").ok()?).ok().map(|a| a.value())
}

fn find<'c>(op: OperationRef<'c, 'c>) -> Option<Deferred<'c>> {
    let top = op.parent_operation().is_some_and(|p| op_name(p) == "func.func");
    if !top || constant_index(op.operand_at(0)?) != Some(0) || constant_index(op.operand_at(2)?) != Some(1) {
        return None;
    }
    let body = op.region_at(0)?.first_block()?;
    let terminator = body.terminator()?;
    let mut mmas = Vec::new();
    let mut stores = false;
    op.walk(WalkOrder::PreOrder, |nested| {
        match op_name(nested).as_str() {
            "tile.mma" if nested.block() == Some(body) => {
                // SAFETY: an op of the loop body, alive until the rewrite.
                mmas.push(unsafe { OperationRef::from_raw(nested.to_raw()) })
            }
            "tile.store" | "memref.store" | "vector.store" => stores = true,
            _ => {}
        }
        WalkResult::Advance
    });
    if mmas.len() < 2 || stores {
        return None;
    }
    let (first, last) = (*mmas.first()?, *mmas.last()?);
    let (user, index) = single_use(last.result_at(0)?.into())?;
    if user != terminator {
        return None;
    }
    let carried = body.argument_at(1 + index)?;
    // The carried product is read (rescaled), after the first mma only;
    // C is computed in the body, not the carried value itself.
    let c = last.operand_at(2)?;
    if argument_of(c, body).is_some() || !defined_in(c, body) || !used_after(carried.into(), first, body)? {
        return None;
    }
    // A is computed in the body, not a loaded tile.
    let a = last.operand_at(0)?;
    let a_def = defining_op(a).filter(|d| d.block() == Some(body))?;
    if matches!(op_name(a_def).as_str(), "tile.load" | "tile.reshape" | "tile.permute") {
        return None;
    }
    // B: a load of iteration j through reshapes and permutes only the mma
    // reads.
    let mut chain = Vec::new();
    let mut value = last.operand_at(1)?;
    loop {
        let def = defining_op(value).filter(|d| d.block() == Some(body))?;
        let (use_op, _) = single_use(def.result_at(0)?.into())?;
        let expected = chain.last().copied().unwrap_or(last);
        if use_op != expected {
            return None;
        }
        // SAFETY: an op of the loop body, alive until the rewrite.
        let def = unsafe { OperationRef::from_raw(def.to_raw()) };
        chain.push(def);
        match op_name(def).as_str() {
            "tile.reshape" | "tile.permute" => value = def.operand_at(0)?,
            "tile.load" => break,
            _ => return None,
        }
    }
    chain.reverse();
    let load = *chain.first()?;
    let view = PartitionViewType::try_from_type(load.operand_at(0)?.r#type())?;
    if view.padding() != Padding::Zero || !crate::rewrite::defined_outside(detach(load.operand_at(0)?), body) {
        return None;
    }
    // Its coordinates the induction variable (at least one: B at -1 must
    // be padding) and values from before the loop; an index loop.
    let induction = body.argument_at(0)?;
    if !melior::ir::TypeLike::is_index(&induction.r#type()) {
        return None;
    }
    let mut indexed = false;
    for i in 1..load.operand_count() {
        let coordinate = load.operand_at(i)?;
        indexed |= coordinate == induction.into();
        if coordinate != induction.into() && !crate::rewrite::defined_outside(detach(coordinate), body) {
            return None;
        }
    }
    if !indexed {
        return None;
    }
    // SAFETY: ops of the loop body, alive until the rewrite.
    let (first, last) = unsafe { (OperationRef::from_raw(first.to_raw()), OperationRef::from_raw(last.to_raw())) };
    Some(Deferred { first, last, index, chain })
}

/// Whether `value` is defined by an op of `block` (not an argument).
fn defined_in(value: melior::ir::Value, block: BlockRef) -> bool {
    defining_op(value).is_some_and(|d| d.block() == Some(block))
}

/// Whether `value` has uses, every one in `block` after `first`.
fn used_after(value: melior::ir::Value, first: OperationRef, block: BlockRef) -> Option<bool> {
    let users = crate::rewrite::users(value);
    if users.is_empty() {
        return Some(false);
    }
    let mut after = false;
    let mut seen = 0;
    let mut next = block.first_operation();
    while let Some(op) = next {
        if std::ptr::eq(op.to_raw().ptr, first.to_raw().ptr) {
            after = true;
        } else {
            // Uses nested in an op count as that op's.
            let here = crate::rewrite::uses_inside(op, &users);
            if here > 0 && !after {
                return Some(false);
            }
            seen += here;
        }
        next = op.next_in_block();
    }
    Some(seen == users.len())
}

fn defer<'c>(context: &'c Context, op: OperationRef<'c, 'c>, found: Deferred<'c>) -> Option<()> {
    let Deferred { first, last, index, chain } = found;
    let location = last.location();
    let body = op.region_at(0)?.first_block()?;
    let induction = detach(body.argument_at(0)?.into());
    let a_type = last.operand_at(0)?.r#type();
    let (a, c) = (detach(last.operand_at(0)?), detach(last.operand_at(2)?));
    // B at the loop's last index, loaded before the loop.
    let before = At::before(context, op)?;
    let one = before.index(1)?;
    let last_index = before.subi(detach(op.operand_at(1)?), one)?;
    let b_last = clone_chain(&before, &chain, induction, last_index)?;
    let zero = crate::build::scalar_attribute(context, crate::build::tile_type(a_type)?.1, 0.0, 0);
    let zeros = before.add(arith::constant(context, DenseElementsAttribute::splat(a_type, zero).into(), location))?;
    let carried = op.operand_count() - 3;
    let new_loop = extend_for(context, op, &[zeros])?;
    let body = new_loop.region_at(0)?.first_block()?;
    let induction = detach(body.argument_at(0)?.into());
    let previous_a = detach(body.argument_at(1 + carried)?.into());
    let previous_c = detach(body.argument_at(1 + index)?.into());
    // Iteration j - 1's mma, right after the first one.
    let at = At::before(context, first.next_in_block()?)?;
    let previous_index = at.subi(induction, at.index(1)?)?;
    let b = clone_chain(&at, &chain, induction, previous_index)?;
    let product = clone_with(&at, last, &[previous_a, b, previous_c])?;
    let product_op = defining_op(product)?;
    let mut exceptions = [product_op.to_raw()];
    // SAFETY: both values are live; every use of the carried value but
    // the new mma's now reads the product.
    unsafe {
        mlir_sys::mlirValueReplaceAllUsesExcept(previous_c.to_raw(), product.to_raw(), 1, exceptions.as_mut_ptr())
    };
    set_yield(new_loop, index, c)?;
    set_yield(new_loop, carried, a)?;
    // SAFETY: the last mma's only use (the yield) is gone, and each op of
    // B's chain was used only by the next, so they die in reverse order.
    unsafe {
        mlir_sys::mlirOperationDestroy(last.to_raw());
        for op in chain.iter().rev() {
            mlir_sys::mlirOperationDestroy(op.to_raw());
        }
    }
    // After the loop, the last iteration's mma.
    let after = At::before(context, new_loop.next_in_block()?)?;
    let result = detach(new_loop.result_at(index)?.into());
    let finished = clone_with(&after, product_op, &[detach(new_loop.result_at(carried)?.into()), b_last, result])?;
    let finished_op = defining_op(finished)?;
    let mut exceptions = [finished_op.to_raw()];
    // SAFETY: both values are live; every use of the loop's result but the
    // final mma's reads the final mma.
    unsafe { mlir_sys::mlirValueReplaceAllUsesExcept(result.to_raw(), finished.to_raw(), 1, exceptions.as_mut_ptr()) };
    Some(())
}

/// A copy of `chain` (a load, then reshapes and permutes) before `at`,
/// the load's coordinate `induction` replaced by `index`; its last value.
fn clone_chain<'c>(
    at: &At<'c, 'c>,
    chain: &[OperationRef<'c, 'c>],
    induction: IrValue<'c>,
    index: IrValue<'c>,
) -> Option<IrValue<'c>> {
    let load = *chain.first()?;
    let operands: Vec<IrValue> = (0..load.operand_count())
        .map(|i| load.operand_at(i).map(detach).map(|v| if v == induction { index } else { v }))
        .collect::<Option<_>>()?;
    let mut value = clone_with(at, load, &operands)?;
    for op in &chain[1..] {
        value = clone_with(at, *op, &[value])?;
    }
    Some(value)
}
