//! A global array's address arithmetic for the copies into shared memory
//! ([`super::shared`], [`super::unaligned`]): a tile's first element, the
//! array's aligned pointer, offset and strides, whether its rows are
//! whole chunks of some bytes, the address of an element.

use crate::{
    build::{At, CmpiPredicate},
    rewrite::{IrValue, Probe, detach},
};
use melior::ir::ShapedTypeLike as _;
use melior::{
    dialect::{arith, llvm, memref, ods},
    ir::{
        Type, ValueLike,
        r#type::{IntegerType, MemRefType},
    },
};

/// A tile's first element in its array (each coordinate clamped to
/// `[-1, dim / extent + 1]` first, as `tile.load` on registers does: no
/// in-range coordinate changes, and no product wraps), and the array's
/// extents.
#[derive(Clone)]
pub(super) struct Origin<'c> {
    pub first: Vec<IrValue<'c>>,
    pub dims: Vec<IrValue<'c>>,
}

pub(super) fn origin<'c>(at: &At<'c, 'c>, view: &super::View<'c>, coords: &[IrValue<'c>]) -> Option<Origin<'c>> {
    let mut first = Vec::new();
    let mut dims = Vec::new();
    for (d, (&extent, &coord)) in view.tile.iter().zip(coords).enumerate() {
        let dim = at.add(memref::dim(view.memref, at.index(d as i64)?, at.location))?;
        let tile_extent = at.index(extent)?;
        let beyond = at.addi(at.divui(dim, tile_extent)?, at.index(1)?)?;
        let clamped = at.minsi(at.maxsi(coord, at.index(-1)?)?, beyond)?;
        first.push(at.muli(clamped, tile_extent)?);
        dims.push(dim);
    }
    Some(Origin { first, dims })
}

/// A global array's address arithmetic: its aligned pointer, offset and
/// strides.
#[derive(Clone)]
pub(super) struct Global<'c> {
    pointer: IrValue<'c>,
    offset: IrValue<'c>,
    strides: Vec<IrValue<'c>>,
    pub bytes: i64,
}

pub(super) fn global_pointer<'c>(at: &At<'c, 'c>, memref: IrValue<'c>, bytes: i64) -> Option<Global<'c>> {
    let context = at.context;
    let rank = MemRefType::try_from(memref.r#type()).ok()?.rank();
    let pointer =
        at.add(ods::memref::extract_aligned_pointer_as_index(context, Type::index(context), memref, at.location))?;
    let metadata = at.insert(ods::memref::extract_strided_metadata(context, memref, at.location));
    let offset = detach(metadata.result_at(1)?.into());
    let strides =
        (0..rank).map(|d| metadata.result_at(2 + rank + d).map(|r| detach(r.into()))).collect::<Option<_>>()?;
    Some(Global { pointer, offset, strides, bytes })
}

impl<'c> Global<'c> {
    /// Whether the array starts `alignment`-byte aligned and its rows are
    /// whole chunks of that many bytes (innermost stride 1).
    pub(super) fn aligned(&self, at: &At<'c, 'c>, alignment: i64) -> Option<IrValue<'c>> {
        let zero = at.index(0)?;
        let start = at.addi(self.pointer, at.muli(self.offset, at.index(self.bytes)?)?)?;
        let mut conditions = vec![at.cmpi(CmpiPredicate::Eq, at.remui(start, at.index(alignment)?)?, zero)?];
        let rank = self.strides.len();
        for (d, &stride) in self.strides.iter().enumerate() {
            let bytes = at.muli(stride, at.index(self.bytes)?)?;
            if d + 1 == rank {
                conditions.push(at.cmpi(CmpiPredicate::Eq, stride, at.index(1)?)?);
            } else {
                conditions.push(at.cmpi(CmpiPredicate::Eq, at.remui(bytes, at.index(alignment)?)?, zero)?);
            }
        }
        super::all(at, &conditions)
    }

    /// The global-space pointer of the element at `index`.
    pub(super) fn element(&self, at: &At<'c, 'c>, index: &[IrValue<'c>]) -> Option<IrValue<'c>> {
        Self::pointer_at(at, self.address(at, index)?)
    }

    /// The address (bytes, `index`) of the element at `index`.
    pub(super) fn address(&self, at: &At<'c, 'c>, index: &[IrValue<'c>]) -> Option<IrValue<'c>> {
        let mut linear = self.offset;
        for (&i, &stride) in index.iter().zip(&self.strides) {
            linear = at.addi(linear, at.muli(i, stride)?)?;
        }
        at.addi(self.pointer, at.muli(linear, at.index(self.bytes)?)?)
    }

    /// The bytes from one row to the next (the second-to-last dim's
    /// stride).
    pub(super) fn row_stride_bytes(&self, at: &At<'c, 'c>) -> Option<IrValue<'c>> {
        at.muli(*self.strides.get(self.strides.len().checked_sub(2)?)?, at.index(self.bytes)?)
    }

    /// The address of the array's first element.
    pub(super) fn start(&self, at: &At<'c, 'c>) -> Option<IrValue<'c>> {
        at.addi(self.pointer, at.muli(self.offset, at.index(self.bytes)?)?)
    }

    /// The address just past the array's last element, given its extents
    /// (meaningless for an empty array, whose elements no check passes).
    pub(super) fn end(&self, at: &At<'c, 'c>, dims: &[IrValue<'c>]) -> Option<IrValue<'c>> {
        let one = at.index(1)?;
        let last: Vec<IrValue> = dims.iter().map(|&n| at.subi(n, one)).collect::<Option<_>>()?;
        at.addi(self.address(at, &last)?, at.index(self.bytes)?)
    }

    /// The global-space pointer of an address.
    pub(super) fn pointer_at(at: &At<'c, 'c>, address: IrValue<'c>) -> Option<IrValue<'c>> {
        let context = at.context;
        let i64_type: Type = IntegerType::new(context, 64).into();
        let address = at.add(arith::index_cast(address, i64_type, at.location))?;
        let pointer = at.add(ods::llvm::inttoptr(context, llvm::r#type::pointer(context, 0), address, at.location))?;
        at.add(ods::llvm::addrspacecast(context, llvm::r#type::pointer(context, 1), pointer, at.location))
    }
}
