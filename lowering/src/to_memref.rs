//! `convert-tile-to-memref`: tile's memory ops to `memref`, `tensor` and
//! `bufferization` ops, with the padding and masking of the language contract.
//!
//! Summary: lower `tile.load`, `tile.store` and `tile.num_tiles` to
//! clamped `memref.subview`s of the viewed memref, and drop
//! `tile.partition_view`.
//!
//! Before:
//! ```mlir
//! %v = tile.partition_view %X : memref<?x8xf32> -> !tile.partition_view<4x8xf32, padding = neg_inf>
//! %t = tile.load %v[%i, %c0] : !tile.partition_view<4x8xf32, padding = neg_inf> -> tensor<4x8xf32>
//! ```
//! After (index arithmetic abbreviated):
//! ```mlir
//! // rows [lo, hi) of the tile's rows [4*i, 4*i+4) are inside X
//! %pad = arith.constant dense<0xFF800000> : tensor<4x8xf32>
//! %in = memref.subview %X[%lo, %c0] [%rows, %c8] [1, 1]
//!     : memref<?x8xf32> to memref<?x?xf32, strided<[8, 1], offset: ?>>
//! %part = bufferization.to_tensor %in restrict : ... to tensor<?x8xf32>
//! %t = tensor.insert_slice %part into %pad[%skip, %c0] [%rows, %c8] [1, 1]
//!     : tensor<?x?xf32> into tensor<4x8xf32>   // %skip = clamp(%lo - 4*i, 0, 4)
//! ```
//! A store extracts the in-bounds part of the tile (`tensor.extract_slice`)
//! and writes it with `bufferization.materialize_in_destination` into the
//! matching subview, so out-of-bounds elements are never written.
//!
//! The coordinate is first clamped to `[-1, dim / tile + 1]` (which selects
//! the same elements: none, when it is outside) so that `coordinate x tile`
//! cannot wrap, then the bounds are clamped on both sides, so any tile
//! coordinate, negative or far past the end, gives an empty in-bounds part
//! rather than an out-of-bounds access or another tile's elements. `tile.num_tiles` is `ceildiv(memref.dim, tile dim)`.
//!
//! Caveats: a view must be made by `tile.partition_view` in the function
//! that uses it (views are not kernel arguments in the language); other
//! views are reported as errors. This is the semantic lowering used by the
//! CPU path; the GPU path lowers memory ops to TMA and vector accesses.

use crate::{
    build::{IndexMath, IrValue, insert, insert_void, padding_value, splat_constant, tile_type, with_segments},
    pass::{PassInfo, TilePass, apply_greedily, check_converted},
    rewrite::{Probe, emit_error, operand, pattern, pattern_many},
};
use melior::{
    Context, ContextRef, RewritePatternSet, RewriterBase,
    dialect::{memref, ods},
    ir::{
        Attribute, Location, OperationRef, Type, TypeLike, ValueLike,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute, StridedLayoutAttribute},
        operation::OperationLike,
        r#type::{MemRefType, RankedTensorType, ShapedTypeLike},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::types::PartitionViewType;

/// Every pattern of this conversion.
pub fn patterns(context: &Context) -> RewritePatternSet<'_> {
    let set = RewritePatternSet::new(context);
    for pattern in [
        pattern(context, "tile.load", load),
        pattern_many(context, "tile.store", store),
        pattern(context, "tile.num_tiles", num_tiles),
    ] {
        set.add(pattern);
    }
    set
}

/// The memref a view was made from, with the view's type.
fn viewed<'c>(view: IrValue<'c>) -> Option<(IrValue<'c>, PartitionViewType<'c>)> {
    let view_type = PartitionViewType::try_from_type(view.r#type())?;
    let Some(result) = crate::rewrite::op_result(view) else {
        emit_error(
            view.location(),
            "this view is not made by tile.partition_view; the memory lowering cannot see its memref",
        );
        return None;
    };
    let owner = result.owner();
    if owner.name().as_string_ref().as_str().ok()? != "tile.partition_view" {
        emit_error(
            owner.location(),
            "this view is not made by tile.partition_view; the memory lowering cannot see its memref",
        );
        return None;
    }
    Some((operand(owner, 0)?, view_type))
}

/// The in-bounds part of one tile along every dim: `lo` and `size` in the
/// memref, `skip` (where it starts inside the tile).
struct Bounds<'c> {
    lo: Vec<IrValue<'c>>,
    size: Vec<IrValue<'c>>,
    skip: Vec<IrValue<'c>>,
}

