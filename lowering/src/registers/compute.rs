//! Element-wise ops and tiles made from nothing, on registers.
//!
//! An element-wise `arith`/`math` op on tiles is the same op on the
//! thread's register vectors: every operand has the result's layout
//! (`tile-assign-layouts` converts them), so register `i` of each operand
//! is the same element. No shared memory, no barrier. A splat is a
//! `vector.broadcast`, a splat constant a constant vector, and an iota the
//! register's index plus the thread's.

use super::{Lowering, registers_type, vector_type};
use crate::{
    build::{At, tile_type},
    rewrite::{IrValue, Probe, detach, op_name},
};
use melior::ir::AttributeLike as _;
use melior::{
    dialect::{arith, ods},
    ir::{
        Attribute, Identifier, OperationRef, Type, TypeLike, ValueLike,
        attribute::{DenseElementsAttribute, IntegerAttribute},
        operation::{OperationBuilder, OperationLike},
    },
};

/// An element-wise op on tiles, rebuilt on their registers.
///
/// Rebuilt by its own name and attributes with register types: the one
/// way to map every `arith` and `math` op (with its predicates and
/// fast-math flags) without listing them.
pub fn elementwise<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let at = At::before(lowering.context, op)?;
    let operands: Vec<IrValue> = op
        .operands()
        .map(|v| if tile_type(v.r#type()).is_some() { lowering.registers(v) } else { Some(detach(v)) })
        .collect::<Option<_>>()?;
    let results: Vec<Type> = op.results().map(|r| registers_type(r.r#type())).collect::<Option<_>>()?;
    let attributes: Vec<(Identifier, Attribute)> = op.attributes().collect();
    let name = op_name(op);
    if (name == "math.exp" || name == "math.exp2")
        && registers_type(op.result_at(0)?.r#type()).is_some()
        && let Some(value) = fast_exp(&at, *operands.first()?, name == "math.exp")
    {
        lowering.map(op.result_at(0)?.into(), value);
        return Some(());
    }
    if name == "arith.divf"
        && let [x, y] = operands[..]
        && let Some(value) = fast_divide(&at, x, y)
    {
        lowering.map(op.result_at(0)?.into(), value);
        return Some(());
    }
    let new = at.insert(
        OperationBuilder::new(&name, op.location())
            .add_operands(&operands)
            .add_results(&results)
            .add_attributes(&attributes)
            .build()
            .ok()?,
    );
    for i in 0..op.result_count() {
        lowering.map(op.result_at(i)?.into(), detach(new.result_at(i)?.into()));
    }
    Some(())
}

/// `exp(x)` (`natural`) of f32 registers as `exp2(x log2(e))`, and
/// `exp2(x)` as itself, on the hardware's
/// `ex2.approx.ftz` (one instruction where libdevice's `expf` takes about
/// twenty; a relative error of about `|x| 2^-22`), as tile compilers do:
/// in a softmax the exponentials are the kernel's only real arithmetic,
/// and the accurate ones cost as much time as the memory traffic. Results
/// under `2^-126` (`x` below about -87.3) flush to zero: without `.ftz`
/// ptxas wraps each `ex2` in three instructions that keep them subnormal.
/// (`exp(a - b)` is not folded into `fma(a, log2(e), -(b log2(e)))`: for
/// `|b|` over `FLT_MAX / log2(e)` the product overflows, and a row masked
/// with the largest finite negative value would take `exp(0)` as
/// infinite.) Other element types keep `math.exp` or `math.exp2`.
fn fast_exp<'c>(at: &At<'c, 'c>, x: IrValue<'c>, natural: bool) -> Option<IrValue<'c>> {
    let element = crate::build::element_of(x.r#type())?;
    if element != Type::float32(at.context) {
        return None;
    }
    let scaled = if natural {
        let log2e = Attribute::parse(at.context, &format!("{:e} : f32", std::f32::consts::LOG2_E))?;
        let log2e = at.add(arith::constant(at.context, log2e, at.location))?;
        let log2e = at.add(ods::vector::broadcast(at.context, x.r#type(), log2e, at.location))?;
        at.add(arith::mulf(x, log2e, at.location))?
    } else {
        x
    };
    let powers = (0..super::length(scaled)?)
        .map(|i| {
            let element = super::extract(at, scaled, i)?;
            intrinsic(at, "llvm.nvvm.ex2.approx.ftz.f", &[element])
        })
        .collect::<Option<Vec<_>>>()?;
    super::from_elements(at, &powers)
}

/// A call of the f32 LLVM intrinsic `name` on `operands`.
fn intrinsic<'c>(at: &At<'c, 'c>, name: &str, operands: &[IrValue<'c>]) -> Option<IrValue<'c>> {
    let attributes = [
        ("intrin", format!("\"{name}\"")),
        ("fastmathFlags", "#llvm.fastmath<none>".to_string()),
        ("op_bundle_sizes", "array<i32>".to_string()),
        ("operandSegmentSizes", format!("array<i32: {}, 0>", operands.len())),
    ];
    let attributes: Vec<(Identifier, Attribute)> = attributes
        .iter()
        .map(|(name, text)| Some((Identifier::new(at.context, name), Attribute::parse(at.context, text)?)))
        .collect::<Option<_>>()?;
    at.add(
        OperationBuilder::new("llvm.call_intrinsic", at.location)
            .add_operands(operands)
            .add_results(&[Type::float32(at.context)])
            .add_attributes(&attributes)
            .build()
            .ok()?,
    )
}

/// `x / y` of f32 registers without the correctly rounded `div.rn.f32`
/// (a subroutine of about ten instructions with a branch, which in a
/// softmax or a norm costs more time than the memory traffic), as tile
/// compilers divide by default:
///
/// * by a uniform divisor (a broadcast: a row's sum), `x * (1 / y)` with
///   the reciprocal correctly rounded once: within 1.5 ulp of the rounded
///   quotient where `1 / y` is a normal number (`|y|` from `2^-126` to
///   `2^126`); beyond, the product's (infinite or flushed) value;
/// * else element by element the hardware's `div.full.f32` (a reciprocal
///   and a multiply, scaled to keep the whole range; within 2 ulp).
///
/// Other element types keep `arith.divf`.
fn fast_divide<'c>(at: &At<'c, 'c>, x: IrValue<'c>, y: IrValue<'c>) -> Option<IrValue<'c>> {
    let f32_type = Type::float32(at.context);
    if crate::build::element_of(x.r#type())? != f32_type {
        return None;
    }
    let Some(divisor) = uniform(at, y) else { return full_range_divide(at, x, y) };
    let one = at.add(arith::constant(at.context, Attribute::parse(at.context, "1.0 : f32")?, at.location))?;
    let reciprocal = at.add(arith::divf(one, divisor, at.location))?;
    let scale = at.add(ods::vector::broadcast(at.context, x.r#type(), reciprocal, at.location))?;
    at.add(arith::mulf(x, scale, at.location))
}

/// The scalar every register of `y` holds, when `y` is a broadcast (a
/// `vector.broadcast`, or a `vector.shuffle` of one register).
fn uniform<'c>(at: &At<'c, 'c>, y: IrValue<'c>) -> Option<IrValue<'c>> {
    let def = crate::rewrite::defining_op(y)?;
    match op_name(def).as_str() {
        "vector.broadcast" => {
            let source = detach(def.operand_at(0)?);
            (!super::is_vector(source.r#type())).then_some(source)
        }
        "vector.shuffle" => {
            let source = detach(def.operand_at(0)?);
            let mask = melior::ir::attribute::DenseI64ArrayAttribute::try_from(def.attribute("mask").ok()?).ok()?;
            let zeros = (0..mask.len()).all(|i| mask.element(i).is_ok_and(|m| m == 0));
            (zeros && super::length(source)? >= 1).then(|| super::extract(at, source, 0))?
        }
        _ => None,
    }
}

/// `x / y` element by element as `div.full.f32`.
fn full_range_divide<'c>(at: &At<'c, 'c>, x: IrValue<'c>, y: IrValue<'c>) -> Option<IrValue<'c>> {
    let quotients = (0..super::length(x)?)
        .map(|i| intrinsic(at, "llvm.nvvm.div.full", &[super::extract(at, x, i)?, super::extract(at, y, i)?]))
        .collect::<Option<Vec<_>>>()?;
    super::from_elements(at, &quotients)
}

/// `tile.splat`, a splat `arith.constant` and `tile.iota` in registers.
pub fn create<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let at = At::before(lowering.context, op)?;
    let result = op.result_at(0)?;
    let vector = registers_type(result.r#type())?;
    let layout = lowering.layout(result.into())?;
    let value = match op_name(op).as_str() {
        "tile.splat" => at.add(ods::vector::broadcast(lowering.context, vector, op.operand_at(0)?, at.location))?,
        "tile.iota" => {
            // The index in i64, then the element type (integers truncate,
            // floats convert exactly: the verifier asks that n - 1 fits).
            let (_, element) = tile_type(result.r#type())?;
            let i64_type = Type::parse(lowering.context, "i64")?;
            let registers: Vec<Attribute> = (0..layout.registers())
                .map(|r| IntegerAttribute::new(i64_type, layout.register_index(r) as i64).into())
                .collect();
            let wide = vector_type(layout.registers(), i64_type);
            let constant = DenseElementsAttribute::new(wide, &registers).ok()?;
            let own = at.add(arith::constant(lowering.context, constant.into(), at.location))?;
            let thread = lowering.thread_flat(&layout)?;
            let thread = at.add(arith::index_cast(thread, i64_type, at.location))?;
            let thread = at.add(ods::vector::broadcast(lowering.context, wide, thread, at.location))?;
            let index = at.add(arith::addi(own, thread, at.location))?;
            if element.is_float() {
                at.add(arith::uitofp(index, vector, at.location))?
            } else if element == i64_type {
                index
            } else {
                at.add(arith::trunci(index, vector, at.location))?
            }
        }
        _ => {
            let value = op.attribute("value").ok()?;
            // SAFETY: a live attribute, checked to be dense and a splat
            // (`tile-assign-layouts` admits only splat constant tiles)
            // before its splat value is read and re-wrapped in the vector
            // type.
            let splat = unsafe {
                if !mlir_sys::mlirAttributeIsADenseElements(value.to_raw())
                    || !mlir_sys::mlirDenseElementsAttrIsSplat(value.to_raw())
                {
                    return None;
                }
                let element = mlir_sys::mlirDenseElementsAttrGetSplatValue(value.to_raw());
                Attribute::from_raw(mlir_sys::mlirDenseElementsAttrSplatGet(vector.to_raw(), element))
            };
            at.add(arith::constant(lowering.context, splat, at.location))?
        }
    };
    lowering.map(result.into(), value);
    Some(())
}
