//! Driving the compiler from Rust: parse and verify a tile program, find a
//! kernel and its parameter ABI, run a pipeline. Every failure is an
//! [`Error`] with MLIR's located diagnostics as text.

use melior::{
    Context,
    ir::{
        BlockLike, Module, Type, TypeLike,
        attribute::{StringAttribute, TypeAttribute},
        operation::OperationLike,
        r#type::{FunctionType, MemRefType, ShapedTypeLike},
    },
    pass::PassManager,
};
use std::path::Path;
use tile_abi::{DType, Param, ScalarType, Signature};
use tile_dialect::diagnostics::capture;

/// Errors of compiling a tile program.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The program did not parse or did not verify; MLIR's diagnostics.
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("no kernel @{name} in the module (kernels: {available})")]
    NoKernel { name: String, available: String },
    #[error("the module has {0} kernels; name one (--kernel)")]
    AmbiguousKernel(String),
    #[error("the module has no function with the tile.kernel attribute")]
    NoKernels,
    #[error("kernel @{kernel}: parameter #{index} of type {ty} is not a memref or scalar of the language")]
    Parameter { kernel: String, index: usize, ty: String },
    /// A pass failed; MLIR's diagnostics.
    #[error("{pipeline} failed:\n{diagnostics}")]
    Pipeline { pipeline: String, diagnostics: String },
    #[error("the JIT could not compile the module: {0}")]
    Jit(String),
    #[error("GPU code generation failed: {0}")]
    Gpu(String),
    /// An LLVM option of `TILE_LLVM_OPTIONS` was refused.
    #[error("{0}")]
    LlvmOptions(String),
}

/// This module's result type.
pub type Result<T> = std::result::Result<T, Error>;

unsafe extern "C" {
    fn tileParseModule(
        context: mlir_sys::MlirContext,
        source: mlir_sys::MlirStringRef,
        source_name: mlir_sys::MlirStringRef,
    ) -> mlir_sys::MlirModule;
}

/// Parses and verifies a tile program from text; `name` is the file name
/// that locations show.
pub fn parse<'c>(context: &'c Context, text: &str, name: &str) -> Result<Module<'c>> {
    let (module, diagnostics) = capture(context, || {
        let source = mlir_sys::MlirStringRef { data: text.as_ptr().cast(), length: text.len() };
        let source_name = mlir_sys::MlirStringRef { data: name.as_ptr().cast(), length: name.len() };
        // SAFETY: both strings outlive the call; the module (null on
        // failure) is owned by the caller.
        unsafe {
            let module = tileParseModule(context.to_raw(), source, source_name);
            (!module.ptr.is_null()).then(|| Module::from_raw(module))
        }
    });
    let module = module.ok_or(Error::Invalid(diagnostics))?;
    let (valid, diagnostics) = capture(context, || module.as_operation().verify());
    if !valid {
        return Err(Error::Invalid(diagnostics));
    }
    Ok(module)
}

/// Reads, parses and verifies a tile program file.
pub fn parse_file<'c>(context: &'c Context, path: &Path) -> Result<Module<'c>> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: name.clone(), source })?;
    parse(context, &text, &name)
}

/// The names of the module's kernels (functions with `tile.kernel`).
pub fn kernels(module: &Module) -> Vec<String> {
    let mut names = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok("func.func")
            && op.has_attribute(tile_dialect::attrs::KERNEL)
            && !op.has_attribute(tile_dialect::attrs::VARIANT_OF)
            && let Some(name) = op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok())
        {
            names.push(name.value().to_string());
        }
        next = op.next_in_block();
    }
    names
}

/// The kernel named `name`, or the module's only kernel.
pub fn select_kernel(module: &Module, name: Option<&str>) -> Result<String> {
    let available = kernels(module);
    match name {
        Some(name) if available.iter().any(|k| k == name) => Ok(name.to_string()),
        Some(name) => Err(Error::NoKernel { name: name.to_string(), available: available.join(", ") }),
        None => match available.as_slice() {
            [only] => Ok(only.clone()),
            [] => Err(Error::NoKernels),
            _ => Err(Error::AmbiguousKernel(available.join(", "))),
        },
    }
}