fn bounds<'c>(
    math: &IndexMath<'c, '_>,
    memref: IrValue<'c>,
    tile: &[i64],
    coords: &[IrValue<'c>],
) -> Option<Bounds<'c>> {
    let zero = math.constant(0)?;
    let mut bounds = Bounds { lo: vec![], size: vec![], skip: vec![] };
    for (d, (&extent, &coord)) in tile.iter().zip(coords).enumerate() {
        let dim = insert(math.rewriter, memref::dim(memref, math.constant(d as i64)?, math.location))?;
        let tile_extent = math.constant(extent)?;
        // Any coordinate below -1 or above `dim / extent + 1` selects no
        // element, as -1 and `dim / extent + 1` do: clamping first keeps
        // `coordinate x extent` from wrapping (2^60 + 1 times 16 would be
        // tile 1) while every in-range coordinate is unchanged.
        let beyond = math.add(math.div(dim, tile_extent)?, math.constant(1)?)?;
        let coord = math.clamp(coord, math.constant(-1)?, beyond)?;
        let first = math.mul(coord, tile_extent)?;
        let end = math.add(first, tile_extent)?;
        let lo = math.clamp(first, zero, dim)?;
        let hi = math.clamp(end, zero, dim)?;
        bounds.size.push(math.sub(hi, lo)?);
        bounds.skip.push(math.clamp(math.sub(lo, first)?, zero, tile_extent)?);
        bounds.lo.push(lo);
    }
    Some(bounds)
}

/// `kDynamic` in `static_*` arrays and shapes.
const DYNAMIC: i64 = i64::MIN;

/// The static offsets, sizes and strides of a slice op (subview,
/// extract/insert slice) of rank `rank` whose offsets and sizes are all
/// dynamic and whose strides are all 1.
fn slice_statics(rank: usize) -> [Vec<i64>; 3] {
    [vec![DYNAMIC; rank], vec![DYNAMIC; rank], vec![1; rank]]
}

/// `memref.subview %memref[lo][size][1]`, whose type keeps the memref's
/// strides with a dynamic offset and dynamic sizes.
fn subview<'c>(
    context: &'c Context,
    rewriter: &RewriterBase<'c, '_>,
    memref: IrValue<'c>,
    bounds: &Bounds<'c>,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    let memref_type = MemRefType::try_from(memref.r#type()).ok()?;
    let rank = bounds.lo.len();
    let mut strides = vec![0i64; rank];
    let mut offset = 0i64;
    // SAFETY: `strides` has room for one entry per dim of the memref.
    let ok =
        unsafe { mlir_sys::mlirMemRefTypeGetStridesAndOffset(memref_type.to_raw(), strides.as_mut_ptr(), &mut offset) };
    if ok.value == 0 {
        return None;
    }
    let layout = StridedLayoutAttribute::new(context, DYNAMIC, &strides);
    let result_type = MemRefType::new(memref_type.element(), &vec![DYNAMIC; rank], Some(layout.into()), None);
    let [offsets, sizes, strides] = slice_statics(rank);
    // melior's builder sets the operand segment sizes itself (under their
    // old name, `operand_segment_sizes`, which MLIR 22 still reads).
    insert(
        rewriter,
        memref::subview(
            context,
            memref,
            &bounds.lo,
            &bounds.size,
            &[],
            &offsets,
            &sizes,
            &strides,
            result_type,
            location,
        ),
    )
}

/// `tensor<?x...xE>` of the given rank.
fn dynamic_tensor(rank: usize, element: Type) -> Type {
    // melior takes the dims as u64 and hands their bits to MLIR as i64.
    RankedTensorType::new(&vec![DYNAMIC as u64; rank], element, None).into()
}

fn coordinates<'c>(op: OperationRef<'c, '_>, first: usize) -> Option<Vec<IrValue<'c>>> {
    (first..op.operand_count()).map(|i| operand(op, i)).collect()
}

