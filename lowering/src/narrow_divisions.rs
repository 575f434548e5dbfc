//! `tile-narrow-divisions`: index divisions whose dividend is known to fit
//! in 32 bits divide in 32 bits.
//!
//! Summary: each `arith.divui` and `arith.remui` on `index` by a
//! non-constant divisor whose dividend is at most `2^32 - 2` (known from
//! what it is computed from, below) divides its low 32 bits by the
//! divisor clamped to `2^32 - 1`, and zero-extends the result. That is exact for every nonzero divisor: one
//! past the clamp exceeds the dividend, so the quotient is 0 and the
//! remainder the dividend either way. A zero divisor keeps the 64-bit
//! results `tile-safe-division` gives it (all ones, the dividend) through a
//! select, and the 32-bit division sees 1 instead.
//!
//! Before:
//! ```mlir
//! %b = tile.block_id x : index
//! %q = arith.divui %b, %n : index
//! ```
//! After:
//! ```mlir
//! %z = arith.cmpi eq, %n, %c0 : index
//! %m = arith.minui %n, %c4294967295 : index
//! %d = arith.select %z, %c1, %m : index
//! %d32 = arith.index_castui %d : index to i32
//! %x = arith.index_castui %b : index to i32
//! %q32 = arith.divui %x, %d32 : i32
//! %w = arith.index_castui %q32 : i32 to index
//! %q = arith.select %z, %c-1, %w : index
//! ```
//!
//! Why: `div.u64` on sm_90 is a call to a routine of ptxas, and with such
//! calls anywhere in a kernel (the producer warp's branch included) ptxas
//! ran the consumers' mma loop per thread: six `R2UR`s a K step in every
//! persistent configuration with a producer warp of the examples' space.
//! With every division in 32 bits, the loops were uniform (BENCHMARKS.md,
//! session 41, the static part). LLVM's slow-division bypass keeps a 64-bit
//! path wherever it cannot bound the operands, as with a tile grouping's
//! divisor computed from a division.
//!
//! The bounds: block ids and block counts (at most `2^31 - 1`, CUDA's grid
//! limit), thread ids and block sizes (1024), nonnegative constants, the
//! induction variable of an `scf.for` whose bounds are known and whose
//! lower bound is not negative (and that variable less its lower bound),
//! the last argument of a `tile.persistent` kernel (the program's 1-D
//! grid, which the runtime could launch), the last two of a
//! `tile.grid_slice` one (a slice's first block and the whole grid, the
//! latter also nonzero, as the `tile.num_blocks x` it stands for), a
//! 32-bit value zero-extended;
//! and from those, `shrui` and `remui` (at most the dividend), `divui` by
//! a divisor known nonzero (the same; `x / 0` is all ones), `minui`,
//! `andi`, `maxui`, `select`, and `addi`/`muli` without overflow.
//!
//! A constant divisor is left alone: LLVM divides by it with shifts and
//! multiplications, no routine, and the 64-bit index arithmetic around it
//! (thread ids into swizzled addresses) keeps the folds that narrowing
//! would hide from LLVM.
//!
//! Caveats: runs in `tile-to-ptx` after `convert-tile-to-registers`, on
//! `func.func` kernels before `convert-tile-to-gpu` (it reads `scf.for`
//! loops and the `tile` ops); divisions of other integer types and signed
//! ones are left as they are. A dividend it cannot bound (a product of
//! argument-derived sizes, as a tile swizzle's) keeps its 64-bit division
//! and LLVM's run-time bypass.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, Probe, constant_index, defining_op, detach, op_name, replace_each},
};
use melior::{
    ContextRef,
    dialect::arith,
    ir::{
        BlockLike, OperationRef, Type, TypeLike, Value, ValueLike, block::BlockArgument, operation::OperationLike,
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The `tile-narrow-divisions` pass.
#[derive(Clone, Default)]
pub struct NarrowDivisions;

impl TilePass for NarrowDivisions {
    const INFO: PassInfo = PassInfo {
        argument: "tile-narrow-divisions",
        name: "TileNarrowDivisions",
        summary: "Divide index values known to fit in 32 bits by non-constant divisors in 32 bits (divui, remui), so that no 64-bit division \
                  routine takes ptxas's uniform datapath from a kernel's loops",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith()]
    }
}

/// The largest dividend divided in 32 bits: below the clamped divisor.
const LIMIT: u64 = 0xffff_fffe;
/// CUDA's limit on a grid's blocks along x (y and z allow fewer).
const GRID: u64 = (1 << 31) - 1;
/// The most threads a block has.
const THREADS: u64 = 1024;

impl<'c> RunExternalPass<'c> for NarrowDivisions {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        // SAFETY: the pass runs on this function, which outlives the run.
        let function = unsafe { OperationRef::from_raw(operation.to_raw()) };
        replace_each(
            function,
            |op| {
                let index = op.result_at(0).is_some_and(|r| r.r#type().is_index());
                index && matches!(op_name(op).as_str(), "arith.divui" | "arith.remui")
            },
            |op| {
                let fits = op.operand_at(0).and_then(|x| bound(x, 0)).is_some_and(|b| b <= LIMIT);
                if !fits || op.operand_at(1).is_some_and(is_constant) {
                    return None;
                }
                narrowed(context, op)
            },
        );
    }
}

/// Whether `value` is an `arith.constant`: LLVM divides by a constant with
/// shifts and multiplications, never the routine, and narrowing such a
/// division would only hide the index arithmetic around it from LLVM's
/// folds (it cost the hand-written persistent program's general kernel
/// spills; BENCHMARKS.md, session 42).
fn is_constant(value: Value) -> bool {
    constant_index(value).is_some()
}

/// The largest value `value` (an `index` or integer) can take, where known.
fn bound(value: Value, depth: u32) -> Option<u64> {
    if depth > 32 {
        return None;
    }
    // (`is_block_argument` first: melior's failed conversion prints the
    // value, and with it its function, which other threads' passes may be
    // changing.)
    if let Some(argument) = value.is_block_argument().then(|| BlockArgument::try_from(value).ok()).flatten() {
        let block = argument.owner();
        let parent = block.parent_operation()?;
        return match op_name(parent).as_str() {
            // lower <= iv < upper, both known, where lower is not negative
            // (scf.for compares signed: a lower bound past the signed
            // maximum starts the loop below 0, above any unsigned bound).
            "scf.for" if argument.argument_number() == 0 => {
                let width = if value.r#type().is_index() {
                    64
                } else {
                    Some(value.r#type()).filter(|t| t.is_integer()).and_then(|t| IntegerType::try_from(t).ok())?.width()
                };
                let signed_max = (1u64 << (width - 1)) - 1;
                (bound(parent.operand_at(0)?, depth + 1)? <= signed_max).then_some(())?;
                bound(parent.operand_at(1)?, depth + 1)
            }
            "func.func"
                if parent.has_attribute(tile_dialect::attrs::PERSISTENT)
                    && argument.argument_number() + 1 == block.argument_count()
                    && value.r#type().is_index() =>
            {
                Some(GRID)
            }
            // A slice's first block and the whole grid (`tile-split-last-wave`),
            // both within a CUDA grid.
            "func.func" if slice_argument(parent, &argument, block.argument_count()) && value.r#type().is_index() => {
                Some(GRID)
            }
            _ => None,
        };
    }
    let def = defining_op(detach(value))?;
    let operand = |i: usize| def.operand_at(i).and_then(|v| bound(v, depth + 1));
    match op_name(def).as_str() {
        "tile.block_id" | "tile.num_blocks" | "gpu.block_id" | "gpu.grid_dim" => Some(GRID),
        "gpu.thread_id" | "gpu.block_dim" => Some(THREADS),
        "arith.constant" => u64::try_from(constant_index(value)?).ok(),
        // The source's bound, within what either width holds.
        "arith.index_castui" | "arith.extui" => {
            let most = |r#type: Type| {
                let bits = Some(r#type).filter(|t| t.is_integer()).and_then(|t| IntegerType::try_from(t).ok());
                bits.map(|t| t.width()).filter(|&w| w < 64).map_or(u64::MAX, |w| (1u64 << w) - 1)
            };
            let within = most(def.operand_at(0)?.r#type()).min(most(def.result_at(0)?.r#type()));
            let known = operand(0).map_or(within, |b| b.min(within));
            (known < u64::MAX).then_some(known)
        }
        // At most the dividend: a remainder whatever the divisor (the
        // dividend itself where it is 0), a quotient only where the divisor
        // is not 0 (x / 0 is all ones, `tile-safe-division`).
        "arith.remui" | "arith.shrui" => operand(0),
        "arith.divui" => def.operand_at(1).is_some_and(|y| nonzero(y, depth + 1)).then(|| operand(0))?,
        "arith.minui" | "arith.andi" => match (operand(0), operand(1)) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        },
        "arith.maxui" => Some(operand(0)?.max(operand(1)?)),
        "arith.select" => Some(operand(1)?.max(operand(2)?)),
        "arith.addi" => operand(0)?.checked_add(operand(1)?),
        "arith.muli" => operand(0)?.checked_mul(operand(1)?),
        // iv - lower, of the loop of iv: at most iv.
        "arith.subi" => {
            let (x, y) = (def.operand_at(0)?, def.operand_at(1)?);
            let argument = x.is_block_argument().then(|| BlockArgument::try_from(x).ok())??;
            let parent = argument.owner().parent_operation()?;
            let own = op_name(parent) == "scf.for"
                && argument.argument_number() == 0
                && parent.operand_at(0).is_some_and(|lower| lower == y);
            own.then(|| operand(0))?
        }
        _ => None,
    }
}

