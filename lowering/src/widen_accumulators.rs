//! `tile-widen-accumulators`: an mma into an f16 accumulator computes in
//! f32, and a loop that carries such an accumulator carries it in f32.
//!
//! Summary: the tensor cores' f16 products are summed in f32 whatever the
//! accumulator's type, and the register path keeps only f32 accumulators
//! (wgmma's f16 accumulator would round every 16 elements of K). So each
//! `tile.mma` into an f16 tile whose shapes wgmma takes from registers
//! (`registers::mma::unsupported`) becomes `arith.extf` of its
//! accumulator, the mma into f32, and `arith.truncf` of its result: one
//! rounding per mma, as the language asks of an f16 result. Then, for an
//! `scf.for` that carries an f16 tile which each iteration widens
//! (`arith.extf`) into such an mma's accumulator (or an inner loop's
//! init) and whose next value it rounds from f32 (`arith.truncf`), the
//! loop carries the f32 tile instead and rounds it once after the loop; a
//! use of the carried value other than a widening reads it rounded, the
//! value it had. That
//! second step is what an f16 GEMM's K loop needs to run as an f32 one (it
//! is what cuBLAS does with f16 data and f32 compute); it changes the
//! result by rounding fewer times.
//!
//! Before:
//! ```mlir
//! %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero) -> (tensor<128x128xf16>) {
//!   ...
//!   %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf16>
//!   scf.yield %d : tensor<128x128xf16>
//! }
//! ```
//! After:
//! ```mlir
//! %zero32 = arith.extf %zero : tensor<128x128xf16> to tensor<128x128xf32>
//! %acc32 = scf.for %k = %c0 to %nk step %c1 iter_args(%c = %zero32) -> (tensor<128x128xf32>) {
//!   ...
//!   %d = tile.mma %a, %b, %c : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
//!   scf.yield %d : tensor<128x128xf32>
//! }
//! %acc = arith.truncf %acc32 : tensor<128x128xf32> to tensor<128x128xf16>
//! ```
//!
//! Caveats: only `scf.for` loops carry the wider tile (an `scf.while` or a
//! value carried through `scf.if` rounds once per mma); a loop value whose
//! every iteration is rounded from some other type, or that no widened mma
//! accumulates (an element-wise loop), is left alone; an mma of shapes
//! wgmma has no instruction for keeps its f16 accumulator (on the
//! shared-memory path an f32 one would only take twice the memory), and
//! so does one whose f32 tile would be larger than a tile may be (a
//! 256x256 accumulator), which the pass says at the mma
//! (`NarrowAccumulator`). The
//! pass says at each mma whose loop it widens that it did
//! (`WidenedAccumulator`). The GPU pipeline runs it; the CPU pipeline keeps
//! the f16 accumulator of each mma as written.

