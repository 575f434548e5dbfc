//! `tile-vectorize-copies`: element-wise copy loops as 16-byte vector copies.
//!
//! Summary: rewrite every `scf.parallel` loop of a `tile.kernel` function
//! that copies one memref into another element by element (the form that
//! tile loads and stores take after bufferization) into a loop over 16-byte
//! vectors of the innermost dim. A block-uniform run-time check guards it:
//! both memrefs must start 16-byte aligned and have row strides that are
//! multiples of the vector. The scalar loop stays as the fallback, and
//! handles the last columns when the innermost extent is not a multiple of
//! the vector.
//!
//! Before:
//! ```mlir
//! scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
//!   %v = memref.load %src[%i, %j] : memref<?x?xf16, strided<[?, 1], offset: ?>>
//!   memref.store %v, %dst[%i, %j] : memref<?x?xf16, strided<[64, 1], offset: ?>>
//!   scf.reduce
//! }
//! ```
//! After (`%ok`: both start addresses 16-byte aligned, both row strides
//! multiples of 8 elements):
//! ```mlir
//! scf.if %ok {
//!   %nv = arith.divui %n, %c8
//!   scf.parallel (%i, %jv) = (%c0, %c0) to (%m, %nv) step (%c1, %c1) {
//!     %j = arith.muli %jv, %c8
//!     %v = vector.load %src[%i, %j] {alignment = 16} : ..., vector<8xf16>
//!     vector.store %v, %dst[%i, %j] {alignment = 16} : ..., vector<8xf16>
//!     scf.reduce
//!   }
//!   scf.if %ragged {      // %n is not a multiple of 8
//!     scf.parallel ... = (%c0, %nv * 8) to (%m, %n) ... { the scalar copy }
//!   }
//! } else {
//!   the scalar copy
//! }
//! ```
//!
//! Why: `tile-distribute` gives neighbouring threads neighbouring
//! iterations of the innermost dim, so the vector loop makes each warp move
//! 512 contiguous bytes with one `ld.global.v4`/`st.global.v4` per thread:
//! coalesced, with a quarter (f32) to a sixteenth (8-bit types) of the
//! memory instructions of the scalar loop. The check costs a few integer
//! ops per copy, and folds away where the layouts are static.
//!
//! Caveats: only plain copies (no conversion in between) of 8-, 16-, 32- or
//! 64-bit elements whose innermost dim has a static unit stride on both
//! sides; loops from 0 in steps of 1. Run it after
//! `convert-linalg-to-parallel-loops` and before `tile-distribute`.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, constant_index, detach, op_name, single_use},
};
use melior::dialect::arith::CmpiPredicate;
use melior::{
    Context, ContextRef,
    ir::{
        Block, BlockLike, BlockRef, OperationRef, Region, RegionLike, Type, TypeLike, ValueLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::{MemRefType, ShapedTypeLike},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// Bytes per vector access: the widest a thread can load at once.
const VECTOR_BYTES: i64 = 16;

/// The `tile-vectorize-copies` pass.
#[derive(Clone, Default)]
pub struct VectorizeCopies;

impl TilePass for VectorizeCopies {
    const INFO: PassInfo = PassInfo {
        argument: "tile-vectorize-copies",
        name: "TileVectorizeCopies",
        summary: "Copy loops of tile kernels as 16-byte vector copies, behind a run-time alignment check",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![crate::pass::vector_handle(), DialectHandle::scf(), DialectHandle::arith(), DialectHandle::memref()]
    }
}

impl<'c> RunExternalPass<'c> for VectorizeCopies {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        if !operation.has_attribute(tile_dialect::attrs::KERNEL) {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let mut copies = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "scf.parallel"
                && let Some(copy) = Copy::of(op)
            {
                copies.push(copy);
            }
            WalkResult::Advance
        });
        for copy in copies {
            // A copy that cannot be rewritten (its check could not be
            // built) stays scalar, which is correct, only slower.
            let _ = vectorize(context, &copy);
        }
    }
}

/// A parallel loop that copies `source[ivs]` to `target[ivs]`.
struct Copy {
    op: mlir_sys::MlirOperation,
    source: mlir_sys::MlirValue,
    target: mlir_sys::MlirValue,
    /// Elements per vector.
    lanes: i64,
    element: String,
}