/// Whether `value` is known not to be 0: a block or thread count, a
/// nonzero constant, and what maxima, selects and casts make of them.
fn nonzero(value: Value, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    if value.is_block_argument() {
        // The whole grid of a variant that runs a slice of it, which
        // stands for `tile.num_blocks x` (a launch of no block runs none).
        let Ok(argument) = BlockArgument::try_from(value) else { return false };
        let block = argument.owner();
        return block.parent_operation().is_some_and(|f| {
            op_name(f) == "func.func"
                && slice_argument(f, &argument, block.argument_count())
                && argument.argument_number() + 1 == block.argument_count()
        });
    }
    let Some(def) = defining_op(detach(value)) else { return false };
    let operand = |i: usize| def.operand_at(i).is_some_and(|v| nonzero(v, depth + 1));
    match op_name(def).as_str() {
        "tile.num_blocks" | "gpu.grid_dim" | "gpu.block_dim" => true,
        "arith.constant" => constant_index(value).is_some_and(|c| c != 0),
        "arith.maxui" | "arith.ori" => operand(0) || operand(1),
        "arith.select" => operand(1) && operand(2),
        "arith.index_castui" | "arith.extui" => operand(0),
        _ => false,
    }
}

/// Whether `argument` (of a function with `count` arguments) is one of
/// the last two of a `tile.grid_slice` variant: the slice's first block
/// and the whole grid, which the runtime keeps within a CUDA grid.
fn slice_argument(function: OperationRef, argument: &BlockArgument, count: usize) -> bool {
    function.has_attribute(tile_dialect::attrs::GRID_SLICE) && argument.argument_number() + 2 >= count
}

