//! `tile.broadcast`, `tile.reshape`, `tile.permute`, `tile.splat`,
//! `tile.iota`: tiles that move or make elements without arithmetic.

use crate::build::{
    IrValue, argument, attribute, empty, generic, identity, insert, map, operand, push, tile_of, tile_type,
};
use crate::rewrite::pattern;
use melior::{
    Context, RewriterBase,
    ir::{
        Identifier, OperationRef, TypeLike, ValueLike,
        attribute::DenseI64ArrayAttribute,
        operation::{OperationBuilder, OperationLike},
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
    Some(op.result(0).ok()?.r#type())
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
    let input_map = map(
        rank,
        &in_shape
            .iter()
            .zip(&out_shape)
            .enumerate()
            .map(|(d, (i, o))| if i == o { format!("d{d}") } else { "0".into() })
            .collect::<Vec<_>>(),
    );
    let location = op.location();
    let init = empty(rewriter, out_type, location)?;
    generic(
        context,
        rewriter,
        &[input],
        init,
        &[input_map, identity(rank)],
        &vec!["parallel"; rank],
        location,
        |block| argument(block, 0),
    )
}

/// Row-major reinterpretation: collapse to rank 1, expand to the new shape.
fn reshape<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let (in_shape, element) = tile_of(input)?;
    let out_type = result_type(op)?;
    let (out_shape, _) = tile_type(out_type)?;
    let location = op.location();
    let all = |n: usize| format!("[[{}]]", (0..n).map(|d| d.to_string()).collect::<Vec<_>>().join(", "));
    let count: i64 = in_shape.iter().product();
    let flat = if in_shape.len() == 1 {
        input
    } else {
        let flat_type = melior::ir::Type::parse(context, &format!("tensor<{count}x{element}>"))?;
        insert(
            rewriter,
            OperationBuilder::new("tensor.collapse_shape", location)
                .add_operands(&[input])
                .add_results(&[flat_type])
                .add_attributes(&[(
                    Identifier::new(context, "reassociation"),
                    attribute(context, &all(in_shape.len()))?,
                )]),
        )?
    };
    if out_shape.len() == 1 {
        return Some(flat);
    }
    insert(
        rewriter,
        OperationBuilder::new("tensor.expand_shape", location)
            .add_operands(&[flat])
            .add_results(&[out_type])
            .add_attributes(&[
                (Identifier::new(context, "reassociation"), attribute(context, &all(out_shape.len()))?),
                (
                    Identifier::new(context, "static_output_shape"),
                    DenseI64ArrayAttribute::new(context, &out_shape).into(),
                ),
            ]),
    )
}

/// Result dim `i` is input dim `perm[i]`, so input dim `perm[i]` reads `d{i}`.
fn permute<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let permutation = DenseI64ArrayAttribute::try_from(op.attribute("permutation").ok()?).ok()?;
    let rank = permutation.len();
    let mut input_exprs = vec![String::new(); rank];
    for i in 0..rank {
        let p = usize::try_from(permutation.element(i).ok()?).ok()?;
        *input_exprs.get_mut(p)? = format!("d{i}");
    }
    let out_type = result_type(op)?;
    let location = op.location();
    let init = empty(rewriter, out_type, location)?;
    generic(
        context,
        rewriter,
        &[input],
        init,
        &[map(rank, &input_exprs), identity(rank)],
        &vec!["parallel"; rank],
        location,
        |block| argument(block, 0),
    )
}

fn splat<'c>(_context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let scalar = operand(op, 0)?;
    insert(
        rewriter,
        OperationBuilder::new("tensor.splat", op.location()).add_operands(&[scalar]).add_results(&[result_type(op)?]),
    )
}

/// Element `i` is `i`, converted from `index` to the element type.
fn iota<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let out_type = result_type(op)?;
    let (_, element) = tile_type(out_type)?;
    let location = op.location();
    let init = empty(rewriter, out_type, location)?;
    let i64_type = melior::ir::Type::parse(context, "i64")?;
    generic(context, rewriter, &[], init, &[identity(1)], &["parallel"], location, |block| {
        let index = push(
            block,
            OperationBuilder::new("linalg.index", location)
                .add_attributes(&[(Identifier::new(context, "dim"), attribute(context, "0 : i64")?)])
                .add_results(&[melior::ir::Type::index(context)]),
        )?;
        if element.is_float() {
            let wide = push(
                block,
                OperationBuilder::new("arith.index_castui", location).add_operands(&[index]).add_results(&[i64_type]),
            )?;
            push(block, OperationBuilder::new("arith.uitofp", location).add_operands(&[wide]).add_results(&[element]))
        } else {
            push(
                block,
                OperationBuilder::new("arith.index_castui", location).add_operands(&[index]).add_results(&[element]),
            )
        }
    })
}
