//! `tile.load`, `tile.store` and `tile.num_tiles` on registers.
//!
//! The tile's first element is its coordinate times its extent, the
//! coordinate first clamped to `[-1, dim / extent + 1]` (as on the CPU: no
//! in-range coordinate changes, and no product wraps). One block-uniform
//! check decides the path: when the whole tile lies inside the array, the
//! array starts 16-byte aligned and its rows are multiples of the vector,
//! each thread moves its contiguous registers as `vector.load`/`store`s
//! (16 bytes a lane, neighbouring lanes neighbouring vectors: coalesced;
//! a load with no run along the innermost dim, element by element, each
//! at the thread's first element plus constants, one address a row);
//! otherwise it moves element by element, a load reading an in-bounds
//! element (the first) where its own is out of bounds and then taking the
//! padding instead, a store writing only in-bounds elements. Copies of an
//! element (replicated registers, lanes or warps) store once.

use super::convert::{aligned_load, aligned_store_at, duplicate, first_copy, vector_width};
use super::{Lowering, View, all, concat, extract, from_elements, if_else, slice, vector_type, when};
use crate::{
    build::{At, CmpiPredicate, padding_value, tile_type},
    layout::LinearLayout,
    rewrite::{IrValue, Probe, constant_index, detach},
};
use melior::{
    dialect::{arith, memref, ods},
    ir::{OperationRef, Type, ValueLike, operation::OperationLike, r#type::MemRefType},
};

/// The uniform facts about one tile access.
pub(super) struct Access<'c> {
    /// The tile's first element, per dim.
    origin: Vec<IrValue<'c>>,
    /// The array's extents.
    dims: Vec<IrValue<'c>>,
    /// Per dim, whether an index can fall outside the array: false where
    /// the tile's coordinate is a constant and the array's extent static
    /// and the tile lies inside it.
    checked: Vec<bool>,
    /// Whole tile inside, aligned: the vector path.
    pub fast: IrValue<'c>,
    pub width: usize,
}

pub(super) fn access<'c>(
    at: &At<'c, 'c>,
    view: &View<'c>,
    coords: &[IrValue<'c>],
    layout: &LinearLayout,
) -> Option<Access<'c>> {
    let element_bytes = crate::build::element_bits(view.element)?.div_ceil(8) as i64;
    let mut width = vector_width(layout, view.element) as i64;
    let memref_type = MemRefType::try_from(view.memref.r#type()).ok()?;
    let rank = view.tile.len();
    let mut origin = Vec::new();
    let mut dims = Vec::new();
    let mut checked = Vec::new();
    let mut conditions = Vec::new();
    let zero = at.index(0)?;
    for (d, (&extent, &coord)) in view.tile.iter().zip(coords).enumerate() {
        let dim = at.add(memref::dim(view.memref, at.index(d as i64)?, at.location))?;
        let tile_extent = at.index(extent)?;
        let beyond = at.addi(at.divui(dim, tile_extent)?, at.index(1)?)?;
        let clamped = at.minsi(at.maxsi(coord, at.index(-1)?)?, beyond)?;
        let first = at.muli(clamped, tile_extent)?;
        let inside = match (constant_index(coord), static_extent(memref_type, d)) {
            (Some(c), Some(n)) => c >= 0 && (c + 1).checked_mul(extent).is_some_and(|end| end <= n),
            _ => false,
        };
        if !inside {
            conditions.push(at.cmpi(CmpiPredicate::Sge, first, zero)?);
            conditions.push(at.cmpi(CmpiPredicate::Sle, at.addi(first, tile_extent)?, dim)?);
        }
        checked.push(!inside);
        origin.push(first);
        dims.push(dim);
    }
    if width > 1 {
        // Unit innermost stride (the contract's memrefs have it); the start
        // and every row 16-byte aligned.
        if !unit_innermost_stride(view.memref) {
            width = 1;
        } else {
            let pointer = at.add(ods::memref::extract_aligned_pointer_as_index(
                at.context,
                Type::index(at.context),
                view.memref,
                at.location,
            ))?;
            let metadata = at.insert(ods::memref::extract_strided_metadata(at.context, view.memref, at.location));
            let offset = detach(metadata.result_at(1)?.into());
            let start = at.addi(pointer, at.muli(offset, at.index(element_bytes)?)?)?;
            conditions.push(at.cmpi(CmpiPredicate::Eq, at.remui(start, at.index(16)?)?, zero)?);
            for d in 0..rank - 1 {
                let stride = detach(metadata.result_at(2 + rank + d)?.into());
                conditions.push(at.cmpi(CmpiPredicate::Eq, at.remui(stride, at.index(width)?)?, zero)?);
            }
        }
    }
    Some(Access { origin, dims, checked, fast: all(at, &conditions)?, width: width as usize })
}

