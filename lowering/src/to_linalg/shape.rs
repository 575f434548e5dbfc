//! `tile.broadcast`, `tile.reshape`, `tile.permute`, `tile.splat`,
//! `tile.iota`: tiles that move or make elements without arithmetic.

use crate::build::{
    Index, IrValue, affine_map, argument, empty, generic, identity_map, insert, operand, push, tile_of, tile_type,
};
use crate::rewrite::{Probe, pattern};
use melior::{
    Context, RewriterBase,
    dialect::{arith, ods},
    ir::{
        OperationRef, Type, TypeLike, ValueLike,
        attribute::{ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute},
        operation::OperationLike,
        r#type::{IntegerType, RankedTensorType},
    },
};

/// The patterns of this family.
pub fn patterns(context: &Context) -> Vec<melior::RewritePattern> {
    vec![
        pattern(context, "tile.broadcast", broadcast),
        pattern(context, "tile.reshape", reshape),
        pattern(context, "tile.permute", permute),
        pattern(context, "tile.splat", splat),
        pattern(context, "tile.iota", iota),
    ]
}

fn result_type<'c>(op: OperationRef<'c, '_>) -> Option<melior::ir::Type<'c>> {
    Some(op.result_at(0)?.r#type())
}

/// Size-1 dims that grow read index 0 of the input.
fn broadcast<'c>(
    context: &'c Context,
    op: OperationRef<'c, '_>,
    rewriter: &RewriterBase<'c, '_>,
) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let (in_shape, _) = tile_of(input)?;
    let out_type = result_type(op)?;
    let (out_shape, _) = tile_type(out_type)?;
    let rank = out_shape.len();
    let input_map = affine_map(
        context,
        rank,
        &in_shape
            .iter()
            .zip(&out_shape)
            .enumerate()
            .map(|(d, (i, o))| if i == o { Index::Loop(d) } else { Index::Constant(0) })
            .collect::<Vec<_>>(),
    );
    let location = op.location();
    let init = empty(context, rewriter, out_type, location)?;
    generic(
        context,
        rewriter,
        &[input],
        init,
        &[input_map, identity_map(context, rank)],
        &vec!["parallel"; rank],
        location,
        |block| argument(block, 0),
    )
}

/// Row-major reinterpretation: collapse to rank 1, expand to the new shape.
fn reshape<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    use ods::tensor;
    let input = operand(op, 0)?;
    let (in_shape, element) = tile_of(input)?;
    let out_type = result_type(op)?;
    let (out_shape, _) = tile_type(out_type)?;
    let location = op.location();
    // `[[0, 1, ..., n-1]]`: every dim into one.
    let all = |n: usize| -> ArrayAttribute<'c> {
        let i64_type = IntegerType::new(context, 64).into();
        let dims = (0..n).map(|d| IntegerAttribute::new(i64_type, d as i64).into()).collect::<Vec<_>>();
        ArrayAttribute::new(context, &[ArrayAttribute::new(context, &dims).into()])
    };
    let count: i64 = in_shape.iter().product();
    let flat = if in_shape.len() == 1 {
        input
    } else {
        let flat_type = RankedTensorType::new(&[u64::try_from(count).ok()?], element, None).into();
        insert(
            rewriter,
            tensor::CollapseShapeOperation::builder(context, location)
                .result(flat_type)
                .src(input)
                .reassociation(all(in_shape.len()))
                .build(),
        )?
    };
    if out_shape.len() == 1 {
        return Some(flat);
    }
    insert(
        rewriter,
        tensor::ExpandShapeOperation::builder(context, location)
            .result(out_type)
            .src(flat)
            .output_shape(&[])
            .reassociation(all(out_shape.len()))
            .static_output_shape(DenseI64ArrayAttribute::new(context, &out_shape).into())
            .build(),
    )
}

/// Result dim `i` is input dim `perm[i]`, so input dim `perm[i]` reads `d{i}`.
fn permute<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let permutation = DenseI64ArrayAttribute::try_from(op.attribute("permutation").ok()?).ok()?;
    let rank = permutation.len();
    let mut input_exprs = vec![None; rank];
    for i in 0..rank {
        let p = usize::try_from(permutation.element(i).ok()?).ok()?;
        *input_exprs.get_mut(p)? = Some(Index::Loop(i));
    }
    let input_exprs = input_exprs.into_iter().collect::<Option<Vec<_>>>()?;
    let out_type = result_type(op)?;
    let location = op.location();
    let init = empty(context, rewriter, out_type, location)?;
    generic(
        context,
        rewriter,
        &[input],
        init,
        &[affine_map(context, rank, &input_exprs), identity_map(context, rank)],
        &vec!["parallel"; rank],
        location,
        |block| argument(block, 0),
    )
}

fn splat<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let scalar = operand(op, 0)?;
    insert(rewriter, ods::tensor::splat(context, result_type(op)?, scalar, &[], op.location()))
}

/// Element `i` is `i`, converted from `index` to the element type.
fn iota<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let out_type = result_type(op)?;
    let (_, element) = tile_type(out_type)?;
    let location = op.location();
    let init = empty(context, rewriter, out_type, location)?;
    let i64_type: Type<'c> = IntegerType::new(context, 64).into();
    generic(context, rewriter, &[], init, &[identity_map(context, 1)], &["parallel"], location, |block| {
        let index = push(
            block,
            ods::linalg::index(context, Type::index(context), IntegerAttribute::new(i64_type, 0), location),
        )?;
        if element.is_float() {
            let wide = push(block, arith::index_castui(index, i64_type, location))?;
            push(block, arith::uitofp(wide, element, location))
        } else {
            push(block, arith::index_castui(index, element, location))
        }
    })
}