/// The 32-bit division that replaces `op` (`divui` or `remui` on `index`),
/// built before it.
fn narrowed<'c>(context: &'c melior::Context, op: OperationRef<'c, '_>) -> Option<IrValue<'c>> {
    let (x, y) = (detach(op.operand_at(0)?), detach(op.operand_at(1)?));
    let at = At::before(context, op)?;
    let location = op.location();
    let i32_type: Type = IntegerType::new(context, 32).into();
    let cast = |value: IrValue<'c>, to: Type<'c>| {
        at.add(
            melior::ir::operation::OperationBuilder::new("arith.index_castui", location)
                .add_operands(&[value])
                .add_results(&[to])
                .build()
                .ok()?,
        )
    };
    let zero = at.cmpi(crate::build::CmpiPredicate::Eq, y, at.index(0)?)?;
    let clamped = at.minui(y, at.index(0xffff_ffff)?)?;
    let divisor = cast(at.select(zero, at.index(1)?, clamped)?, i32_type)?;
    let dividend = cast(x, i32_type)?;
    let remainder = op_name(op) == "arith.remui";
    let divided = at.add(if remainder {
        arith::remui(dividend, divisor, location)
    } else {
        arith::divui(dividend, divisor, location)
    })?;
    let wide = cast(divided, Type::index(context))?;
    let by_zero = if remainder { x } else { at.index(-1)? };
    at.select(zero, by_zero, wide)
}