/// Whether a memref type's innermost stride is statically 1 (the
/// contract's arrays have it).
pub(super) fn unit_innermost_stride(memref: IrValue) -> bool {
    use melior::ir::ShapedTypeLike as _;
    let Ok(memref_type) = MemRefType::try_from(melior::ir::ValueLike::r#type(&memref)) else {
        return false;
    };
    let rank = memref_type.rank();
    if rank == 0 {
        return false;
    }
    let mut strides = vec![0i64; rank];
    let mut offset = 0i64;
    // SAFETY: `strides` has one slot per dim of the memref type, which is
    // alive.
    let ok = unsafe {
        mlir_sys::mlirMemRefTypeGetStridesAndOffset(
            melior::ir::TypeLike::to_raw(&Type::from(memref_type)),
            strides.as_mut_ptr(),
            &mut offset,
        )
    };
    ok.value != 0 && strides[rank - 1] == 1
}

/// Extent `d` of a memref type, if static.
fn static_extent(memref_type: MemRefType, d: usize) -> Option<i64> {
    let raw = melior::ir::TypeLike::to_raw(&Type::from(memref_type));
    // SAFETY: `raw` is a live shaped type and `d` is below its rank (one
    // coordinate a dim).
    let dynamic = unsafe { mlir_sys::mlirShapedTypeIsDynamicDim(raw, d as isize) };
    // SAFETY: as above.
    (!dynamic).then(|| unsafe { mlir_sys::mlirShapedTypeGetDimSize(raw, d as isize) })
}

/// The array index of register `r`: the tile's origin plus its index.
fn indices<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    access: &Access<'c>,
    layout: &LinearLayout,
    r: usize,
) -> Option<Vec<IrValue<'c>>> {
    let within = lowering.element_index(at, layout, r)?;
    access.origin.iter().zip(within).map(|(&o, i)| at.addi(o, i)).collect()
}

/// The array index of this thread's register-0 element: the tile's origin
/// plus the thread's own index, per dim.
fn thread_origin<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    access: &Access<'c>,
    layout: &LinearLayout,
) -> Option<Vec<IrValue<'c>>> {
    let thread = super::split_flat(at, &layout.shape, lowering.thread_flat_made(layout)?)?;
    access.origin.iter().zip(thread).map(|(&o, t)| at.addi(o, t)).collect()
}

