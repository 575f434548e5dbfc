//! Registration of the tile dialect, all upstream dialects and passes.

use melior::{
    Context,
    dialect::{DialectHandle, DialectRegistry},
    utility::{register_all_dialects, register_all_passes},
};
use std::sync::Once;

unsafe extern "C" {
    fn mlirGetDialectHandle__tile__() -> mlir_sys::MlirDialectHandle;
    fn tileRegisterLLVMTranslations(registry: mlir_sys::MlirDialectRegistry);
}

/// The tile dialect's handle.
pub fn dialect_handle() -> DialectHandle {
    // SAFETY: defined by MLIR_DEFINE_CAPI_DIALECT_REGISTRATION in
    // cpp/TileDialect.cpp; it returns a pointer to static data.
    unsafe { DialectHandle::from_raw(mlirGetDialectHandle__tile__()) }
}

/// A registry with every upstream dialect and extension, the translations to
/// LLVM IR, and the tile dialect.
pub fn registry() -> DialectRegistry {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    // SAFETY: the registry is live; the call only adds interfaces to it.
    unsafe { tileRegisterLLVMTranslations(registry.to_raw()) };
    dialect_handle().insert_dialect(&registry);
    registry
}

/// Registers MLIR's upstream passes into the global pass registry, once.
/// MLIR's global registration is not thread-safe; the `Once` serialises it.
pub fn register_upstream_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(register_all_passes);
}

/// Makes `context` know every dialect that tile programs may use.
pub fn register(context: &Context) {
    context.append_dialect_registry(&registry());
    context.load_all_available_dialects();
}

/// A context with every dialect loaded and upstream passes registered.
pub fn create_context() -> Context {
    register_upstream_passes();
    let context = Context::new();
    register(&context);
    context
}
