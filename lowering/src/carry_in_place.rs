//! `tile-carry-in-place`: every tile an `scf.for` carries keeps one buffer
//! for the whole loop.
//!
//! Summary: after `one-shot-bufferize{allow-return-allocs-from-loops}`, a
//! loop whose body yields a buffer other than its iteration argument (a
//! fresh allocation of the body, or a choice between several) gets, for
//! that carried value, a buffer allocated before the loop (the initial
//! value copied in) and a copy of the yielded buffer into it before the
//! yield, which then yields the iteration argument itself.
//!
//! Before (`%next` is a fresh buffer each iteration):
//! ```mlir
//! %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %init) -> (memref<128xf32>) {
//!   %next = memref.alloc() : memref<128xf32>
//!   linalg.generic ... ins(%part, %acc : ...) outs(%next : memref<128xf32>)
//!   scf.yield %next : memref<128xf32>
//! }
//! ```
//! After:
//! ```mlir
//! %carried = memref.alloc() {alignment = 64 : i64} : memref<128xf32>
//! memref.copy %init, %carried : memref<128xf32> to memref<128xf32>
//! %r = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %carried) -> (memref<128xf32>) {
//!   %next = memref.alloc() : memref<128xf32>
//!   linalg.generic ... ins(%part, %acc : ...) outs(%next : memref<128xf32>)
//!   memref.copy %next, %acc : memref<128xf32> to memref<128xf32>
//!   scf.yield %acc : memref<128xf32>
//! }
//! ```
//!
//! Why: the language lets a loop carry any tile it computes (an add with
//! its operands swapped, a fresh tile, two tiles swapped, one value yielded
//! twice, an `scf.if` or `arith.select` choosing the next value, the running
//! max, sum and output of an online softmax). One-shot bufferization keeps
//! a carried tile in place only when the yielded value provably is the
//! iteration argument's buffer, and rejects every other loop ("Yield
//! operand #0 is not equivalent to the corresponding iter bbArg") unless it
//! may yield new allocations; yielded allocations suit neither target: the
//! GPU gives each `memref.alloc` one fixed place in shared memory, so an
//! allocation of iteration `i + 1` would overwrite the tile iteration `i`
//! yielded, and the CPU would need run-time ownership checks to free them.
//! With one buffer per carried tile, the allocations of the body live for
//! one iteration, which is what both targets do well.
//!
//! Cost: one tile copy per such carried value per iteration (and one
//! before the loop); loops that bufferize in place (a matmul's accumulator,
//! `%acc + %part`) are left alone.
//!
//! Invariant the copies rely on: with `allow-return-allocs-from-loops`,
//! one-shot bufferization copies a yielded value that may alias a buffer
//! from outside the loop (a swapped iteration argument, say) into a fresh
//! allocation, so a yielded buffer is the body's own or, at most, the
//! value's own iteration argument. The pass checks that through views,
//! `arith.select` and `scf.if`/`scf.for` results; a yielded value it cannot
//! trace goes through a temporary first (all temporaries are filled before
//! any iteration argument is overwritten).
//!
//! Caveats: run it right after `one-shot-bufferize` (before deallocation,
//! which then frees the body's buffers each iteration). Carried buffers of
//! static shape only (tiles); a dynamic one is an error.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, defined_outside, defining_op, detach, emit_error, op_name},
};
use melior::{
    Context, ContextRef,
    ir::{
        BlockLike, BlockRef, Identifier, OperationRef, RegionLike, Type, Value, ValueLike,
        attribute::{DenseI32ArrayAttribute, IntegerAttribute},
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut},
        r#type::{DimSize, MemRefType, ShapedTypeLike},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The `tile-carry-in-place` pass.
#[derive(Clone, Default)]
pub struct CarryInPlace;

impl TilePass for CarryInPlace {
    const INFO: PassInfo = PassInfo {
        argument: "tile-carry-in-place",
        name: "TileCarryInPlace",
        summary: "Give every buffer an scf.for carries one allocation for the whole loop (after one-shot-bufferize \
                  with allow-return-allocs-from-loops)",
        op_name: "",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::memref()]
    }
}

impl<'c> RunExternalPass<'c> for CarryInPlace {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        // Inner loops first: an outer loop then sees an inner loop's result
        // as the buffer allocated before the inner loop.
        for raw in crate::loops::for_loops(operation) {
            // SAFETY: a live op collected above; no op is erased by this pass.
            let op = unsafe { OperationRef::from_raw(raw) };
            if let Err(message) = carry(context, op) {
                emit_error(op.location(), &message);
                pass.signal_failure();
                return;
            }
        }
    }
}

/// Same SSA value.
fn same(a: Value, b: Value) -> bool {
    a.to_raw().ptr == b.to_raw().ptr
}