/// Calls `each(r, index, inside)` for every register `r` of the element
/// path: its array index and whether that lies inside the array (`None`:
/// it always does). A run of registers contiguous along the innermost dim
/// shares one index computation and one check of the outer dims; an
/// unsigned comparison checks both ends of a dim.
fn for_each_element<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    access: &Access<'c>,
    layout: &LinearLayout,
    mut each: impl FnMut(usize, Vec<IrValue<'c>>, Option<IrValue<'c>>) -> Option<()>,
) -> Option<()> {
    let run = layout.contiguous().max(1);
    let inner = access.dims.len() - 1;
    for start in (0..layout.registers()).step_by(run) {
        let base = indices(lowering, at, access, layout, start)?;
        let mut outer = Vec::new();
        for d in (0..inner).filter(|&d| access.checked[d]) {
            outer.push(at.cmpi(CmpiPredicate::Ult, base[d], access.dims[d])?);
        }
        let outer = if outer.is_empty() { None } else { Some(all(at, &outer)?) };
        for k in 0..run {
            let mut index = base.clone();
            if k > 0 {
                index[inner] = at.addi(base[inner], at.index(k as i64)?)?;
            }
            let inside = if access.checked[inner] {
                let here = at.cmpi(CmpiPredicate::Ult, index[inner], access.dims[inner])?;
                Some(match outer {
                    Some(outer) => at.andi(outer, here)?,
                    None => here,
                })
            } else {
                outer
            };
            each(start + k, index, inside)?;
        }
    }
    Some(())
}

pub fn load<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let at = At::before(lowering.context, op)?;
    let view = lowering.view(op.operand_at(0)?)?;
    let coords: Vec<IrValue> = (1..op.operand_count()).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    let result = op.result_at(0)?;
    let layout = lowering.layout(result.into())?;
    let (_, element) = tile_type(result.r#type())?;
    let access = access(&at, &view, &coords, &layout)?;
    let registers = layout.registers();
    let vector = vector_type(registers, element);
    let width = access.width;
    let bytes = crate::build::element_bits(element)?.div_ceil(8) as usize;
    lowering.thread_flat(&layout)?;
    let lowering_ref = &*lowering;
    let values = if_else(
        &at,
        access.fast,
        &[vector],
        |then| {
            let mut parts = Vec::new();
            // Element by element (no register run along the innermost
            // dim): each element's index is this thread's first element
            // plus a constant per dim, which LLVM folds into the address
            // (the flat index split per element costs a shift, a mask and
            // 64-bit arithmetic each). The register bits and the thread's
            // are disjoint (simple layouts), so the split distributes.
            let first = match width {
                1 => Some(thread_origin(lowering_ref, then, &access, &layout)?),
                _ => None,
            };
            for r in (0..registers).step_by(width) {
                let index = match &first {
                    Some(first) => {
                        let within = crate::layout::linear::unflatten(&layout.shape, layout.register_index(r));
                        first.iter().zip(within).map(|(&f, i)| then.addi(f, then.index(i)?)).collect::<Option<_>>()?
                    }
                    None => indices(lowering_ref, then, &access, &layout, r)?,
                };
                parts.push(aligned_load(then, view.memref, &index, vector_type(width, element), width * bytes)?);
            }
            Some(vec![concat(then, parts)?])
        },
        |otherwise| Some(vec![load_elements(lowering_ref, otherwise, &view, &access, &layout, vector)?]),
    )?;
    lowering.map(result.into(), *values.first()?);
    Some(())
}

/// The registers of a tile in `layout` loaded element by element: each
/// element inside the array read, each outside it the view's padding (an
/// empty array reads nothing).
pub(super) fn load_elements<'c>(
    lowering: &Lowering<'c>,
    otherwise: &At<'c, 'c>,
    view: &View<'c>,
    access: &Access<'c>,
    layout: &LinearLayout,
    vector: Type<'c>,
) -> Option<IrValue<'c>> {
    let element = crate::build::element_of(vector)?;
    let padding = padding_value(otherwise.context, view.padding, element)?;
    let padding = otherwise.add(arith::constant(otherwise.context, padding, otherwise.location))?;
    let zero = otherwise.index(0)?;
    let nonempty: Vec<IrValue> =
        access.dims.iter().map(|&n| otherwise.cmpi(CmpiPredicate::Sgt, n, zero)).collect::<Option<_>>()?;
    let nonempty = all(otherwise, &nonempty)?;
    let padded = otherwise.add(ods::vector::broadcast(otherwise.context, vector, padding, otherwise.location))?;
    let elements = if_else(
        otherwise,
        nonempty,
        &[vector],
        |inner| {
            let mut elements = Vec::new();
            for_each_element(lowering, inner, access, layout, |_, index, inside| {
                let Some(inside) = inside else {
                    elements.push(inner.add(memref::load(view.memref, &index, inner.location))?);
                    return Some(());
                };
                let safe: Vec<IrValue> = index
                    .iter()
                    .zip(&access.checked)
                    .map(|(&i, &checked)| if checked { inner.select(inside, i, zero) } else { Some(i) })
                    .collect::<Option<_>>()?;
                let value = inner.add(memref::load(view.memref, &safe, inner.location))?;
                elements.push(inner.select(inside, value, padding)?);
                Some(())
            })?;
            Some(vec![from_elements(inner, &elements)?])
        },
        |_| Some(vec![padded]),
    )?;
    elements.first().copied()
}

