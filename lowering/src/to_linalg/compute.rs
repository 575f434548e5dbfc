//! `tile.reduce` and `tile.mma`: tiles that combine elements.

use crate::build::{
    Index, IrValue, Special, affine_map, argument, combine, generic, identity_map, operand, push, reduce_kind,
    scalar_attribute, special_attribute, splat_constant, tile_of, tile_type,
};
use crate::rewrite::{Probe, pattern};
use melior::{
    Context, RewriterBase,
    dialect::arith::{self, CmpiPredicate},
    ir::{
        Attribute, Block, Location, OperationRef, Type, TypeLike, ValueLike,
        attribute::{FloatAttribute, IntegerAttribute},
        operation::{Operation, OperationLike},
        r#type::IntegerType,
    },
};

/// The patterns of this family.
pub fn patterns(context: &Context) -> Vec<melior::RewritePattern> {
    vec![pattern(context, "tile.reduce", reduce), pattern(context, "tile.mma", mma)]
}

/// The identity of a reduction as a scalar attribute of the element type.
fn reduce_identity<'c>(context: &'c Context, kind: &str, element: Type<'c>) -> Option<Attribute<'c>> {
    let name = element.to_string();
    let infinity =
        |negative: bool| special_attribute(context, element, if negative { Special::NegInf } else { Special::PosInf });
    let bits = name.trim_start_matches('i').parse::<u32>().ok();
    let integer = |value: i128| Some(IntegerAttribute::new(element, i64::try_from(value).ok()?).into());
    match (kind, element.is_float()) {
        ("add", _) => Some(scalar_attribute(context, element, 0.0, 0)),
        ("mul", _) => Some(scalar_attribute(context, element, 1.0, 1)),
        ("max", true) => infinity(true),
        ("min", true) => infinity(false),
        ("max", false) => integer(-(1i128 << (bits? - 1))),
        ("min", false) => integer((1i128 << (bits? - 1)) - 1),
        _ => None,
    }
}

fn reduce<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let (in_shape, element) = tile_of(input)?;
    let kind = reduce_kind(op.attribute("kind").ok()?)?;
    let dim = usize::try_from(IntegerAttribute::try_from(op.attribute("dim").ok()?).ok()?.value()).ok()?;
    let out_type = op.result_at(0)?.r#type();
    let location = op.location();
    let init = splat_constant(context, rewriter, out_type, reduce_identity(context, kind, element)?, location)?;
    let rank = in_shape.len();
    let out_exprs = (0..rank).filter(|&d| d != dim).map(Index::Loop).collect::<Vec<_>>();
    let iterators = (0..rank).map(|d| if d == dim { "reduction" } else { "parallel" }).collect::<Vec<_>>();
    let float = element.is_float();
    generic(
        context,
        rewriter,
        &[input],
        init,
        &[identity_map(context, rank), affine_map(context, rank, &out_exprs)],
        &iterators,
        location,
        |block| {
            let value = argument(block, 0)?;
            let acc = argument(block, 1)?;
            push(block, combine(context, kind, float, acc, value, location))
        },
    )
}

/// `c[m, n] += ext(a[m, k]) * ext(b[k, n])` in the accumulator's type.
fn mma<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let (a, b, c) = (operand(op, 0)?, operand(op, 1)?, operand(op, 2)?);
    let (_, acc_type) = tile_type(c.r#type())?;
    let location = op.location();
    let map = |results: [usize; 2]| affine_map(context, 3, &results.map(Index::Loop));
    let maps = [map([0, 2]), map([2, 1]), map([0, 1])];
    generic(context, rewriter, &[a, b], c, &maps, &["parallel", "parallel", "reduction"], location, |block| {
        let extend = |value: IrValue<'c>| -> Option<IrValue<'c>> {
            let name = value.r#type().to_string();
            if value.r#type() == acc_type {
                Some(value)
            } else if name.starts_with("f8") {
                f8_to_f32(context, block, value, &name, location)
            } else {
                push(block, arith::extf(value, acc_type, location))
            }
        };
        let x = extend(argument(block, 0)?)?;
        let y = extend(argument(block, 1)?)?;
        let acc = argument(block, 2)?;
        let product = push(block, arith::mulf(x, y, location))?;
        push(block, arith::addf(acc, product, location))
    })
}

/// Decodes an f8 value to f32 with integer ops. LLVM has no f8 types, and
/// upstream's `arith` to LLVM lowering leaves `arith.extf` from f8 alone, so
/// the CPU path decodes the bits itself. `f8E5M2` is the top byte of an f16;
/// `f8E4M3FN` (bias 7, no infinities, NaN only as `S.1111.111`) is rebuilt
/// as f32 bits, with subnormals `m * 2^-9`.
fn f8_to_f32<'c>(
    context: &'c Context,
    block: &Block<'c>,
    value: IrValue<'c>,
    name: &str,
    location: Location<'c>,
) -> Option<IrValue<'c>> {
    let int = |bits: u32| -> Type<'c> { IntegerType::new(context, bits).into() };
    let (i8, i16, i32) = (int(8), int(16), int(32));
    let (f16, f32) = (Type::float16(context), Type::float32(context));
    let emit = |op: Operation<'c>| push(block, op);
    let integer = |value: i64, r#type: Type<'c>| {
        emit(arith::constant(context, IntegerAttribute::new(r#type, value).into(), location))
    };
    let binary = |op: fn(IrValue<'c>, IrValue<'c>, Location<'c>) -> Operation<'c>, a: IrValue<'c>, b: IrValue<'c>| {
        emit(op(a, b, location))
    };
    let (and, or, shl) =
        (|a, b| binary(arith::andi, a, b), |a, b| binary(arith::ori, a, b), |a, b| binary(arith::shli, a, b));
    let byte = emit(arith::bitcast(value, i8, location))?;
    if name == "f8E5M2" {
        let wide = emit(arith::extui(byte, i16, location))?;
        let high = shl(wide, integer(8, i16)?)?;
        let half = emit(arith::bitcast(high, f16, location))?;
        return emit(arith::extf(half, f32, location));
    }
    let bits = emit(arith::extui(byte, i32, location))?;
    let sign = shl(and(bits, integer(128, i32)?)?, integer(24, i32)?)?;
    let exponent = and(binary(arith::shrui, bits, integer(3, i32)?)?, integer(15, i32)?)?;
    let mantissa = and(bits, integer(7, i32)?)?;
    let normal = or(
        sign,
        or(
            shl(binary(arith::addi, exponent, integer(120, i32)?)?, integer(23, i32)?)?,
            shl(mantissa, integer(20, i32)?)?,
        )?,
    )?;
    let tiny = binary(
        arith::mulf,
        emit(arith::uitofp(mantissa, f32, location))?,
        emit(arith::constant(context, FloatAttribute::new(context, f32, 0.001953125).into(), location))?,
    )?;
    let subnormal = or(sign, emit(arith::bitcast(tiny, i32, location))?)?;
    let nan = or(sign, integer(2143289344, i32)?)?;
    let eq = |a, b| emit(arith::cmpi(context, CmpiPredicate::Eq, a, b, location));
    let is_nan = eq(and(bits, integer(127, i32)?)?, integer(127, i32)?)?;
    let is_subnormal = eq(exponent, integer(0, i32)?)?;
    let select = |c, a, b| emit(arith::select(c, a, b, location));
    let result = select(is_nan, nan, select(is_subnormal, subnormal, normal)?)?;
    emit(arith::bitcast(result, f32, location))
}
