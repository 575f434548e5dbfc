//! Registration of the tile dialect, all upstream dialects and passes.

use melior::{
    Context,
    dialect::{DialectHandle, DialectRegistry},
    utility::{register_all_dialects, register_all_passes},
};
use std::sync::{Once, OnceLock};

unsafe extern "C" {
    fn mlirGetDialectHandle__tile__() -> mlir_sys::MlirDialectHandle;
    fn tileRegisterLLVMTranslations(registry: mlir_sys::MlirDialectRegistry);
    fn tileSetLLVMOptions(
        argc: i32,
        argv: *const *const std::ffi::c_char,
        emit: mlir_sys::MlirStringCallback,
        emit_data: *mut std::ffi::c_void,
    ) -> bool;
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

/// What became of [`LLVM_OPTIONS_VARIABLE`]'s options, set once.
static EXTRA_OPTIONS: OnceLock<Result<(), String>> = OnceLock::new();

/// Whether the options of [`LLVM_OPTIONS_VARIABLE`] were all set; else
/// why not (the variable named). The compile driver refuses to compile
/// with a bad one, so that a mistyped option is not silently ignored.
pub fn llvm_options_status() -> Result<(), String> {
    register_upstream_passes();
    EXTRA_OPTIONS.get().cloned().unwrap_or(Ok(()))
}

unsafe extern "C" fn append_text(text: mlir_sys::MlirStringRef, out: *mut std::ffi::c_void) {
    // SAFETY: `out` is the `String` `parse_llvm_options` passes, live for
    // the call; `text` is LLVM's message, valid for this callback.
    unsafe {
        let bytes = std::slice::from_raw_parts(text.data.cast::<u8>(), text.length);
        (*out.cast::<String>()).push_str(&String::from_utf8_lossy(bytes));
    }
}

/// Sets `options` (each `-name` or `-name=value`); LLVM's message if one
/// is not known or its value does not parse.
fn parse_llvm_options<'a>(options: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut arguments: Vec<std::ffi::CString> = vec![c"tile".into()];
    for option in options {
        arguments.push(std::ffi::CString::new(option).map_err(|_| format!("'{option}' holds a NUL byte"))?);
    }
    let pointers: Vec<*const std::ffi::c_char> = arguments.iter().map(|a| a.as_ptr()).collect();
    let mut errors = String::new();
    // SAFETY: the strings and `errors` outlive the call; LLVM copies what
    // it keeps, and the callback only appends to `errors`.
    let ok = unsafe {
        tileSetLLVMOptions(
            pointers.len() as i32,
            pointers.as_ptr(),
            Some(append_text),
            std::ptr::addr_of_mut!(errors).cast(),
        )
    };
    match (ok, errors.trim()) {
        (true, _) => Ok(()),
        // LLVM reports a value it cannot parse on stderr itself.
        (false, "") => Err("LLVM refused an option's value (its message is above)".to_string()),
        (false, message) => Err(message.to_string()),
    }
}

fn set_llvm_options() {
    // The compiler's own options are known to this LLVM (a test sets them).
    let _ = parse_llvm_options(LLVM_OPTIONS.iter().copied());
    let extra = std::env::var(LLVM_OPTIONS_VARIABLE).unwrap_or_default();
    let checked = extra_options(&extra).and_then(|options| parse_llvm_options(options.into_iter()));
    let _ = EXTRA_OPTIONS.set(checked.map_err(|why| format!("{LLVM_OPTIONS_VARIABLE}='{extra}': {why}")));
}

/// The options of [`LLVM_OPTIONS_VARIABLE`]'s value, each `-name` or
/// `-name=value`; not LLVM's help, version or option listings, which print
/// and end the process.
fn extra_options(value: &str) -> Result<Vec<&str>, String> {
    value
        .split_whitespace()
        .map(|option| {
            let name = option.trim_start_matches('-');
            let name = name.split('=').next().unwrap_or_default();
            if !option.starts_with('-') || name.is_empty() {
                Err(format!("'{option}' is not an option (-name or -name=value)"))
            } else if name.starts_with("help") || name.starts_with("print-") || name == "version" {
                Err(format!("'{option}' would print and end the process"))
            } else {
                Ok(option)
            }
        })
        .collect()
}

/// Makes `context` know every dialect that tile programs may use.
pub fn register(context: &Context) {
    context.append_dialect_registry(&registry());
    context.load_all_available_dialects();
}

/// A context with every dialect loaded and upstream passes registered.
/// Safe to call from several threads at once: the registration is
/// serialised (it reaches MLIR's global registries, which are not
/// thread-safe), so a program may compile on one context a thread.
pub fn create_context() -> Context {
    static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = CREATING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    register_upstream_passes();
    let context = Context::new();
    register(&context);
    context
}
