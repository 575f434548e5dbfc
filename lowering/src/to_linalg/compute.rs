//! `tile.reduce` and `tile.mma`: tiles that combine elements.

use crate::build::{
    IrValue, Special, argument, float_bits, generic, identity, map, operand, push, splat_constant, tile_of, tile_type,
};
use crate::rewrite::pattern;
use melior::{
    Context, RewriterBase,
    ir::{
        Attribute, OperationRef, Type, TypeLike, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
    },
};

/// The patterns of this family.
pub fn patterns(context: &Context) -> Vec<melior::RewritePattern> {
    vec![pattern(context, "tile.reduce", reduce), pattern(context, "tile.mma", mma)]
}

/// The reduction's kind keyword: `add`, `mul`, `max` or `min`.
fn reduce_kind(attribute: Attribute) -> Option<&'static str> {
    let text = attribute.to_string();
    ["add", "mul", "max", "min"].into_iter().find(|k| text.ends_with(&format!("{k}>")))
}

/// The identity of a reduction, as the text of a dense element. Float
/// infinities are written as bit patterns of the element's own width.
fn reduce_identity(kind: &str, element: Type) -> Option<String> {
    let name = element.to_string();
    let infinity = |negative: bool| float_bits(element, if negative { Special::NegInf } else { Special::PosInf });
    let bits = name.trim_start_matches('i').parse::<u32>().ok();
    Some(match (kind, element.is_float()) {
        ("add", true) => "0.0".into(),
        ("mul", true) => "1.0".into(),
        ("max", true) => infinity(true)?.into(),
        ("min", true) => infinity(false)?.into(),
        ("add", false) => "0".into(),
        ("mul", false) => "1".into(),
        ("max", false) => (-(1i128 << (bits? - 1))).to_string(),
        ("min", false) => ((1i128 << (bits? - 1)) - 1).to_string(),
        _ => return None,
    })
}

fn combine_op(kind: &str, float: bool) -> &'static str {
    match (kind, float) {
        ("add", true) => "arith.addf",
        ("add", false) => "arith.addi",
        ("mul", true) => "arith.mulf",
        ("mul", false) => "arith.muli",
        ("max", true) => "arith.maximumf",
        ("max", false) => "arith.maxsi",
        ("min", true) => "arith.minimumf",
        _ => "arith.minsi",
    }
}

fn reduce<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let input = operand(op, 0)?;
    let (in_shape, element) = tile_of(input)?;
    let kind = reduce_kind(op.attribute("kind").ok()?)?;
    let dim = usize::try_from(IntegerAttribute::try_from(op.attribute("dim").ok()?).ok()?.value()).ok()?;
    let out_type = op.result(0).ok()?.r#type();
    let location = op.location();
    let init = splat_constant(context, rewriter, out_type, &reduce_identity(kind, element)?, location)?;
    let rank = in_shape.len();
    let out_exprs = (0..rank).filter(|&d| d != dim).map(|d| format!("d{d}")).collect::<Vec<_>>();
    let iterators = (0..rank).map(|d| if d == dim { "reduction" } else { "parallel" }).collect::<Vec<_>>();
    let combine = combine_op(kind, element.is_float());
    generic(
        context,
        rewriter,
        &[input],
        init,
        &[identity(rank), map(rank, &out_exprs)],
        &iterators,
        location,
        |block| {
            let value = argument(block, 0)?;
            let acc = argument(block, 1)?;
            push(block, OperationBuilder::new(combine, location).add_operands(&[acc, value]).add_results(&[element]))
        },
    )
}

/// `c[m, n] += ext(a[m, k]) * ext(b[k, n])` in the accumulator's type.
fn mma<'c>(context: &'c Context, op: OperationRef<'c, '_>, rewriter: &RewriterBase<'c, '_>) -> Option<IrValue<'c>> {
    let (a, b, c) = (operand(op, 0)?, operand(op, 1)?, operand(op, 2)?);
    let (_, acc_type) = tile_type(c.r#type())?;
    let location = op.location();
    let maps =
        [map(3, &["d0".into(), "d2".into()]), map(3, &["d2".into(), "d1".into()]), map(3, &["d0".into(), "d1".into()])];
    generic(context, rewriter, &[a, b], c, &maps, &["parallel", "parallel", "reduction"], location, |block| {
        let extend = |value: IrValue<'c>| -> Option<IrValue<'c>> {
            let name = value.r#type().to_string();
            if value.r#type() == acc_type {
                Some(value)
            } else if name.starts_with("f8") {
                f8_to_f32(context, block, value, &name, location)
            } else {
                push(
                    block,
                    OperationBuilder::new("arith.extf", location).add_operands(&[value]).add_results(&[acc_type]),
                )
            }
        };
        let x = extend(argument(block, 0)?)?;
        let y = extend(argument(block, 1)?)?;
        let acc = argument(block, 2)?;
        let product =
            push(block, OperationBuilder::new("arith.mulf", location).add_operands(&[x, y]).add_results(&[acc_type]))?;
        push(
            block,
            OperationBuilder::new("arith.addf", location).add_operands(&[acc, product]).add_results(&[acc_type]),
        )
    })
}

