//! `tile-remove-layout-conversions`: fewer `tile.convert_layout`s.
//!
//! Summary: a conversion to the layout its operand already has is its
//! operand; a conversion of a conversion converts once; a tile that costs
//! nothing to make again (a splat, a splat constant, an iota) is made in
//! the layout its user wants instead of converted (rematerialised).
//!
//! Before:
//! ```mlir
//! %s = tile.splat %eps : f32 -> tensor<1x1024xf32, #a>
//! %c = tile.convert_layout %s : tensor<1x1024xf32, #a> -> tensor<1x1024xf32, #b>
//! %d = tile.convert_layout %x : tensor<1x1024xf32, #b> -> tensor<1x1024xf32, #c>
//! %e = tile.convert_layout %d : tensor<1x1024xf32, #c> -> tensor<1x1024xf32, #b>
//! ```
//! After:
//! ```mlir
//! %c = tile.splat %eps : f32 -> tensor<1x1024xf32, #b>
//! // uses of %e are uses of %x
//! ```
//!
//! A conversion between two attributes that spell the same map stays (the
//! types must match exactly); it costs nothing once lowered.
//!
//! Caveats: conversions of loop-carried tiles are not hoisted out of
//! loops, and chains of element-wise ops are not rematerialised.

use crate::{
    pass::{PassInfo, TilePass, apply_greedily},
    rewrite::{IrValue, Probe, defining_op, detach, op_name, operand, pattern},
};
use melior::ir::{AttributeLike as _, TypeLike as _};
use melior::{
    Context, ContextRef, RewritePatternSet, RewriterBase,
    ir::{Attribute, OperationRef, ValueLike, operation::OperationLike},
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::ops;

/// The `tile-remove-layout-conversions` pass.
#[derive(Clone, Default)]
pub struct RemoveLayoutConversions;

impl TilePass for RemoveLayoutConversions {
    const INFO: PassInfo = PassInfo {
        argument: "tile-remove-layout-conversions",
        name: "TileRemoveLayoutConversions",
        summary: "Drop identity and chained tile.convert_layout ops and rematerialise cheap tiles in place",
        op_name: "",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for RemoveLayoutConversions {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        apply_greedily(operation, pass, |context| {
            let patterns = RewritePatternSet::new(context);
            patterns.add(pattern(context, "tile.convert_layout", simplify));
            patterns
        });
    }
}

fn simplify<'c>(
    context: &'c Context,
    op: OperationRef<'c, '_>,
    rewriter: &RewriterBase<'c, '_>,
) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let result_type = op.result_at(0)?.r#type();
    if input.r#type() == result_type {
        return Some(input);
    }
    let producer = defining_op(input)?;
    let location = op.location();
    let remade: melior::ir::Operation = match op_name(producer).as_str() {
        "tile.convert_layout" => ops::convert_layout(context, result_type, operand(producer, 0)?, location).into(),
        "tile.splat" => ops::splat(context, result_type, operand(producer, 0)?, location).into(),
        "tile.iota" => ops::iota(context, result_type, location).into(),
        "arith.constant" => {
            let value = producer.attribute("value").ok()?;
            // SAFETY: a live dense attribute (the verifier allows only splat
            // constant tiles on this path, and the check is made first); the
            // splat value is re-wrapped in the new type of the same shape.
            let splat = unsafe {
                if !mlir_sys::mlirAttributeIsADenseElements(value.to_raw())
                    || !mlir_sys::mlirDenseElementsAttrIsSplat(value.to_raw())
                {
                    return None;
                }
                let element = mlir_sys::mlirDenseElementsAttrGetSplatValue(value.to_raw());
                Attribute::from_raw(mlir_sys::mlirDenseElementsAttrSplatGet(result_type.to_raw(), element))
            };
            melior::dialect::arith::constant(context, splat, location)
        }
        _ => return None,
    };
    Some(detach(rewriter.insert(remade).result_at(0)?.into()))
}
