//! The contract's example kernels, built op by op.

use melior::{
    Context,
    dialect::{arith, func, ods},
    ir::{
        Attribute, Block, BlockLike, Identifier, Location, Module, Region, RegionLike, Type, Value,
        attribute::{DenseElementsAttribute, FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute},
        r#type::{FunctionType, IntegerType, MemRefType, RankedTensorType},
    },
};
use tile_dialect::{
    ops,
    types::{Axis, Padding, PartitionViewType, ReduceKind},
};

/// Appends `op` to `block` and returns its only result.
fn push<'c, 'a>(block: &'a Block<'c>, op: impl Into<melior::ir::Operation<'c>>) -> Value<'c, 'a> {
    block.append_operation(op.into()).result(0).expect("op has one result").into()
}

fn index_constant<'c, 'a>(context: &'c Context, block: &'a Block<'c>, value: i64) -> Value<'c, 'a> {
    let location = Location::unknown(context);
    push(block, arith::constant(context, IntegerAttribute::new(Type::index(context), value).into(), location))
}

fn kernel<'c>(context: &'c Context, name: &str, inputs: &[Type<'c>], body: Block<'c>) -> melior::ir::Operation<'c> {
    let location = Location::unknown(context);
    let region = Region::new();
    region.append_block(body);
    func::func(
        context,
        StringAttribute::new(context, name),
        TypeAttribute::new(FunctionType::new(context, inputs, &[]).into()),
        region,
        &[(Identifier::new(context, tile_dialect::attrs::KERNEL), Attribute::unit(context))],
        location,
    )
}

fn tensor<'c>(shape: &[u64], element: Type<'c>) -> Type<'c> {
    RankedTensorType::new(shape, element, None).into()
}

fn view<'c>(context: &'c Context, shape: &[i64], element: Type<'c>, padding: Padding) -> Type<'c> {
    PartitionViewType::new(context, shape, element, padding).expect("valid partition view").into()
}

/// Tile sizes and element types of the matmul kernel.
#[derive(Clone, Copy, Debug)]
pub struct MatmulConfig {
    pub tile_m: i64,
    pub tile_n: i64,
    pub tile_k: i64,
    /// Rows of output tiles per group of the grouped block order.
    pub group_m: i64,
}

impl Default for MatmulConfig {
    fn default() -> Self {
        Self { tile_m: 128, tile_n: 128, tile_k: 64, group_m: 8 }
    }
}

