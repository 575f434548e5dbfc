//! `tile-expand-copies`: `memref.copy` as a `linalg.generic` copy.
//!
//! Summary: rewrite every `memref.copy` into an elementwise `linalg.generic`
//! that `convert-linalg-to-loops` turns into plain loops.
//!
//! Before:
//! ```mlir
//! memref.copy %a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x?xf32, strided<[8, 1], offset: ?>>
//! ```
//! After:
//! ```mlir
//! linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
//!                 iterator_types = ["parallel", "parallel"]}
//!     ins(%a : memref<?x?xf32, strided<[?, 1], offset: ?>>) outs(%b : memref<?x?xf32, strided<[8, 1], offset: ?>>) {
//! ^bb0(%in: f32, %out: f32):
//!   linalg.yield %in : f32
//! }
//! ```
//!
//! Why: upstream lowers a `memref.copy` between non-contiguous memrefs to a
//! call to `memrefCopy` from MLIR's C runner library. Tile loads and stores
//! copy tile-shaped parts of larger arrays, which are never contiguous, and
//! JIT-compiled kernels should not need that library at run time; LLVM turns
//! the loops into vector code or `memcpy` where the layout allows.
//!
//! Caveats: run it after bufferization (which creates the copies) and before
//! `convert-linalg-to-loops`.

use crate::{
    build::{argument, generic_op, identity},
    pass::{PassInfo, TilePass, apply_greedily},
    rewrite::{IrValue, operand, pattern_many},
};
use melior::{
    Context, ContextRef, RewritePatternSet, RewriterBase,
    ir::{
        OperationRef, ValueLike,
        operation::OperationLike,
        r#type::{MemRefType, ShapedTypeLike},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// Every pattern of this pass.
pub fn patterns(context: &Context) -> RewritePatternSet<'_> {
    let set = RewritePatternSet::new(context);
    set.add(pattern_many(context, "memref.copy", copy));
    set
}

fn copy<'c>(
    context: &'c Context,
    op: OperationRef<'c, '_>,
    rewriter: &RewriterBase<'c, '_>,
) -> Option<Vec<IrValue<'c>>> {
    let (source, target) = (operand(op, 0)?, operand(op, 1)?);
    let rank = MemRefType::try_from(source.r#type()).ok()?.rank();
    let maps = [identity(rank), identity(rank)];
    generic_op(context, rewriter, &[source], target, &maps, &vec!["parallel"; rank], op.location(), |block| {
        argument(block, 0)
    })?;
    Some(vec![])
}

/// The `tile-expand-copies` pass.
#[derive(Clone, Default)]
pub struct ExpandCopies;

impl TilePass for ExpandCopies {
    const INFO: PassInfo = PassInfo {
        argument: "tile-expand-copies",
        name: "TileExpandCopies",
        summary: "Rewrite memref.copy into a linalg.generic copy, so that CPU code needs no runtime library",
        op_name: "",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::linalg()]
    }
}

impl<'c> RunExternalPass<'c> for ExpandCopies {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        apply_greedily(operation, pass, patterns);
    }
}
