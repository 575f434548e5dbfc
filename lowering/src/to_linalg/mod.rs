//! `convert-tile-to-linalg`: tile's value ops to `linalg.generic`, `tensor` and
//! `arith` on tensors.
//!
//! Summary: lower `tile.mma`, `tile.reduce`, `tile.broadcast`,
//! `tile.reshape`, `tile.permute`, `tile.splat` and `tile.iota` to linalg and
//! tensor ops on the same tensors.
//!
//! Before:
//! ```mlir
//! %r = tile.reduce add %t dim 1 : tensor<4x8xf32> -> tensor<4xf32>
//! ```
//! After:
//! ```mlir
//! %init = arith.constant dense<0.000000e+00> : tensor<4xf32>
//! %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
//!                                       affine_map<(d0, d1) -> (d0)>],
//!                      iterator_types = ["parallel", "reduction"]}
//!        ins(%t : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
//!   ^bb0(%in: f32, %acc: f32):
//!     %s = arith.addf %acc, %in : f32
//!     linalg.yield %s : f32
//! } -> tensor<4xf32>
//! ```
//!
//! This is the first stage of the CPU path (`tile-to-cpu`, issue #4): after
//! it, upstream `convert-elementwise-to-linalg` and one-shot bufferization
//! apply. Caveats: the memory ops (`tile.partition_view`, `tile.load`,
//! `tile.store`, `tile.num_tiles`) and the grid queries are left alone; a
//! later stage of the pipeline lowers them with the grid. `tile.mma` on f32
//! computes in full f32 here (the GPU uses tf32), and f8 operands are extended
//! to f32 with `arith.extf`.

mod compute;
mod shape;

use crate::pass::{PassInfo, TilePass};
use melior::{
    Context, ContextRef, RewritePatternSet,
    ir::{OperationRef, operation::OperationLike},
    pass::{ExternalPass, RunExternalPass},
};

/// Every pattern of this conversion.
pub fn patterns(context: &Context) -> RewritePatternSet<'_> {
    let set = RewritePatternSet::new(context);
    for pattern in shape::patterns(context).into_iter().chain(compute::patterns(context)) {
        set.add(pattern);
    }
    set
}

/// The `convert-tile-to-linalg` pass.
#[derive(Clone, Default)]
pub struct ConvertTileToLinalg;

impl TilePass for ConvertTileToLinalg {
    const INFO: PassInfo = PassInfo {
        argument: "convert-tile-to-linalg",
        name: "ConvertTileToLinalg",
        summary: "Lower tile value ops (mma, reduce, broadcast, reshape, permute, splat, iota) to linalg and tensor",
        op_name: "",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![DialectHandle::linalg(), DialectHandle::tensor(), DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for ConvertTileToLinalg {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !crate::pass::has_tile_ops(operation) {
            return;
        }
        // The compiler-internal ops that only the register path lowers
        // (its passes put them only in kernels it takes): anywhere else, a
        // located error rather than bufferization's "not bufferized".
        let mut internal = false;
        operation.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let name = crate::rewrite::op_name(op);
            if matches!(name.as_str(), "tile.cluster_sum" | "tile.partial_store" | "tile.partial_sum") {
                crate::rewrite::emit_error(
                    op.location(),
                    &format!(
                        "{name} is compiler-internal (tile-split-k, tile-stream-k): only the register path of a kernel \
                         those passes rewrote lowers it"
                    ),
                );
                internal = true;
            }
            melior::ir::operation::WalkResult::Advance
        });
        if internal {
            pass.signal_failure();
            return;
        }
        crate::pass::apply_greedily(operation, pass, patterns);
    }
}