/// The parameter ABI of kernel `name`, read from its function type.
pub fn signature(module: &Module, name: &str) -> Result<Signature> {
    let no_kernel = || Error::NoKernel { name: name.to_string(), available: kernels(module).join(", ") };
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        let is_kernel =
            op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value() == name)
                == Some(true)
                && op.has_attribute(tile_dialect::attrs::KERNEL);
        if is_kernel {
            let function_type = op
                .attribute("function_type")
                .ok()
                .and_then(|a| TypeAttribute::try_from(a).ok())
                .ok_or_else(no_kernel)?;
            let function_type = FunctionType::try_from(function_type.value()).map_err(|_| no_kernel())?;
            let params = (0..function_type.input_count())
                .map(|index| {
                    let r#type = function_type.input(index).map_err(|_| no_kernel())?;
                    param(r#type).ok_or_else(|| Error::Parameter {
                        kernel: name.to_string(),
                        index,
                        ty: r#type.to_string(),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(Signature { name: name.to_string(), params });
        }
        next = op.next_in_block();
    }
    Err(no_kernel())
}

fn param(r#type: Type) -> Option<Param> {
    if let Ok(memref) = MemRefType::try_from(r#type) {
        let dtype = DType::from_mlir_name(&memref.element().to_string())?;
        let rank = memref.rank();
        let shape = (0..rank)
            .map(|d| match memref.dim_size(d).ok()? {
                melior::ir::r#type::DimSize::Static(n) => Some(Some(n)),
                melior::ir::r#type::DimSize::Dynamic => Some(None),
            })
            .collect::<Option<Vec<_>>>()?;
        let mut strides = vec![0i64; rank];
        let mut offset = 0i64;
        // SAFETY: `strides` has one entry per dim of the memref.
        let ok =
            unsafe { mlir_sys::mlirMemRefTypeGetStridesAndOffset(memref.to_raw(), strides.as_mut_ptr(), &mut offset) };
        if ok.value == 0 || offset != 0 || strides.last() != Some(&1) {
            return None;
        }
        let strides = strides.into_iter().map(|s| (s != i64::MIN).then_some(s)).collect();
        return Some(Param::Memref { dtype, shape, strides });
    }
    ScalarType::from_mlir_name(&r#type.to_string()).map(Param::Scalar)
}

/// The environment variable that turns on verification after each pass of
/// [`run_pipeline`].
pub const VERIFY_EACH: &str = "TILE_VERIFY_EACH";

/// Runs a textual pass pipeline (`builtin.module(...)`) over the module,
/// then verifies it.
pub fn run_pipeline(context: &Context, module: &mut Module, pipeline: &str) -> Result<()> {
    crate::register_passes();
    tile_dialect::registry::llvm_options_status().map_err(Error::LlvmOptions)?;
    let mut parse_errors = String::new();
    let (result, diagnostics) = capture(context, || {
        let manager = PassManager::new(context);
        // The module is verified once, after the pipeline, not after each of
        // its passes: that cost a sixth of a GEMM example's compile time (its
        // IR is large). `tile-opt` (lit, the fuzzer) still verifies after
        // every pass, as does this with TILE_VERIFY_EACH=1, which names the
        // pass that broke the IR.
        manager.enable_verifier(std::env::var_os(VERIFY_EACH).is_some_and(|v| v == "1"));
        // SAFETY: the pass manager, the pipeline string and `parse_errors`
        // are live for the call; the callback only appends to the string.
        let parsed = unsafe {
            let text = mlir_sys::MlirStringRef { data: pipeline.as_ptr().cast(), length: pipeline.len() };
            mlir_sys::mlirParsePassPipeline(
                mlir_sys::mlirPassManagerGetAsOpPassManager(manager.to_raw()),
                text,
                Some(append_text),
                std::ptr::addr_of_mut!(parse_errors).cast(),
            )
        };
        if parsed.value == 0 {
            return Err(());
        }
        manager.run(module).map_err(|_| ())?;
        if module.as_operation().verify() { Ok(()) } else { Err(()) }
    });
    result.map_err(|_| Error::Pipeline {
        pipeline: pipeline.to_string(),
        diagnostics: [parse_errors.trim(), diagnostics.trim()].join("\n").trim().to_string(),
    })
}

/// Appends MLIR's text to the `String` that `user_data` points to.
unsafe extern "C" fn append_text(text: mlir_sys::MlirStringRef, user_data: *mut std::ffi::c_void) {
    // SAFETY: `user_data` is the `String` passed by `run_pipeline`, and
    // `text` is valid for this call.
    unsafe {
        let out = &mut *user_data.cast::<String>();
        out.push_str(&tile_dialect::string_ref_text(text));
    }
}