/// The padding tile with the in-bounds part of the memref inserted.
fn load<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    use ods::{bufferization, tensor};
    let (memref, view) = viewed(operand(op, 0)?)?;
    let location = op.location();
    let math = IndexMath { context, rewriter, location };
    let tile_type_ = op.result_at(0)?.r#type();
    let (shape, element) = tile_type(tile_type_)?;
    let bounds = bounds(&math, memref, &shape, &coordinates(op, 1)?)?;
    let rank = shape.len();
    let fill =
        splat_constant(context, rewriter, tile_type_, padding_value(context, view.padding(), element)?, location)?;
    let part = subview(context, rewriter, memref, &bounds, location)?;
    let part = insert(
        rewriter,
        bufferization::ToTensorOperation::builder(context, location)
            .result(dynamic_tensor(rank, element))
            .buffer(part)
            .restrict(Attribute::unit(context))
            .build(),
    )?;
    let [offsets, sizes, strides] = slice_statics(rank).map(|statics| DenseI64ArrayAttribute::new(context, &statics));
    let insert_slice = tensor::InsertSliceOperation::builder(context, location)
        .result(tile_type_)
        .source(part)
        .dest(fill)
        .offsets(&bounds.skip)
        .sizes(&bounds.size)
        .strides(&[])
        .static_offsets(offsets.into())
        .static_sizes(sizes.into())
        .static_strides(strides.into())
        .build();
    insert(rewriter, with_segments(insert_slice, context, &[1, 1, rank, rank, 0])?)
}

/// Writes the in-bounds part of the tile into the matching subview.
fn store<'c>(
    context: &'c Context,
    op: OperationRef<'c, '_>,
    rewriter: &RewriterBase<'c, '_>,
) -> Option<Vec<IrValue<'c>>> {
    use ods::{bufferization, tensor};
    let tile = operand(op, 0)?;
    let (memref, _) = viewed(operand(op, 1)?)?;
    let location = op.location();
    let math = IndexMath { context, rewriter, location };
    let (shape, element) = tile_type(tile.r#type())?;
    let bounds = bounds(&math, memref, &shape, &coordinates(op, 2)?)?;
    let rank = shape.len();
    let [offsets, sizes, strides] = slice_statics(rank).map(|statics| DenseI64ArrayAttribute::new(context, &statics));
    let extract_slice = tensor::ExtractSliceOperation::builder(context, location)
        .result(dynamic_tensor(rank, element))
        .source(tile)
        .offsets(&bounds.skip)
        .sizes(&bounds.size)
        .strides(&[])
        .static_offsets(offsets.into())
        .static_sizes(sizes.into())
        .static_strides(strides.into())
        .build();
    let part = insert(rewriter, with_segments(extract_slice, context, &[1, rank, rank, 0])?)?;
    let destination = subview(context, rewriter, memref, &bounds, location)?;
    insert_void(
        rewriter,
        bufferization::MaterializeInDestinationOperation::builder(context, location)
            .source(part)
            .dest(destination)
            .restrict(Attribute::unit(context))
            .writable(Attribute::unit(context))
            .build(),
    );
    Some(vec![])
}

fn num_tiles<'c>(
    context: &'c Context,
    op: OperationRef<'c, '_>,
    rewriter: &RewriterBase<'c, '_>,
) -> Option<IrValue<'c>> {
    let (memref, view) = viewed(operand(op, 0)?)?;
    let dim = IntegerAttribute::try_from(op.attribute("dim").ok()?).ok()?.value();
    let extent = *view.shape().get(usize::try_from(dim).ok()?)?;
    let location = op.location();
    let math = IndexMath { context, rewriter, location };
    let size = insert(rewriter, memref::dim(memref, math.constant(dim)?, location))?;
    math.ceil_div(size, extent)
}

/// The `convert-tile-to-memref` pass.
#[derive(Clone, Default)]
pub struct ConvertTileToMemref;

impl TilePass for ConvertTileToMemref {
    const INFO: PassInfo = PassInfo {
        argument: "convert-tile-to-memref",
        name: "ConvertTileToMemref",
        summary: "Lower tile.load, tile.store and tile.num_tiles to clamped memref subviews with padding and masking",
        op_name: "",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![
            DialectHandle::memref(),
            DialectHandle::tensor(),
            DialectHandle::arith(),
            crate::pass::bufferization_handle(),
        ]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToMemref {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !crate::pass::has_tile_ops(operation) {
            return;
        }
        apply_greedily(operation, pass, patterns);
        // Views die with their last user; one that is left has a user the
        // lowering does not know.
        check_converted(
            operation,
            pass,
            |name| matches!(name, "tile.load" | "tile.store" | "tile.num_tiles" | "tile.partition_view"),
            Self::INFO.argument,
        );
    }
}
