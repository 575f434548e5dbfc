//! `tile-simplify`: removes shape ops that do nothing and folds chains of them.
//!
//! Summary: fold no-op and chained `tile.reshape`, `tile.broadcast` and
//! `tile.permute`.
//!
//! Before:
//! ```mlir
//! %a = tile.reshape %t : tensor<128xf32> -> tensor<128x1xf32>
//! %b = tile.reshape %a : tensor<128x1xf32> -> tensor<1x128xf32>
//! %c = tile.permute %x [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
//! %d = tile.permute %c [1, 0] : tensor<128x64xf16> -> tensor<64x128xf16>
//! %e = tile.broadcast %y : tensor<4x8xf32> -> tensor<4x8xf32>
//! ```
//! After:
//! ```mlir
//! %b = tile.reshape %t : tensor<128xf32> -> tensor<1x128xf32>
//! // uses of %d become %x, uses of %e become %y
//! ```
//!
//! Rewrites: a reshape, broadcast or identity permute whose result type equals
//! its input's is its input; a reshape of a reshape is one reshape; a permute
//! of a permute is one permute by the composed permutation; a broadcast of a
//! broadcast is one broadcast. Caveats: the pass only rewrites verified IR
//! (MLIR verifies before each pass); it does not fold reshape/permute pairs
//! into each other, since their composition is generally not either op.

use crate::{
    pass::{PassInfo, TilePass, apply_greedily},
    rewrite::{IrValue, Probe, detach, operand, pattern},
};
use melior::{
    ContextRef, RewritePatternSet, RewriterBase,
    ir::{Location, OperationRef, Value, ValueLike, attribute::DenseI64ArrayAttribute, operation::OperationLike},
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::ops;

/// The `tile-simplify` pass.
#[derive(Clone, Default)]
pub struct Simplify;

impl TilePass for Simplify {
    const INFO: PassInfo = PassInfo {
        argument: "tile-simplify",
        name: "TileSimplify",
        summary: "Fold no-op and chained tile.reshape, tile.broadcast and tile.permute",
        op_name: "",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for Simplify {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        apply_greedily(operation, pass, |context| {
            let patterns = RewritePatternSet::new(context);
            for name in ["tile.reshape", "tile.broadcast", "tile.permute"] {
                patterns.add(pattern(context, name, simplify));
            }
            patterns
        });
    }
}

/// The op that defines `value` if it is named `name`.
fn defining<'c, 'a>(value: Value<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let result = crate::rewrite::op_result(value)?;
    let owner = result.owner();
    (owner.name().as_string_ref().as_str() == Ok(name)).then_some(owner)
}

fn permutation(op: OperationRef) -> Option<Vec<i64>> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute("permutation").ok()?).ok()?;
    (0..attribute.len()).map(|i| attribute.element(i).ok()).collect()
}

fn simplify<'c>(
    context: &'c melior::Context,
    op: OperationRef<'c, '_>,
    rewriter: &RewriterBase<'c, '_>,
) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let result_type = op.result_at(0)?.r#type();
    let name = op.name();
    let name = name.as_string_ref().as_str().ok()?;

    // A permute is a no-op only when its permutation is the identity; the
    // other two ops are no-ops exactly when the type does not change.
    let identity = match name {
        "tile.permute" => permutation(op)?.iter().enumerate().all(|(i, &d)| d == i as i64),
        _ => input.r#type() == result_type,
    };
    if identity {
        return Some(input);
    }

    let inner = defining(input, name)?;
    let source = operand(inner, 0)?;
    let location: Location = op.location();
    let folded: melior::ir::Operation = match name {
        "tile.reshape" => ops::reshape(context, result_type, source, location).into(),
        "tile.broadcast" => ops::broadcast(context, result_type, source, location).into(),
        "tile.permute" => {
            let (outer, first) = (permutation(op)?, permutation(inner)?);
            let composed =
                outer.iter().map(|&d| first.get(usize::try_from(d).ok()?).copied()).collect::<Option<Vec<i64>>>()?;
            let attribute = DenseI64ArrayAttribute::new(context, &composed);
            ops::permute(context, result_type, source, attribute.into(), location).into()
        }
        _ => return None,
    };
    Some(detach(rewriter.insert(folded).result_at(0)?.into()))
}
