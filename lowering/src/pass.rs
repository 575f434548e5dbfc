//! The bridge from Rust passes to MLIR's pass registry.

use melior::{
    dialect::DialectHandle,
    ir::r#type::TypeId,
    pass::{Pass, RunExternalPass, create_external},
};
use mlir_sys::MlirPass;
use std::{ffi::c_void, sync::Once};

/// What MLIR's registry and `--help` show for a pass.
#[derive(Debug)]
pub struct PassInfo {
    /// The name in pipelines, e.g. `convert-tile-to-linalg`.
    pub argument: &'static str,
    /// A C++-style class name, shown in pass statistics and crash reports.
    pub name: &'static str,
    /// One line for `--help`.
    pub summary: &'static str,
    /// The operation the pass is anchored on (`builtin.module`,
    /// `func.func`), or `""` for any.
    pub op_name: &'static str,
}

/// A pass written in Rust. `Default` makes a fresh instance for each pipeline.
pub trait TilePass: for<'c> RunExternalPass<'c> + Default + 'static {
    /// Registry data of the pass.
    const INFO: PassInfo;

    /// A unique, aligned address for the pass's MLIR TypeID.
    fn type_id() -> TypeId<'static>;

    /// Dialects whose ops the pass creates: MLIR loads them before the pass
    /// runs. An op of a dialect that is not loaded would be created as an
    /// unregistered op.
    fn dependent_dialects() -> Vec<DialectHandle> {
        Vec::new()
    }
}

/// A new instance of pass `P`.
pub fn create_pass<P: TilePass>() -> Pass {
    create_external(
        P::default(),
        P::type_id(),
        P::INFO.name,
        P::INFO.argument,
        P::INFO.summary,
        P::INFO.op_name,
        &P::dependent_dialects(),
    )
}

unsafe extern "C" {
    fn tileRegisterPass(factory: extern "C" fn(*mut c_void) -> MlirPass, user_data: *mut c_void);
}

extern "C" fn factory<P: TilePass>(_user_data: *mut c_void) -> MlirPass {
    // Ownership of the new pass moves to MLIR's registry (a unique_ptr).
    create_pass::<P>().to_raw()
}

/// Registers pass `P` into MLIR's pass registry.
pub(crate) fn register<P: TilePass>() {
    // SAFETY: `factory::<P>` matches the C signature and needs no user data.
    unsafe { tileRegisterPass(factory::<P>, std::ptr::null_mut()) }
}

/// Registers every tile pass into MLIR's global pass registry, once. MLIR's
/// registry is not thread-safe; the `Once` serialises registration.
pub fn register_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tile_dialect::registry::register_upstream_passes();
        for register in crate::PASSES {
            register();
        }
    });
}

/// Declares a pass's TypeID storage. An MLIR TypeID is an 8-aligned address.
#[macro_export]
macro_rules! pass_type_id {
    () => {
        fn type_id() -> ::melior::ir::r#type::TypeId<'static> {
            #[repr(align(8))]
            struct Id;
            static ID: Id = Id;
            ::melior::ir::r#type::TypeId::create(&ID)
        }
    };
}

/// Runs the greedy rewrite driver with the patterns `patterns` makes over
/// `operation`, the body of a pattern-based pass; a driver failure fails the
/// pass.
pub fn apply_greedily<'c>(
    operation: melior::ir::OperationRef<'c, '_>,
    pass: melior::pass::ExternalPass<'_>,
    patterns: impl FnOnce(&'c melior::Context) -> melior::RewritePatternSet<'c>,
) {
    use melior::ir::operation::OperationLike;
    let context = operation.context();
    // SAFETY: the context outlives the pass run, and the patterns are
    // consumed by the driver before it returns.
    let context = unsafe { context.to_ref() };
    let config = melior::GreedyRewriteDriverConfig::new();
    if melior::apply_patterns_and_fold_greedily_with_op(operation, patterns(context).freeze(), &config).is_err() {
        pass.signal_failure();
    }
}
