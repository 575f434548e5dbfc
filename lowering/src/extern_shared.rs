//! `tile-extern-dynamic-shared`: the base of a kernel's dynamic shared
//! memory as an external declaration, the start of the dynamic window.
//!
//! Summary: `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an
//! `internal` zero-length global in address space 3, which the NVPTX back
//! end prints as a 1-byte static variable (`.shared .align 16 .b8
//! __dynamic_shmem__0;`). The kernels then address their dynamic shared
//! memory from wherever ptxas puts that byte among the static variables
//! (after a static array, such as a static `__mbarrier` array, when the
//! global is the module's; before it, when LLVM demotes both into the one
//! kernel that uses them, as it does for a module of one kernel): a ring's
//! first bytes would then alias the static variables. This pass makes each such global
//! an external declaration, which NVPTX prints `.extern .shared .align 16
//! .b8 __dynamic_shmem__0[];`: the dynamic window's start, whatever the
//! static variables are and wherever they go.
//!
//! Before:
//! ```mlir
//! llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
//! ```
//! After:
//! ```mlir
//! llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
//! ```
//!
//! Caveats: run it after `convert-gpu-to-nvvm`; it changes only
//! zero-length globals of address space 3 named as that pass names them.

use crate::{
    pass::{PassInfo, TilePass},
    rewrite::{Probe, op_name},
};
use melior::{
    ContextRef,
    ir::{
        Attribute, OperationRef,
        attribute::{IntegerAttribute, StringAttribute, TypeAttribute},
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The prefix `convert-gpu-to-nvvm` names its dynamic shared memory with.
const DYNAMIC_SHARED: &str = "__dynamic_shmem__";

/// The `tile-extern-dynamic-shared` pass.
#[derive(Clone, Default)]
pub struct ExternDynamicShared;

impl TilePass for ExternDynamicShared {
    const INFO: PassInfo = PassInfo {
        argument: "tile-extern-dynamic-shared",
        name: "TileExternDynamicShared",
        summary: "Make the base of dynamic shared memory (convert-gpu-to-nvvm's zero-length __dynamic_shmem__ \
                  globals) an external declaration, the dynamic window's start in PTX",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

/// Whether `op` is a zero-length global of shared memory that
/// `convert-gpu-to-nvvm` made for `gpu.dynamic_shared_memory`.
fn dynamic_base(op: OperationRef) -> bool {
    let named = op
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .is_some_and(|s| s.value().starts_with(DYNAMIC_SHARED));
    let shared = op
        .attribute("addr_space")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .is_some_and(|a| a.value() == 3);
    let empty = op
        .attribute("global_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .is_some_and(|t| t.value().to_string() == "!llvm.array<0 x i8>");
    op_name(op) == "llvm.mlir.global"
        && named
        && shared
        && empty
        && op.region_at(0).is_some_and(|r| melior::ir::RegionLike::first_block(&r).is_none())
}

impl<'c> RunExternalPass<'c> for ExternDynamicShared {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let Some(external) = Attribute::parse(context, "#llvm.linkage<external>") else {
            return;
        };
        let mut globals = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if dynamic_base(op) {
                globals.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for raw in globals {
            // SAFETY: a live op of the module found above; only its
            // linkage attribute is replaced.
            let mut global = unsafe { OperationRefMut::from_raw(raw) };
            global.set_attribute("linkage", external);
        }
    }
}
