//! Register layouts of the GPU path: which register of which lane of which
//! warp holds each element of a tile.
//!
//! A tile value carries its layout as its tensor type's encoding, one of
//! the dialect's layout attributes (`#tile.blocked`, `#tile.slice`,
//! `#tile.linear`, and for the tensor cores `#tile.wgmma`), so every pass
//! between `tile-assign-layouts` and `convert-tile-to-registers` reads and
//! prints them. [`linear`] turns each into a [`LinearLayout`], the one form
//! the passes compare and compute with.
//!
//! * [`assign`] (`tile-assign-layouts`): the layouts from the anchors
//!   (loads, stores, reductions) propagated through the kernel;
//! * [`remove_conversions`] (`tile-remove-layout-conversions`);
//! * the lowering of tiles with layouts: `crate::registers`.

pub mod assign;
pub mod linear;
pub mod remove_conversions;
pub mod shared;

pub use linear::LinearLayout;

use crate::build::tile_type;
use melior::ir::{Type, TypeLike, Value, ValueLike};
use tile_dialect::layout::Layout;

/// The layout a tile value's type carries, with its linear form.
pub fn layout_of(value: Value) -> Option<(Layout, LinearLayout)> {
    layout_of_type(value.r#type())
}

/// The layout a tile type carries, with its linear form.
pub fn layout_of_type(r#type: Type) -> Option<(Layout, LinearLayout)> {
    let layout = Layout::of_type(r#type)?;
    let (shape, _) = tile_type(r#type)?;
    let linear = LinearLayout::from_layout(&layout, &shape)?;
    Some((layout, linear))
}

/// `r#type` (a tile) with `layout` as its encoding.
pub fn with_layout<'c>(r#type: Type<'c>, layout: &Layout) -> Option<Type<'c>> {
    let (shape, element) = tile_type(r#type)?;
    tile_dialect::layout::tensor_type(&shape, element, layout)
}

/// Changes a value's type in place (its uses see the new type).
pub fn set_type(value: Value, r#type: Type) {
    // SAFETY: both handles are live; MLIR only records the new type, and
    // every caller gives a type its users accept once the pass ends.
    unsafe { mlir_sys::mlirValueSetType(value.to_raw(), r#type.to_raw()) }
}

/// Bytes of a tile element type in memory (i1 takes a byte).
pub fn element_bytes(element: Type) -> i64 {
    crate::build::element_bits(element).map_or(4, |bits| (bits / 8) as i64)
}