use crate::{
    build::{At, tile_type},
    layout::set_type,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, defining_op, detach, op_name, uses},
};
use melior::{
    Context, ContextRef,
    dialect::arith,
    ir::{
        BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        r#type::RankedTensorType,
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The `tile-widen-accumulators` pass.
#[derive(Clone, Default)]
pub struct WidenAccumulators;

impl TilePass for WidenAccumulators {
    const INFO: PassInfo = PassInfo {
        argument: "tile-widen-accumulators",
        name: "TileWidenAccumulators",
        summary: "Compute an mma into an f16 accumulator in f32, and carry a loop's f16 accumulator in f32, \
                  rounded once after the loop",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for WidenAccumulators {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        if !operation.has_attribute(tile_dialect::attrs::KERNEL) {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let mut mmas = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "tile.mma" {
                mmas.push(op.to_raw());
            }
            WalkResult::Advance
        });
        let mut widened = Vec::new();
        for raw in mmas {
            // SAFETY: an mma of the kernel; the rewrite adds ops around it and
            // changes its types, never erasing it.
            let mma = unsafe { OperationRef::from_raw(raw) };
            if widen_mma(context, mma).is_some() {
                widened.push(raw);
            }
        }
        if widened.is_empty() {
            return;
        }
        // Inner loops first: an outer loop's accumulator reaches the inner
        // loop's init through the widening the inner loop's rewrite adds.
        for raw in crate::loops::for_loops(operation) {
            // SAFETY: a loop of the kernel; its rewrite keeps it.
            let r#loop = unsafe { OperationRef::from_raw(raw) };
            let results = r#loop.result_count();
            for index in 0..results {
                if carry_wide(context, r#loop, index).is_some() && !operation.has_attribute("tile.variant_of") {
                    say(r#loop, index);
                }
            }
        }
    }
}

/// The f32 tile type of the shape of `r#type`, an f16 tile.
fn f32_of<'c>(context: &'c Context, r#type: Type<'c>) -> Option<Type<'c>> {
    let (shape, element) = tile_type(r#type)?;
    if !element.is_f16() {
        return None;
    }
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    Some(RankedTensorType::new(&shape, Type::float32(context), None).into())
}

/// Rewrites an mma into an f16 tile as one into f32 between a widening
/// and a rounding.
fn widen_mma<'c>(context: &'c Context, mma: OperationRef<'c, '_>) -> Option<()> {
    let result = mma.result_at(0)?;
    let wide = f32_of(context, result.r#type())?;
    // Only where wgmma takes the f32 mma from registers: elsewhere (the
    // shared-memory path) an f32 accumulator is only twice the memory.
    let operand = |i: usize| tile_type(mma.operand_at(i)?.r#type()).map(|(shape, e)| (shape, e.to_string()));
    let ((a, a_element), (b, b_element)) = (operand(0)?, operand(1)?);
    if crate::registers::mma::unsupported((&a, &a_element), (&b, &b_element), "f32").is_some() {
        return None;
    }
    let narrow = result.r#type();
    let location = mma.location();
    // The f32 tile is a tile too: past the tile size limit (a 256x256
    // accumulator) the verifier that runs after the pass would reject it.
    let (shape, _) = tile_type(wide)?;
    let bytes = 4 * shape.iter().product::<i64>();
    if bytes > tile_dialect::attrs::MAX_TILE_BYTES {
        crate::remarks::missed(
            location,
            WidenAccumulators::INFO.argument,
            "NarrowAccumulator",
            &format!(
                "this f16 accumulator is summed in f16: in f32 it would take {bytes} bytes, more than a tile \
                 takes ({})",
                tile_dialect::attrs::MAX_TILE_BYTES
            ),
        );
        return None;
    }
    let before = At::before(context, mma)?;
    let accumulator = before.add(arith::extf(mma.operand_at(2)?, wide, location))?;
    // SAFETY: the mma is live; its accumulator operand becomes the f32 tile
    // its result takes below, which the mma's verifier asks.
    unsafe { mlir_sys::mlirOperationSetOperand(mma.to_raw(), 2, accumulator.to_raw()) };
    set_type(result.into(), wide);
    let after = At::before(context, mma.next_in_block()?)?;
    let rounded = after.add(arith::truncf(detach(result.into()), narrow, location))?;
    replace_except(detach(result.into()), rounded);
    Some(())
}

/// Replaces every use of `value` with `by`, except by `by`'s own op.
fn replace_except(value: IrValue, by: IrValue) {
    let Some(op) = defining_op(by) else { return };
    let mut except = [op.to_raw()];
    // SAFETY: both values are live and of one type; the excepted op is the
    // one that reads `value` to make `by`.
    unsafe { mlir_sys::mlirValueReplaceAllUsesExcept(value.to_raw(), by.to_raw(), 1, except.as_mut_ptr()) };
}

/// Carries loop value `index` in f32 where every iteration rounds it from
/// f32 and a widening of it feeds a widened mma's accumulator (or an inner
/// loop's init), see the module's summary.
fn carry_wide<'c>(context: &'c Context, r#loop: OperationRef<'c, '_>, index: usize) -> Option<()> {
    let body = r#loop.region_at(0)?.first_block()?;
    let yield_op = body.terminator()?;
    let yielded = yield_op.operand_at(index)?;
    let rounding = defining_op(yielded).filter(|d| op_name(*d) == "arith.truncf")?;
    let exact = detach(rounding.operand_at(0)?);
    let narrow = yielded.r#type();
    let wide = f32_of(context, narrow)?;
    if exact.r#type() != wide {
        return None;
    }
    let argument = detach(body.argument_at(index + 1)?.into());
    let is_widening =
        |op: OperationRef| op_name(op) == "arith.extf" && op.result_at(0).is_some_and(|r| r.r#type() == wide);
    // An accumulator: a widening read as an mma's accumulator or a loop's
    // init, not any value an element-wise loop rounds each iteration.
    let accumulates = |op: OperationRef| {
        op.result_at(0).is_some_and(|r| {
            uses(r.into()).iter().any(|(user, number)| match op_name(*user).as_str() {
                "tile.mma" => *number == 2,
                "scf.for" => *number >= 3,
                _ => false,
            })
        })
    };
    // Every use is read before anything changes: the rewrite erases the
    // widenings, which may be the body's first op or the yield's value.
    let (widenings, others): (Vec<_>, Vec<_>) = uses(argument).into_iter().partition(|(user, _)| is_widening(*user));
    if !widenings.iter().any(|(user, _)| accumulates(*user)) {
        return None;
    }
    let location = r#loop.location();
    // The init, widened before the loop.
    let init = r#loop.operand_at(3 + index)?;
    let wide_init = At::before(context, r#loop)?.add(arith::extf(init, wide, location))?;
    // SAFETY: the loop is live; the init becomes the f32 tile that the
    // iteration argument, the yield and the result take below.
    unsafe { mlir_sys::mlirOperationSetOperand(r#loop.to_raw(), (3 + index) as isize, wide_init.to_raw()) };
    // The yield passes the f32 tile (if that is a widening of the argument,
    // the replacement below makes it the argument); its rounding stays for
    // other users.
    // SAFETY: the yield is live and the loop value is f32 from here on.
    unsafe { mlir_sys::mlirOperationSetOperand(yield_op.to_raw(), index as isize, exact.to_raw()) };
    set_type(argument, wide);
    // Anything but a widening reads the argument rounded, the value it had:
    // one rounding at the body's start.
    if !others.is_empty() {
        let copy = body.insert_operation(0, arith::truncf(argument, narrow, location));
        let copy = detach(copy.result_at(0)?.into());
        for (user, number) in others {
            // SAFETY: the user is live and read the f16 tile `copy` is.
            unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), number as isize, copy.to_raw()) };
        }
    }
    // Widenings read it as it is.
    for (widening, _) in widenings {
        let widened = detach(widening.result_at(0)?.into());
        // SAFETY: the widening's result and the argument are both f32 tiles
        // now; the widening is then unused and erased.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(widened.to_raw(), argument.to_raw());
            mlir_sys::mlirOperationDestroy(widening.to_raw());
        }
    }
    if uses(detach(rounding.result_at(0)?.into())).is_empty() {
        // SAFETY: nothing uses the rounding any more.
        unsafe { mlir_sys::mlirOperationDestroy(rounding.to_raw()) };
    }
    // The result, rounded once after the loop.
    let result = detach(r#loop.result_at(index)?.into());
    set_type(result, wide);
    let after = At::before(context, r#loop.next_in_block()?)?;
    let rounded = after.add(arith::truncf(result, narrow, location))?;
    replace_except(result, rounded);
    Some(())
}

/// Says at the mmas that a loop's value reaches that it is carried in f32.
fn say(r#loop: OperationRef, index: usize) {
    let Some(body) = r#loop.region_at(0).and_then(|r| r.first_block()) else { return };
    let Some(argument) = body.argument_at(index + 1) else { return };
    for (user, _) in uses(argument.into()) {
        if op_name(user) == "tile.mma" {
            crate::remarks::passed(
                user.location(),
                WidenAccumulators::INFO.argument,
                "WidenedAccumulator",
                "this f16 accumulator is carried in f32 across the loop and rounded once after it",
            );
        }
    }
}