/// The contract's matmul `C = A x B` (f16 inputs, f32 output) with grouped
/// ("swizzled") block order, for the tile sizes of `config`.
pub fn matmul(context: &Context, config: MatmulConfig) -> Module<'_> {
    let location = Location::unknown(context);
    let f16 = Type::float16(context);
    let f32 = Type::float32(context);
    let index = Type::index(context);
    let dynamic = i64::MIN; // ShapedType::kDynamic
    let mem = |element| -> Type { MemRefType::new(element, &[dynamic, dynamic], None, None).into() };
    let inputs = [mem(f16), mem(f16), mem(f32)];
    let body = Block::new(&inputs.iter().map(|&t| (t, location)).collect::<Vec<_>>());
    let (tm, tn, tk) = (config.tile_m, config.tile_n, config.tile_k);
    let (um, un, uk) = (tm as u64, tn as u64, tk as u64);
    let a_view = view(context, &[tm, tk], f16, Padding::Zero);
    let b_view = view(context, &[tk, tn], f16, Padding::Zero);
    let c_view = view(context, &[tm, tn], f32, Padding::Zero);
    {
        let block = &body;
        let c0 = index_constant(context, block, 0);
        let c1 = index_constant(context, block, 1);
        let pa = push(block, ops::partition_view(context, a_view, block.argument(0).unwrap().into(), location));
        let pb = push(block, ops::partition_view(context, b_view, block.argument(1).unwrap().into(), location));
        let pc = push(block, ops::partition_view(context, c_view, block.argument(2).unwrap().into(), location));
        let bid =
            push(block, ops::block_id(context, Axis::X.attribute(context).expect("tile dialect registered"), location));
        let c8 = index_constant(context, block, config.group_m);
        let dim = |d| IntegerAttribute::new(IntegerType::new(context, 64).into(), d);
        let nm = push(block, ops::num_tiles(context, pc, dim(0), location));
        let nn = push(block, ops::num_tiles(context, pc, dim(1), location));
        let per_group = push(block, arith::muli(c8, nn, location));
        let group = push(block, arith::divui(bid, per_group, location));
        let first_m = push(block, arith::muli(group, c8, location));
        let rows_left = push(block, arith::subi(nm, first_m, location));
        let group_m = push(block, arith::minui(rows_left, c8, location));
        let in_group = push(block, arith::remui(bid, per_group, location));
        let off_m = push(block, arith::remui(in_group, group_m, location));
        let bm = push(block, arith::addi(first_m, off_m, location));
        let bn = push(block, arith::divui(in_group, group_m, location));
        let nk = push(block, ops::num_tiles(context, pa, dim(1), location));
        let acc_type = tensor(&[um, un], f32);
        let zero = push(
            block,
            arith::constant(
                context,
                DenseElementsAttribute::new(acc_type, &[FloatAttribute::new(context, f32, 0.0).into()])
                    .expect("valid splat")
                    .into(),
                location,
            ),
        );
        let loop_body = Block::new(&[(index, location), (acc_type, location)]);
        {
            let k: Value = loop_body.argument(0).unwrap().into();
            let acc_in: Value = loop_body.argument(1).unwrap().into();
            let a = push(&loop_body, ops::load(context, tensor(&[um, uk], f16), pa, &[bm, k], location));
            let b = push(&loop_body, ops::load(context, tensor(&[uk, un], f16), pb, &[k, bn], location));
            let d = push(&loop_body, ops::mma(context, a, b, acc_in, location));
            loop_body.append_operation(ods::scf::r#yield(context, &[d], location).into());
        }
        let loop_region = Region::new();
        loop_region.append_block(loop_body);
        let acc = block
            .append_operation(ods::scf::r#for(context, &[acc_type], c0, nk, c1, &[zero], loop_region, location).into())
            .result(0)
            .unwrap()
            .into();
        block.append_operation(ops::store(context, acc, pc, &[bm, bn], location).into());
        block.append_operation(func::r#return(&[], location));
    }
    let module = Module::new(location);
    module.body().append_operation(kernel(context, "matmul", &inputs, body));
    module
}

/// The contract's row softmax over `?x1024` f32, one block per 4 rows.
pub fn softmax(context: &Context) -> Module<'_> {
    let location = Location::unknown(context);
    let f32 = Type::float32(context);
    let dynamic = i64::MIN;
    let mem: Type = MemRefType::new(f32, &[dynamic, 1024], None, None).into();
    let inputs = [mem, mem];
    let body = Block::new(&[(mem, location), (mem, location)]);
    let rows = tensor(&[4, 1024], f32);
    let col = tensor(&[4, 1], f32);
    let vec4 = tensor(&[4], f32);
    {
        let block = &body;
        let c0 = index_constant(context, block, 0);
        let x_view = view(context, &[4, 1024], f32, Padding::NegInf);
        let y_view = view(context, &[4, 1024], f32, Padding::Zero);
        let px = push(block, ops::partition_view(context, x_view, block.argument(0).unwrap().into(), location));
        let py = push(block, ops::partition_view(context, y_view, block.argument(1).unwrap().into(), location));
        let r =
            push(block, ops::block_id(context, Axis::X.attribute(context).expect("tile dialect registered"), location));
        let x = push(block, ops::load(context, rows, px, &[r, c0], location));
        let dim1 = IntegerAttribute::new(IntegerType::new(context, 64).into(), 1);
        let m = push(
            block,
            ops::reduce(
                context,
                vec4,
                x,
                ReduceKind::Max.attribute(context).expect("tile dialect registered"),
                dim1,
                location,
            ),
        );
        let m1 = push(block, ops::reshape(context, col, m, location));
        let mb = push(block, ops::broadcast(context, rows, m1, location));
        let xs = push(block, arith::subf(x, mb, location));
        let e = push(block, ods::math::exp(context, xs, location));
        let s = push(
            block,
            ops::reduce(
                context,
                vec4,
                e,
                ReduceKind::Add.attribute(context).expect("tile dialect registered"),
                dim1,
                location,
            ),
        );
        let s1 = push(block, ops::reshape(context, col, s, location));
        let sb = push(block, ops::broadcast(context, rows, s1, location));
        let y = push(block, arith::divf(e, sb, location));
        block.append_operation(ops::store(context, y, py, &[r, c0], location).into());
        block.append_operation(func::r#return(&[], location));
    }
    let module = Module::new(location);
    module.body().append_operation(kernel(context, "softmax", &inputs, body));
    module
}