impl Copy {
    fn of(op: OperationRef) -> Option<Copy> {
        let body = op.region_at(0)?.first_block()?;
        let rank = body.argument_count();
        if rank == 0 || op.operand_count() != 3 * rank || op.result_count() != 0 {
            return None;
        }
        for d in 0..rank {
            let lower = detach(op.operand_at(d)?);
            let step = detach(op.operand_at(2 * rank + d)?);
            if constant_index(lower) != Some(0) || constant_index(step) != Some(1) {
                return None;
            }
        }
        let load = body.first_operation()?;
        let store = load.next_in_block()?;
        let reduce = store.next_in_block()?;
        if op_name(load) != "memref.load"
            || op_name(store) != "memref.store"
            || op_name(reduce) != "scf.reduce"
            || reduce.operand_count() != 0
            || load.operand_count() != rank + 1
            || store.operand_count() != rank + 2
            || load.result_count() != 1
        {
            return None;
        }
        let value = load.result_at(0)?;
        let (user, position) = single_use(value.into())?;
        if user.to_raw().ptr != store.to_raw().ptr || position != 0 {
            return None;
        }
        for d in 0..rank {
            let argument = body.argument_at(d)?.to_raw();
            if load.operand_at(1 + d)?.to_raw().ptr != argument.ptr
                || store.operand_at(2 + d)?.to_raw().ptr != argument.ptr
            {
                return None;
            }
        }
        let source = load.operand_at(0)?;
        let target = store.operand_at(1)?;
        let element = MemRefType::try_from(source.r#type()).ok()?.element();
        let bits: i64 = match element.to_string().as_str() {
            "i8" | "f8E4M3FN" | "f8E5M2" => 8,
            "f16" | "bf16" | "i16" => 16,
            "f32" | "i32" => 32,
            "f64" | "i64" => 64,
            _ => return None,
        };
        let lanes = VECTOR_BYTES * 8 / bits;
        if !unit_inner_stride(source.r#type()) || !unit_inner_stride(target.r#type()) {
            return None;
        }
        // An innermost extent known to be shorter than a vector, or a
        // memref whose rows are, never takes the vector loop.
        let extent = detach(op.operand_at(2 * rank - 1)?);
        if constant_index(extent).is_some_and(|n| n < lanes)
            || short_rows(source.r#type(), lanes)
            || short_rows(target.r#type(), lanes)
        {
            return None;
        }
        Some(Copy {
            op: op.to_raw(),
            source: source.to_raw(),
            target: target.to_raw(),
            lanes,
            element: element.to_string(),
        })
    }
}

/// Whether a memref type's innermost dim has a static size below `lanes`.
fn short_rows(r#type: Type, lanes: i64) -> bool {
    use melior::ir::r#type::DimSize;
    MemRefType::try_from(r#type).is_ok_and(|memref| {
        memref.rank() > 0 && matches!(memref.dim_size(memref.rank() - 1), Ok(DimSize::Static(n)) if (n as i64) < lanes)
    })
}

/// Whether a memref type's innermost dim has the static stride 1.
fn unit_inner_stride(r#type: Type) -> bool {
    let Ok(memref) = MemRefType::try_from(r#type) else { return false };
    let rank = memref.rank();
    if rank == 0 {
        return false;
    }
    let mut strides = vec![0i64; rank];
    let mut offset = 0i64;
    // SAFETY: `strides` has room for one stride per dim of the memref, as
    // the function requires; the type is alive.
    let ok = unsafe { mlir_sys::mlirMemRefTypeGetStridesAndOffset(r#type.to_raw(), strides.as_mut_ptr(), &mut offset) };
    ok.value != 0 && strides[rank - 1] == 1
}

fn vectorize(context: &Context, copy: &Copy) -> Option<()> {
    // SAFETY: the loop was collected from the live function and no other
    // rewrite has touched it; its operands are live values.
    let (op, source, target) =
        unsafe { (OperationRef::from_raw(copy.op), IrValue::from_raw(copy.source), IrValue::from_raw(copy.target)) };
    let location = op.location();
    let body = op.region_at(0)?.first_block()?;
    let rank = body.argument_count();
    let bounds: Vec<IrValue> = (0..3 * rank).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    let upper = &bounds[rank..2 * rank];
    let here = At::before(context, op)?;
    let index = Type::index(context);

    // The block-uniform check: start addresses 16-byte aligned, row
    // strides multiples of the vector.
    let zero = here.index(0)?;
    let lanes = here.index(copy.lanes)?;
    let vector_bytes = here.index(VECTOR_BYTES)?;
    let element_bytes = here.index(VECTOR_BYTES / copy.lanes)?;
    let mut conditions = Vec::new();
    for memref in [source, target] {
        let r#type = MemRefType::try_from(memref.r#type()).ok()?;
        let space = r#type.memory_space().map(|s| format!(", {s}")).unwrap_or_default();
        let base = format!("memref<{}{space}>", r#type.element());
        let mut results = vec![base.as_str()];
        results.extend(std::iter::repeat_n("index", 2 * rank + 1));
        let metadata = here.insert(
            OperationBuilder::new("memref.extract_strided_metadata", location)
                .add_operands(&[memref])
                .add_results(&results.iter().map(|t| Type::parse(context, t)).collect::<Option<Vec<_>>>()?)
                .build()
                .ok()?,
        );
        let result = |i: usize| -> Option<IrValue> { metadata.result_at(i).map(|r| detach(r.into())) };
        let pointer = here.op("memref.extract_aligned_pointer_as_index", &[memref], &["index"], &[])?;
        let offset_bytes = here.index_op("arith.muli", &[result(1)?, element_bytes])?;
        let start = here.index_op("arith.addi", &[pointer, offset_bytes])?;
        conditions.push(divides(&here, start, vector_bytes, zero)?);
        for d in 0..rank - 1 {
            conditions.push(divides(&here, result(2 + rank + d)?, lanes, zero)?);
        }
    }
    let mut ok = conditions.pop()?;
    for condition in conditions {
        ok = here.op("arith.andi", &[ok, condition], &["i1"], &[])?;
    }

    // The vector loop and the scalar tail in the `then` region, the
    // scalar loop in the `else` region.
    let mut branches = here.scf_if(ok, true)?;
    let otherwise = branches.pop()?;
    let inner = branches.pop()?;
    let extent = upper[rank - 1];
    let vectors = inner.index_op("arith.divsi", &[extent, lanes])?;
    let mut vector_upper = upper.to_vec();
    vector_upper[rank - 1] = vectors;
    let loop_block = Block::new(&vec![(index, location); rank]);
    {
        // SAFETY: `loop_block` is alive and owned here until it moves into
        // the loop's region below, after the last use of this reference.
        let at = At { context, location, block: unsafe { BlockRef::from_raw(loop_block.to_raw()) }, before: None };
        let mut indices: Vec<IrValue> =
            (0..rank).map(|d| loop_block.argument_at(d).map(|a| detach(a.into()))).collect::<Option<_>>()?;
        let lanes_inside = at.index(copy.lanes)?;
        indices[rank - 1] = at.index_op("arith.muli", &[indices[rank - 1], lanes_inside])?;
        let vector = format!("vector<{}x{}>", copy.lanes, copy.element);
        let mut operands = vec![source];
        operands.extend(&indices);
        let value = at.op("vector.load", &operands, &[&vector], &[("alignment", &format!("{VECTOR_BYTES} : i64"))])?;
        let mut operands = vec![value, target];
        operands.extend(&indices);
        at.void("vector.store", &operands, &[("alignment", &format!("{VECTOR_BYTES} : i64"))])?;
        at.void("scf.reduce", &[], &[])?;
    }
    let zeros = vec![inner.index(0)?; rank];
    let ones = vec![inner.index(1)?; rank];
    let region = Region::new();
    region.append_block(loop_block);
    let mut operands = zeros;
    operands.extend(&vector_upper);
    operands.extend(&ones);
    inner.insert(
        OperationBuilder::new("scf.parallel", location)
            .add_operands(&operands)
            .add_attributes(&[(
                melior::ir::Identifier::new(context, "operandSegmentSizes"),
                melior::ir::Attribute::parse(context, &format!("array<i32: {rank}, {rank}, {rank}, 0>"))?,
            )])
            .add_regions([region])
            .build()
            .ok()?,
    );
    // The last `extent % lanes` columns, element by element, only when
    // there are any (a uniform branch, so the common case pays no extra
    // loop or barrier).
    let covered = inner.index_op("arith.muli", &[vectors, lanes])?;
    let ragged = inner.cmpi(CmpiPredicate::Ne, covered, extent)?;
    let tail_at = inner.scf_if(ragged, false)?.pop()?;
    // SAFETY: cloning a live op gives a new, unparented op, which the tail
    // branch's block takes ownership of (before its yield, which is alive).
    let tail = unsafe {
        let clone = mlir_sys::mlirOperationClone(op.to_raw());
        mlir_sys::mlirBlockInsertOwnedOperationBefore(tail_at.block.to_raw(), tail_at.before?.to_raw(), clone);
        OperationRef::from_raw(clone)
    };
    // SAFETY: operand `rank - 1` is the innermost lower bound of the
    // cloned loop; `covered` dominates it (defined earlier in the same
    // region).
    unsafe { mlir_sys::mlirOperationSetOperand(tail.to_raw(), (rank - 1) as isize, covered.to_raw()) };
    // SAFETY: the loop is alive; it moves, with its body, in front of the
    // else region's terminator, which is alive (owned by the scf.if).
    let mut moved = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    moved.move_before(otherwise.before?);
    Some(())
}

/// `value % divisor == 0`.
fn divides<'c>(at: &At<'c, '_>, value: IrValue<'c>, divisor: IrValue<'c>, zero: IrValue<'c>) -> Option<IrValue<'c>> {
    let rest = at.index_op("arith.remui", &[value, divisor])?;
    at.cmpi(CmpiPredicate::Eq, rest, zero)
}
