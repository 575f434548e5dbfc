//! `tile-safe-division`: integer division and remainder with a defined
//! result for every operand, on both targets.
//!
//! Summary: each `arith.divui`, `arith.divsi`, `arith.remui` and
//! `arith.remsi` whose divisor is not a constant known to be safe divides
//! by a divisor that cannot trap, and selects the defined result:
//!
//! | op | divisor 0 | `MIN / -1` (signed) |
//! |---|---|---|
//! | `divui`, `divsi` | all ones (`-1` signed) | `MIN` (wraps) |
//! | `remui`, `remsi` | the dividend | `0` |
//!
//! Before:
//! ```mlir
//! %q = arith.divui %x, %y : index
//! ```
//! After:
//! ```mlir
//! %zero = arith.cmpi eq, %y, %c0 : index
//! %safe = arith.select %zero, %c1, %y : index
//! %d = arith.divui %x, %safe : index
//! %q = arith.select %zero, %all_ones, %d : index
//! ```
//!
//! Why: a kernel may divide by a run-time value that is zero: the
//! contract's own matmul divides block ids by the tiles of C, and C may be
//! empty. On the CPU that is a trap (SIGFPE kills the process), and in
//! LLVM IR it is undefined behaviour on any target. NVIDIA GPUs do not
//! trap: `div.u` by zero gives all ones and `rem.u` by zero the dividend;
//! the guard gives exactly those values (and the same for signed ops), so
//! the targets agree and neither relies on what the hardware happens to
//! do. Signed `MIN / -1` overflows (a trap on x86 too) and wraps to `MIN`.
//!
//! Cost: a compare and two selects per division whose divisor is not a
//! constant; LLVM drops them where it proves the divisor nonzero.
//!
//! Caveats: run it after `arith-expand`, which turns `ceildivsi`,
//! `ceildivui` and `floordivsi` into these four ops (by zero they then
//! give what their expansion makes of the guarded results, the same on
//! both targets; `tests/kernels/divide.mlir` pins them down), and after
//! `lower-affine`. Integer and `index` operands (and vectors or tensors of
//! them) of at most 64 bits; `index` is taken as 64 bits, as both targets
//! lower it.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, Probe, constant_index, detach, op_name, replace_each},
};
use melior::{
    Context, ContextRef,
    dialect::arith::{self, CmpiPredicate},
    ir::{
        Attribute, OperationRef, Type, TypeLike, ValueLike, attribute::IntegerAttribute, operation::OperationLike,
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The `tile-safe-division` pass.
#[derive(Clone, Default)]
pub struct SafeDivision;

impl TilePass for SafeDivision {
    const INFO: PassInfo = PassInfo {
        argument: "tile-safe-division",
        name: "TileSafeDivision",
        summary: "Give integer division and remainder by zero (and signed MIN / -1) a defined result: x / 0 is all \
                  ones and x % 0 is x, as on NVIDIA GPUs",
        op_name: "",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for SafeDivision {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        replace_each(operation, |op| Kind::of(&op_name(op)).is_some(), |op| guard(context, op));
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    DivU,
    DivS,
    RemU,
    RemS,
}

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "arith.divui" => Kind::DivU,
            "arith.divsi" => Kind::DivS,
            "arith.remui" => Kind::RemU,
            "arith.remsi" => Kind::RemS,
            _ => return None,
        })
    }

    fn signed(self) -> bool {
        matches!(self, Kind::DivS | Kind::RemS)
    }
}

/// The bits of an integer or `index` type (`index` is 64 bits on both
/// targets), or `None` for other types.
fn bits(r#type: Type) -> Option<u32> {
    if r#type.is_index() {
        return Some(64);
    }
    IntegerType::try_from(r#type).ok().map(|t| t.width()).filter(|&w| (1..=64).contains(&w))
}

/// The element type of a vector or tensor type, or the type itself.
fn element(r#type: Type) -> Type {
    let raw = r#type.to_raw();
    // SAFETY: type queries of a live type; a vector or tensor type is
    // shaped, so it has an element type.
    unsafe {
        if mlir_sys::mlirTypeIsAVector(raw) || mlir_sys::mlirTypeIsATensor(raw) {
            Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw))
        } else {
            r#type
        }
    }
}

/// The guarded division that replaces `op`, built before it; `None` when
/// the divisor is a safe constant or the operands are not integers.
fn guard<'c>(context: &'c Context, op: OperationRef<'c, '_>) -> Option<IrValue<'c>> {
    let kind = Kind::of(&op_name(op))?;
    let (x, y) = (detach(op.operand_at(0)?), detach(op.operand_at(1)?));
    let r#type = y.r#type();
    let shaped = element(r#type) != r#type;
    let width = bits(element(r#type))?;
    // Sign-extended from the type's width, as the constant is read.
    let min = if width == 64 { i64::MIN } else { -(1i64 << (width - 1)) };
    if let Some(divisor) = constant_index(y) {
        let divisor = if width == 64 { divisor } else { (divisor << (64 - width)) >> (64 - width) };
        if divisor != 0 && !(kind.signed() && divisor == -1) {
            return None;
        }
    }
    let at = At::before(context, op)?;
    let location = op.location();
    let constant = |value: i64| {
        let attribute = if shaped {
            // Splats of vectors and tensors (i1 ones are `true`).
            let text = if width == 1 { (value != 0).to_string() } else { value.to_string() };
            Attribute::parse(context, &format!("dense<{text}> : {}", r#type))?
        } else {
            IntegerAttribute::new(r#type, value).into()
        };
        at.add(arith::constant(context, attribute, location))
    };
    let zero = at.add(arith::cmpi(context, CmpiPredicate::Eq, y, constant(0)?, location))?;
    let mut unsafe_divisor = zero;
    if kind.signed() {
        let is_min = at.add(arith::cmpi(context, CmpiPredicate::Eq, x, constant(min)?, location))?;
        let minus_one = at.add(arith::cmpi(context, CmpiPredicate::Eq, y, constant(-1)?, location))?;
        let overflow = at.add(arith::andi(is_min, minus_one, location))?;
        unsafe_divisor = at.add(arith::ori(zero, overflow, location))?;
    }
    // Dividing MIN by 1 instead of -1 gives MIN, the wrapped quotient, and
    // a remainder of 0.
    let divisor = at.add(arith::select(unsafe_divisor, constant(1)?, y, location))?;
    let divided = at.add(match kind {
        Kind::DivU => arith::divui(x, divisor, location),
        Kind::DivS => arith::divsi(x, divisor, location),
        Kind::RemU => arith::remui(x, divisor, location),
        Kind::RemS => arith::remsi(x, divisor, location),
    })?;
    let by_zero = match kind {
        Kind::DivU | Kind::DivS => constant(-1)?,
        Kind::RemU | Kind::RemS => x,
    };
    at.add(arith::select(zero, by_zero, divided, location))
}