/// Gives each memref `scf.for` `op` carries, whose yielded value is not its
/// iteration argument, one buffer for the loop.
fn carry<'c>(context: &'c Context, op: OperationRef<'c, '_>) -> Result<(), String> {
    const LEADING: usize = 3; // lower bound, upper bound, step
    let broken = || "scf.for without a body and a yield".to_string();
    let body = op.region_at(0).and_then(|r| r.first_block()).ok_or_else(broken)?;
    let terminator = body.terminator().ok_or_else(broken)?;
    let carried = op.operand_count().saturating_sub(LEADING);
    if terminator.operand_count() != carried || body.argument_count() != carried + 1 {
        return Err(broken());
    }
    let mut fixed = Vec::new();
    for i in 0..carried {
        let argument: IrValue = detach(body.argument_at(i + 1).ok_or_else(broken)?.into());
        let yielded = detach(terminator.operand_at(i).ok_or_else(broken)?);
        if MemRefType::try_from(argument.r#type()).is_ok() && !same(argument, yielded) {
            fixed.push((i, argument, yielded));
        }
    }
    if fixed.is_empty() {
        return Ok(());
    }

    // Before the loop: each such value's buffer, holding the initial value.
    let before = At::before(context, op).ok_or_else(broken)?;
    // SAFETY: the loop is live; only its init operands change.
    let mut loop_op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    for &(i, argument, _) in &fixed {
        let init = detach(op.operand_at(LEADING + i).ok_or_else(broken)?);
        let buffer = allocate(&before, argument.r#type())?;
        copy(&before, init, buffer)?;
        loop_op.set_operand(LEADING + i, buffer);
    }

    // Before the yield: values that might alias another iteration argument
    // into temporaries first, then every value into its own argument.
    let at_yield = At::before(context, terminator).ok_or_else(broken)?;
    let mut sources = Vec::new();
    for &(_, argument, yielded) in &fixed {
        if body_owned(yielded, argument, body) {
            sources.push(yielded);
        } else {
            let temporary = allocate(&at_yield, argument.r#type())?;
            copy(&at_yield, yielded, temporary)?;
            sources.push(temporary);
        }
    }
    // SAFETY: the yield is live; only its operands change.
    let mut yield_op = unsafe { OperationRefMut::from_raw(terminator.to_raw()) };
    for (&(i, argument, _), source) in fixed.iter().zip(sources) {
        copy(&at_yield, source, argument)?;
        yield_op.set_operand(i, argument);
    }
    Ok(())
}

/// Whether every buffer `value` may be is allocated in `body` (or is
/// `argument`, the value's own iteration argument), through views,
/// `arith.select`, `scf.if` and in-place `scf.for` results.
fn body_owned(value: IrValue, argument: IrValue, body: BlockRef) -> bool {
    let mut pending = vec![value];
    let mut seen = 0;
    while let Some(value) = pending.pop() {
        seen += 1;
        if seen > 256 {
            return false;
        }
        if same(value, argument) {
            continue;
        }
        let Some(op) = defining_op(value) else { return false };
        let operand = |index: usize| op.operand_at(index).map(detach);
        match op_name(op).as_str() {
            "memref.alloc" | "memref.alloca" if !defined_outside(value, body) => {}
            "memref.cast"
            | "memref.subview"
            | "memref.expand_shape"
            | "memref.collapse_shape"
            | "memref.reinterpret_cast"
            | "memref.memory_space_cast" => match operand(0) {
                Some(source) => pending.push(source),
                None => return false,
            },
            "arith.select" => match (operand(1), operand(2)) {
                (Some(a), Some(b)) => pending.extend([a, b]),
                _ => return false,
            },
            "scf.if" | "scf.for" => {
                let Some(index) = result_index(op, value) else { return false };
                let is_for = op_name(op) == "scf.for";
                for region in op.regions() {
                    let Some(block) = region.first_block() else { continue };
                    let Some(yielded) = block.terminator().and_then(|t| t.operand_at(index)).map(detach) else {
                        return false;
                    };
                    if is_for {
                        // An in-place loop yields its argument: its result
                        // is its initial value.
                        let in_place = block.argument_at(index + 1).is_some_and(|a| same(detach(a.into()), yielded));
                        match operand(3 + index) {
                            Some(init) if in_place => pending.push(init),
                            _ => return false,
                        }
                    } else {
                        pending.push(yielded);
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// The position of `value` among `op`'s results.
fn result_index(op: OperationRef, value: IrValue) -> Option<usize> {
    op.results().position(|r| same(r.into(), value))
}

/// A new buffer that a value of memref type `r#type` can live in: an
/// allocation of its shape (cast to `r#type` when that has a layout).
fn allocate<'c>(at: &At<'c, '_>, r#type: Type<'c>) -> Result<IrValue<'c>, String> {
    let memref = MemRefType::try_from(r#type).map_err(|e| e.to_string())?;
    let mut shape = Vec::new();
    for d in 0..memref.rank() {
        match memref.dim_size(d).map_err(|e| e.to_string())? {
            DimSize::Static(size) => shape.push(size as i64),
            DimSize::Dynamic => {
                return Err(format!("a loop carries a buffer of dynamic shape ({}); tiles are static", r#type));
            }
        }
    }
    let contiguous = MemRefType::new(memref.element(), &shape, None, memref.memory_space());
    let alloc = OperationBuilder::new("memref.alloc", at.location)
        .add_attributes(&[
            (
                Identifier::new(at.context, "operandSegmentSizes"),
                DenseI32ArrayAttribute::new(at.context, &[0, 0]).into(),
            ),
            (
                Identifier::new(at.context, "alignment"),
                IntegerAttribute::new(Type::parse(at.context, "i64").ok_or("no i64")?, 64).into(),
            ),
        ])
        .add_results(&[contiguous.into()])
        .build()
        .map_err(|e| e.to_string())?;
    let buffer = at.add(alloc).ok_or("memref.alloc has no result")?;
    if Type::from(contiguous) == r#type {
        return Ok(buffer);
    }
    let cast = melior::dialect::memref::cast(buffer, memref, at.location);
    at.add(cast).ok_or_else(|| "memref.cast has no result".to_string())
}

/// `memref.copy source, target`.
fn copy<'c>(at: &At<'c, '_>, source: IrValue<'c>, target: IrValue<'c>) -> Result<(), String> {
    let op = OperationBuilder::new("memref.copy", at.location)
        .add_operands(&[source, target])
        .build()
        .map_err(|e| e.to_string())?;
    at.insert(op);
    Ok(())
}