pub fn store<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let at = At::before(lowering.context, op)?;
    let tile = op.operand_at(0)?;
    let view = lowering.view(op.operand_at(1)?)?;
    let coords: Vec<IrValue> = (2..op.operand_count()).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    let layout = lowering.layout(tile)?;
    let registers = lowering.registers(tile)?;
    lowering.thread_flat(&layout)?;
    store_registers(lowering, &at, (registers, &layout), &view, &coords)
}

/// The threads' store of a tile's `registers` in `layout` at `coords` of
/// `view`, built at `at` ([`Lowering::thread_flat`] of the layout made
/// before).
pub(super) fn store_registers<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    (registers, layout): (IrValue<'c>, &LinearLayout),
    view: &View<'c>,
    coords: &[IrValue<'c>],
) -> Option<()> {
    let element = view.element;
    let access = access(at, view, coords, layout)?;
    let width = access.width;
    let bytes = crate::build::element_bits(element)?.div_ceil(8) as usize;
    let count = layout.registers();
    let first = first_copy(lowering, at, layout)?;
    let body = |at: &At<'c, 'c>| -> Option<()> {
        if_else(
            at,
            access.fast,
            &[],
            |then| {
                for r in (0..count).step_by(width) {
                    if duplicate(layout, r) {
                        continue;
                    }
                    let index = indices(lowering, then, &access, layout, r)?;
                    let chunk = slice(then, registers, r, width)?;
                    then.insert(aligned_store_at(then, chunk, view.memref, &index, width * bytes)?);
                }
                Some(vec![])
            },
            |otherwise| {
                for_each_element(lowering, otherwise, &access, layout, |r, index, inside| {
                    if duplicate(layout, r) {
                        return Some(());
                    }
                    let value = extract(otherwise, registers, r)?;
                    let write = |at: &At<'c, 'c>| {
                        at.insert(memref::store(value, view.memref, &index, at.location));
                        Some(())
                    };
                    match inside {
                        Some(inside) => when(otherwise, inside, write),
                        None => write(otherwise),
                    }
                })?;
                Some(vec![])
            },
        )?;
        Some(())
    };
    match first {
        Some(condition) => when(at, condition, body),
        None => body(at),
    }
}

pub fn num_tiles<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let at = At::before(lowering.context, op)?;
    let view = lowering.view(op.operand_at(0)?)?;
    let dim = melior::ir::attribute::IntegerAttribute::try_from(op.attribute("dim").ok()?).ok()?.value();
    let extent = *view.tile.get(usize::try_from(dim).ok()?)?;
    let size = at.add(memref::dim(view.memref, at.index(dim)?, at.location))?;
    let tiles = at.ceildivui(size, at.index(extent)?)?;
    let result = op.result_at(0)?;
    // SAFETY: both values are live; the old result's users now read the
    // new one, and the op is erased after the lowering.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), tiles.to_raw()) };
    Some(())
}