/// Decodes an f8 value to f32 with integer ops. LLVM has no f8 types, and
/// upstream's `arith` to LLVM lowering leaves `arith.extf` from f8 alone, so
/// the CPU path decodes the bits itself. `f8E5M2` is the top byte of an f16;
/// `f8E4M3FN` (bias 7, no infinities, NaN only as `S.1111.111`) is rebuilt
/// as f32 bits, with subnormals `m * 2^-9`.
fn f8_to_f32<'c>(
    context: &'c Context,
    block: &melior::ir::Block<'c>,
    value: IrValue<'c>,
    name: &str,
    location: melior::ir::Location<'c>,
) -> Option<IrValue<'c>> {
    let ty = |text: &str| Type::parse(context, text);
    let op = |name: &str, operands: &[IrValue<'c>], result: &str| -> Option<IrValue<'c>> {
        push(block, OperationBuilder::new(name, location).add_operands(operands).add_results(&[ty(result)?]))
    };
    let constant = |value: &str, r#type: &str| -> Option<IrValue<'c>> {
        push(
            block,
            OperationBuilder::new("arith.constant", location)
                .add_attributes(&[(
                    melior::ir::Identifier::new(context, "value"),
                    Attribute::parse(context, &format!("{value} : {type}"))?,
                )])
                .add_results(&[ty(r#type)?]),
        )
    };
    let byte = op("arith.bitcast", &[value], "i8")?;
    if name == "f8E5M2" {
        let wide = op("arith.extui", &[byte], "i16")?;
        let high = op("arith.shli", &[wide, constant("8", "i16")?], "i16")?;
        let half = op("arith.bitcast", &[high], "f16")?;
        return op("arith.extf", &[half], "f32");
    }
    let bits = op("arith.extui", &[byte], "i32")?;
    let sign =
        op("arith.shli", &[op("arith.andi", &[bits, constant("128", "i32")?], "i32")?, constant("24", "i32")?], "i32")?;
    let exponent =
        op("arith.andi", &[op("arith.shrui", &[bits, constant("3", "i32")?], "i32")?, constant("15", "i32")?], "i32")?;
    let mantissa = op("arith.andi", &[bits, constant("7", "i32")?], "i32")?;
    let normal = op(
        "arith.ori",
        &[
            sign,
            op(
                "arith.ori",
                &[
                    op(
                        "arith.shli",
                        &[op("arith.addi", &[exponent, constant("120", "i32")?], "i32")?, constant("23", "i32")?],
                        "i32",
                    )?,
                    op("arith.shli", &[mantissa, constant("20", "i32")?], "i32")?,
                ],
                "i32",
            )?,
        ],
        "i32",
    )?;
    let tiny = op("arith.mulf", &[op("arith.uitofp", &[mantissa], "f32")?, constant("0.001953125", "f32")?], "f32")?;
    let subnormal = op("arith.ori", &[sign, op("arith.bitcast", &[tiny], "i32")?], "i32")?;
    let nan = op("arith.ori", &[sign, constant("2143289344", "i32")?], "i32")?;
    let cmp = |a: IrValue<'c>, b: IrValue<'c>| -> Option<IrValue<'c>> {
        push(
            block,
            OperationBuilder::new("arith.cmpi", location)
                .add_operands(&[a, b])
                .add_attributes(&[(
                    melior::ir::Identifier::new(context, "predicate"),
                    Attribute::parse(context, "0 : i64")?,
                )])
                .add_results(&[ty("i1")?]),
        )
    };
    let is_nan = cmp(op("arith.andi", &[bits, constant("127", "i32")?], "i32")?, constant("127", "i32")?)?;
    let is_subnormal = cmp(exponent, constant("0", "i32")?)?;
    let select = |c: IrValue<'c>, a: IrValue<'c>, b: IrValue<'c>| op("arith.select", &[c, a, b], "i32");
    let result = select(is_nan, nan, select(is_subnormal, subnormal, normal)?)?;
    op("arith.bitcast", &[result], "f32")
}
