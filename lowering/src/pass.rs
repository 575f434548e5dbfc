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

/// Fails the pass, with an error at each op that `illegal` still matches
/// after a conversion ran: the conversion must leave none behind.
pub fn check_converted<'c>(
    operation: melior::ir::OperationRef<'c, '_>,
    pass: melior::pass::ExternalPass<'_>,
    illegal: impl Fn(&str) -> bool,
    what: &str,
) {
    use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
    let mut failed = false;
    operation.walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if illegal(name) {
            crate::rewrite::emit_error(op.location(), &format!("'{name}' could not be lowered by {what}"));
            failed = true;
        }
        WalkResult::Advance
    });
    if failed {
        pass.signal_failure();
    }
}

/// What MLIR's registry and `--help` show for a named pipeline.
#[derive(Debug)]
pub struct PipelineInfo {
    /// The name in pipelines, e.g. `tile-to-cpu`.
    pub argument: &'static str,
    /// One line for `--help`.
    pub summary: &'static str,
}

/// A named pipeline of tile and upstream passes, expanded in place into the
/// pass manager that names it.
pub trait TilePipeline: 'static {
    /// Registry data of the pipeline.
    const INFO: PipelineInfo;

    /// The passes, as textual pipeline elements (`a, b, func.func(c)`), for
    /// the options text `options` (`key=value` pairs separated by spaces);
    /// an error message for options it does not accept.
    fn expand(options: &str) -> Result<String, String>;
}

unsafe extern "C" {
    fn tileRegisterPipeline(
        argument: mlir_sys::MlirStringRef,
        description: mlir_sys::MlirStringRef,
        build: extern "C" fn(mlir_sys::MlirStringRef, mlir_sys::MlirStringCallback, *mut c_void, *mut c_void) -> bool,
        user_data: *mut c_void,
    );
}

extern "C" fn build_pipeline<P: TilePipeline>(
    options: mlir_sys::MlirStringRef,
    emit: mlir_sys::MlirStringCallback,
    emit_data: *mut c_void,
    _user_data: *mut c_void,
) -> bool {
    // SAFETY: MLIR passes a null or valid string reference for this call.
    let options = unsafe { tile_dialect::string_ref_text(options) };
    let (ok, text) = match P::expand(&options) {
        Ok(text) => (true, text),
        Err(message) => (false, format!("{}: {message}", P::INFO.argument)),
    };
    if let Some(emit) = emit {
        // SAFETY: `emit` appends the bytes to a string owned by the caller,
        // valid for this call.
        unsafe { emit(mlir_sys::MlirStringRef { data: text.as_ptr().cast(), length: text.len() }, emit_data) }
    }
    ok
}

/// Registers pipeline `P` into MLIR's pass registry.
pub(crate) fn register_pipeline<P: TilePipeline>() {
    let string = |s: &'static str| mlir_sys::MlirStringRef { data: s.as_ptr().cast(), length: s.len() };
    // SAFETY: the registry copies both strings; `build_pipeline::<P>`
    // matches the C signature and needs no user data.
    unsafe {
        tileRegisterPipeline(
            string(P::INFO.argument),
            string(P::INFO.summary),
            build_pipeline::<P>,
            std::ptr::null_mut(),
        )
    }
}

/// Parses pipeline options: `key=value` pairs separated by spaces, each key
/// one of `known`.
pub fn parse_options<'a>(options: &'a str, known: &[&str]) -> Result<Vec<(&'a str, &'a str)>, String> {
    options
        .split_whitespace()
        .map(|pair| {
            let (key, value) = pair.split_once('=').ok_or_else(|| format!("option '{pair}' is not key=value"))?;
            if known.is_empty() {
                Err("takes no options".to_string())
            } else if known.contains(&key) {
                Ok((key, value))
            } else {
                Err(format!("unknown option '{key}' (known: {})", known.join(", ")))
            }
        })
        .collect()
}

/// Runs the greedy rewrite driver with the patterns `patterns` makes over
/// `operation`, the body of a pattern-based pass; a driver failure fails the
/// pass.
/// Whether `operation` holds an op of the tile dialect other than the grid
/// queries (which `convert-tile-to-gpu` lowers): the greedy lowerings skip
/// a module without one (the register path leaves none), as folding the
/// rest is the canonicalizer's job.
pub fn has_tile_ops(operation: melior::ir::OperationRef) -> bool {
    use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
    let mut found = false;
    operation.walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default();
        if name.starts_with("tile.") && !matches!(name, "tile.block_id" | "tile.num_blocks") {
            found = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

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

/// The bufferization dialect's handle, which melior does not wrap.
pub fn bufferization_handle() -> melior::dialect::DialectHandle {
    // SAFETY: returns a pointer to static registration data of MLIR.
    unsafe { melior::dialect::DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__bufferization__()) }
}

/// The vector dialect's handle, which melior does not wrap.
pub fn vector_handle() -> melior::dialect::DialectHandle {
    // SAFETY: returns a pointer to static registration data of MLIR.
    unsafe { melior::dialect::DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__vector__()) }
}

/// The NVVM dialect's handle, which melior does not wrap.
pub fn nvvm_handle() -> melior::dialect::DialectHandle {
    // SAFETY: returns a pointer to static registration data of MLIR.
    unsafe { melior::dialect::DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__nvvm__()) }
}
