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
    fn tileSetLLVMOptions(argc: i32, argv: *const *const std::ffi::c_char) -> bool;
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

/// Registers MLIR's upstream passes into the global pass registry, once,
/// and sets the LLVM options of [`LLVM_OPTIONS`]. MLIR's global
/// registration is not thread-safe; the `Once` serialises it.
pub fn register_upstream_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        register_all_passes();
        set_llvm_options();
    });
}

/// LLVM options this compiler sets for the whole process (LLVM's options
/// are global, so the CPU target's JIT sees them too):
/// `gpu-module-to-binary` runs LLVM's O2 pipeline, whose SLP vectoriser
/// looks for chains among every store of a function. The register path
/// writes many (its operands and exchanges through shared memory) and
/// vectorises its accesses itself: on the GEMMs the vectoriser changed no
/// instruction and took a sixth of the compile, and on attention and the
/// 16-bit norms it only packed half-precision values into 32-bit words
/// with shifts (BENCHMARKS.md, sessions 13 and 18). So it is off.
pub const LLVM_OPTIONS: &[&str] = &["-vectorize-slp=false"];

/// The environment variable whose whitespace-separated LLVM options are
/// set after [`LLVM_OPTIONS`] (`TILE_LLVM_OPTIONS=-vectorize-slp=true`
/// turns the SLP vectoriser back on), for programs that embed the
/// compiler; `tile-opt` takes them on its command line.
pub const LLVM_OPTIONS_VARIABLE: &str = "TILE_LLVM_OPTIONS";

fn set_llvm_options() {
    let mut arguments: Vec<std::ffi::CString> = vec![c"tile".into()];
    arguments.extend(LLVM_OPTIONS.iter().filter_map(|o| std::ffi::CString::new(*o).ok()));
    let extra = std::env::var(LLVM_OPTIONS_VARIABLE).unwrap_or_default();
    arguments.extend(extra.split_whitespace().filter_map(|o| std::ffi::CString::new(o).ok()));
    let pointers: Vec<*const std::ffi::c_char> = arguments.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: the strings outlive the call and LLVM copies what it keeps.
    // An option LLVM does not know prints an error and changes nothing.
    unsafe { tileSetLLVMOptions(pointers.len() as i32, pointers.as_ptr()) };
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
