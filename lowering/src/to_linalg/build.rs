//! Small builders shared by the linalg lowerings.

pub use crate::rewrite::{IrValue, detach, operand};
use melior::{
    Context,
    RewriterBase,
    ir::{
        Attribute, Block, BlockLike, Identifier, Location, Region, RegionLike, Type, Value,
        ValueLike,
        operation::OperationBuilder,
        r#type::RankedTensorType,
    },
};

/// Shape and element type of a tile.
pub fn tile_of<'c>(value: Value<'c, '_>) -> Option<(Vec<i64>, Type<'c>)> {
    tile_type(value.r#type())
}

/// Shape and element type of a tile type.
pub fn tile_type(r#type: Type) -> Option<(Vec<i64>, Type)> {
    use melior::ir::r#type::{DimSize, ShapedTypeLike};
    let tensor = RankedTensorType::try_from(r#type).ok()?;
    let shape = (0..tensor.rank())
        .map(|d| match tensor.dim_size(d).ok()? {
            DimSize::Static(size) => i64::try_from(size).ok(),
            DimSize::Dynamic => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((shape, tensor.element()))
}

/// Inserts `builder`'s op at the rewriter's insertion point; its first result.
pub fn insert<'c>(rewriter: &RewriterBase<'c, '_>, builder: OperationBuilder<'c>) -> Option<IrValue<'c>> {
    let op = rewriter.insert(builder.build().ok()?);
    Some(detach(op.result(0).ok()?.into()))
}

pub fn attribute<'c>(context: &'c Context, text: &str) -> Option<Attribute<'c>> {
    Attribute::parse(context, text)
}

/// `tensor.empty` of a static tensor type.
pub fn empty<'c>(rewriter: &RewriterBase<'c, '_>, r#type: Type<'c>, location: Location<'c>) -> Option<IrValue<'c>> {
    insert(rewriter, OperationBuilder::new("tensor.empty", location).add_results(&[r#type]))
}

/// A dense splat constant of a tensor type, from the element's text form.
pub fn splat_constant<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    r#type: Type<'c>,
    element: &str,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    let value = attribute(context, &format!("dense<{element}> : {type}"))?;
    insert(
        rewriter,
        OperationBuilder::new("arith.constant", location)
            .add_attributes(&[(Identifier::new(context, "value"), value)])
            .add_results(&[r#type]),
    )
}

/// `(d0, ..., d{n-1})`.
pub fn dims(n: usize) -> String {
    (0..n).map(|d| format!("d{d}")).collect::<Vec<_>>().join(", ")
}

/// `affine_map<(d0..d{n-1}) -> (results)>`.
pub fn map(n: usize, results: &[String]) -> String {
    format!("affine_map<({}) -> ({})>", dims(n), results.join(", "))
}

/// The identity map over `n` loops.
pub fn identity(n: usize) -> String {
    map(n, &(0..n).map(|d| format!("d{d}")).collect::<Vec<_>>())
}

/// A `linalg.generic` over `loops` loops whose body `body` builds from the
/// block arguments (one per input, one per output) the yielded value.
#[allow(clippy::too_many_arguments)]
pub fn generic<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    inputs: &[IrValue<'c>],
    output: IrValue<'c>,
    maps: &[String],
    iterators: &[&str],
    location: Location<'c>,
    body: impl FnOnce(&Block<'c>) -> Option<IrValue<'c>>,
) -> Option<IrValue<'c>> {
    let element_types = inputs
        .iter()
        .chain([&output])
        .map(|v| tile_of(*v).map(|(_, e)| (e, location)))
        .collect::<Option<Vec<_>>>()?;
    let block = Block::new(&element_types);
    let yielded = body(&block)?;
    block.append_operation(
        OperationBuilder::new("linalg.yield", location)
            .add_operands(&[yielded])
            .build()
            .ok()?,
    );
    let region = Region::new();
    region.append_block(block);
    let iterator_types = iterators
        .iter()
        .map(|i| format!("#linalg.iterator_type<{i}>"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut operands = inputs.to_vec();
    operands.push(output);
    insert(
        rewriter,
        OperationBuilder::new("linalg.generic", location)
            .add_operands(&operands)
            .add_results(&[output.r#type()])
            .add_attributes(&[
                (Identifier::new(context, "indexing_maps"), attribute(context, &format!("[{}]", maps.join(", ")))?),
                (Identifier::new(context, "iterator_types"), attribute(context, &format!("[{iterator_types}]"))?),
                (
                    Identifier::new(context, "operandSegmentSizes"),
                    attribute(context, &format!("array<i32: {}, 1>", inputs.len()))?,
                ),
            ])
            .add_regions([region]),
    )
}

/// Appends an op to a generic's body and returns its first result.
pub fn push<'c>(block: &Block<'c>, builder: OperationBuilder<'c>) -> Option<IrValue<'c>> {
    // The block moves into the generic op's region, which keeps the op alive.
    let op = block.append_operation(builder.build().ok()?);
    Some(detach(op.result(0).ok()?.into()))
}

/// Argument `index` of a body block.
pub fn argument<'c>(block: &Block<'c>, index: usize) -> Option<IrValue<'c>> {
    Some(detach(block.argument(index).ok()?.into()))
}
