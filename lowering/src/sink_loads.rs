//! `tile-sink-loads`: loads moved down to where their tiles are used.
//!
//! Summary: a `tile.load` whose tile goes, through single-use conversions
//! (`arith.extf`/`truncf`/`extsi`/`extui`/`sitofp`/`uitofp`,
//! `tile.reshape`, `tile.broadcast`), into one op further down the same
//! block moves, with those conversions, to just before that op. On the
//! register path every live tile costs registers in every thread, so a
//! load issued early holds its registers across everything in between: a
//! layernorm over rows of 32768 that loads W and B before using either
//! keeps x, W and B (96 registers a thread at 1024 threads) live at once,
//! where each used next to its load keeps two.
//!
//! Before:
//! ```mlir
//! %w = tile.load %pw[%c0] : ... -> tensor<1024xf32>
//! %b = tile.load %pb[%c0] : ... -> tensor<1024xf32>
//! %w1 = tile.reshape %w : tensor<1024xf32> -> tensor<1x1024xf32>
//! %b1 = tile.reshape %b : tensor<1024xf32> -> tensor<1x1024xf32>
//! %yw = arith.mulf %xn, %w1 : tensor<1x1024xf32>
//! %y = arith.addf %yw, %b1 : tensor<1x1024xf32>
//! ```
//! After:
//! ```mlir
//! %w = tile.load %pw[%c0] ...
//! %w1 = tile.reshape %w ...
//! %yw = arith.mulf %xn, %w1 ...
//! %b = tile.load %pb[%c0] ...
//! %b1 = tile.reshape %b ...
//! %y = arith.addf %yw, %b1 ...
//! ```
//!
//! Only tiles of at least [`MIN_BYTES`] move: 16 registers a thread or
//! more even at 1024 threads, where two such tiles live at once press
//! against the 64 registers a thread has; smaller tiles stay where the
//! program put them (moving them was not measured to gain anything).
//!
//! Caveats: a load never moves past a `tile.store` or an op with regions
//! (which may store), so it reads what it read before, nor into a
//! terminator's or a loop's operands (a prefetched tile stays issued at
//! the top of its iteration); only register-path kernels are changed.

use crate::{
    build::tile_type,
    layout::{assign::register_path, element_bytes},
    pass::{PassInfo, TilePass},
    rewrite::{Probe, op_name},
};
use melior::{
    ContextRef,
    ir::{
        OperationRef, ValueLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The smallest tile that moves.
pub const MIN_BYTES: i64 = 64 * 1024;

/// The `tile-sink-loads` pass.
#[derive(Clone, Default)]
pub struct SinkLoads;

impl TilePass for SinkLoads {
    const INFO: PassInfo = PassInfo {
        argument: "tile-sink-loads",
        name: "TileSinkLoads",
        summary: "Move tile loads (and their conversions) down to their use, so fewer tiles are live at once",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for SinkLoads {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        if !register_path(operation) {
            return;
        }
        let mut loads = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "tile.load" {
                loads.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for raw in loads {
            // SAFETY: a load of the kernel; sinking only moves ops within
            // their block, so every collected op stays alive.
            sink(unsafe { OperationRef::from_raw(raw) });
        }
    }
}

fn conversion(name: &str) -> bool {
    matches!(
        name,
        "arith.extf"
            | "arith.truncf"
            | "arith.extsi"
            | "arith.extui"
            | "arith.sitofp"
            | "arith.uitofp"
            | "tile.reshape"
            | "tile.broadcast"
    )
}

/// The only user of `op`'s single result, if it has exactly one.
fn only_user<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let result = op.result_at(0)?;
    // SAFETY: walking the use list of a live value.
    unsafe {
        let first = mlir_sys::mlirValueGetFirstUse(result.to_raw());
        if first.ptr.is_null() || !mlir_sys::mlirOpOperandGetNextUse(first).ptr.is_null() {
            return None;
        }
        Some(OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(first)))
    }
}

fn sink(load: OperationRef) -> Option<()> {
    let (shape, element) = tile_type(load.result_at(0)?.r#type())?;
    if shape.iter().product::<i64>() * element_bytes(element) < MIN_BYTES {
        return None;
    }
    let block = load.block()?;
    let mut chain = vec![load];
    let mut user = only_user(load)?;
    while conversion(&op_name(user)) && user.block() == Some(block) && user.operand_count() == 1 {
        chain.push(user);
        user = only_user(user)?;
    }
    if user.block() != Some(block) || user.region_count() > 0 || user.next_in_block().is_none() {
        return None;
    }
    // Nothing between the load and its use may store.
    let mut next = load.next_in_block();
    while let Some(op) = next {
        if op == user {
            break;
        }
        if !chain.contains(&op) && (op_name(op) == "tile.store" || op.region_count() > 0) {
            return None;
        }
        next = op.next_in_block();
    }
    next?;
    for op in chain {
        // SAFETY: `op` and `user` are live ops of one block; only the
        // position of `op` changes, and it stays above its users.
        let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
        op.move_before(user);
    }
    Some(())
}
