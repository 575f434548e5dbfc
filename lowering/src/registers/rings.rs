//! The `tile.ring` attribute that `tile-prefetch-loads` puts on a load
//! issued ahead, read back: which ring, how far ahead, which of its first
//! tiles, how many slots, and the loop a ring's tiles are for. Shared by
//! the shared-tile lowering (`shared.rs`) and the TMA's (`tma.rs`,
//! `warps.rs`).

use crate::rewrite::op_name;
use melior::ir::{OperationRef, attribute::DenseI64ArrayAttribute, operation::OperationLike};

/// The `tile.ring` attribute of a load: ring, distance, index, slots.
pub fn ring_of(op: OperationRef) -> Option<[i64; 4]> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute(tile_dialect::attrs::RING).ok()?).ok()?;
    let values: Vec<i64> = (0..attribute.len()).map(|i| attribute.element(i).ok()).collect::<Option<_>>()?;
    values.try_into().ok()
}

/// The loop whose body loads ring `id` iteration by iteration (its loads
/// of a negative index), in `op`'s function: the loop that the ring's
/// first tiles, loaded before it, are for.
pub fn ring_loop_after<'c>(op: OperationRef<'c, 'c>, id: i64) -> Option<OperationRef<'c, 'c>> {
    let mut function = op.parent_operation()?;
    while op_name(function) != "func.func" {
        function = function.parent_operation()?;
    }
    let mut found = None;
    function.walk(melior::ir::operation::WalkOrder::PreOrder, |inner| {
        if found.is_none()
            && op_name(inner) == "tile.load"
            && ring_of(inner).is_some_and(|[ring, _, index, _]| ring == id && index < 0)
        {
            found = inner.parent_operation().filter(|p| op_name(*p) == "scf.for").map(|p| p.to_raw());
        }
        melior::ir::operation::WalkResult::Advance
    });
    // SAFETY: an op of the kernel, alive while it is.
    found.map(|raw| unsafe { OperationRef::from_raw(raw) })
}
