//! `tile-lower-float-minmax`: floating-point minimum and maximum as LLVM's
//! intrinsics, before `arith-expand` would spell them out.
//!
//! Summary: each `arith.maximumf`, `arith.minimumf`, `arith.maxnumf` and
//! `arith.minnumf` on floats of 16 or 32 bits (or vectors of them) becomes
//! `llvm.intr.maximum`, `llvm.intr.minimum`, `llvm.intr.maxnum` or
//! `llvm.intr.minnum`, which have the same semantics (NaN propagated by
//! the first two, dropped by the others; -0 below +0).
//!
//! Before:
//! ```mlir
//! %m = arith.maximumf %a, %b : f32
//! ```
//! After:
//! ```mlir
//! %m = llvm.intr.maximum(%a, %b) : (f32, f32) -> f32
//! ```
//!
//! Why: the GPU pipeline runs `arith-expand` for the integer divisions
//! that have no LLVM lowering (`ceildivsi`, `floordivsi`, `ceildivui`),
//! and the same pass rewrites every float minimum and maximum into two
//! compares and two selects. The NVPTX back end makes one instruction of
//! each intrinsic on `sm_80` and later (`max.NaN.f32`, `max.f32`, and
//! their `f16`/`bf16` forms): a row maximum, as softmax and attention
//! take every iteration, costs a quarter of the instructions.
//!
//! Caveats: run it after `lower-affine` and before `arith-expand`; it
//! leaves other element types (f64, f8) and tensors to `arith-expand`.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{Probe, detach, op_name},
};
use melior::{
    ContextRef,
    dialect::ods,
    ir::{
        OperationRef, Type, TypeLike, ValueLike,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The `tile-lower-float-minmax` pass.
#[derive(Clone, Default)]
pub struct LowerFloatMinMax;

impl TilePass for LowerFloatMinMax {
    const INFO: PassInfo = PassInfo {
        argument: "tile-lower-float-minmax",
        name: "TileLowerFloatMinMax",
        summary: "Lower arith's float minimum and maximum (16 and 32 bits) to LLVM's intrinsics, one instruction \
                  each on the GPU, before arith-expand spells them out as compares and selects",
        op_name: "",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::llvm()]
    }
}

impl<'c> RunExternalPass<'c> for LowerFloatMinMax {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let mut found = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if matches!(op_name(op).as_str(), "arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf")
                && op.result_at(0).is_some_and(|r| lowered_type(r.r#type()))
            {
                found.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for raw in found {
            // SAFETY: a live op collected above, replaced once; the op built
            // for it is not in the list.
            let op = unsafe { OperationRef::from_raw(raw) };
            let (Some(a), Some(b), Some(old)) = (op.operand_at(0), op.operand_at(1), op.result_at(0)) else { continue };
            let (a, b, location) = (detach(a), detach(b), op.location());
            let Some(at) = At::before(context, op) else { continue };
            let new = match op_name(op).as_str() {
                "arith.maximumf" => at.add(ods::llvm::intr_maximum(context, a, b, location)),
                "arith.minimumf" => at.add(ods::llvm::intr_minimum(context, a, b, location)),
                "arith.maxnumf" => at.add(ods::llvm::intr_maxnum(context, a, b, location)),
                _ => at.add(ods::llvm::intr_minnum(context, a, b, location)),
            };
            let Some(new) = new else { continue };
            // SAFETY: the intrinsic, right before the op, takes every use of
            // its only result (the same type); the op, then unused, is erased.
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw());
                mlir_sys::mlirOperationDestroy(raw);
            }
        }
    }
}

/// Floats of 16 or 32 bits, or vectors of them: what the intrinsics take
/// and the NVPTX back end selects.
fn lowered_type(r#type: Type) -> bool {
    let raw = r#type.to_raw();
    // SAFETY: type queries of a live type; a vector type is shaped, so it
    // has an element type.
    let element = unsafe {
        if mlir_sys::mlirTypeIsAVector(raw) {
            Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw))
        } else if mlir_sys::mlirTypeIsATensor(raw) {
            return false;
        } else {
            r#type
        }
    };
    element.is_f32() || element.is_f16() || element.is_bf16()
}
