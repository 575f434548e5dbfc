//! Running `tile-to-cpu` output in-process through MLIR's ExecutionEngine.

use crate::compile::{self, Error, Result, run_pipeline, select_kernel, signature};
use crate::rewrite::Probe;
use melior::{
    Context,
    ir::{
        Module, RegionLike,
        attribute::{FlatSymbolRefAttribute, StringAttribute},
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use std::ffi::c_void;
use tile_abi::{Arg, Grid, Param, Signature, memref_slots};
use tile_dialect::diagnostics::capture;

/// The packed entry point the ExecutionEngine makes for each public
/// function: one pointer per flattened argument.
type PackedFn = unsafe extern "C" fn(*mut *mut c_void);

/// A kernel compiled for the host CPU.
pub struct CpuKernel {
    engine: mlir_sys::MlirExecutionEngine,
    entry: PackedFn,
    signature: Signature,
}

// SAFETY: the engine is not mutated after creation (only looked up, in
// `compile`), and the compiled code is reentrant: it keeps no state between
// calls besides read-only constants.
unsafe impl Send for CpuKernel {}
// SAFETY: as above; `launch` only calls the compiled function.
unsafe impl Sync for CpuKernel {}

impl Drop for CpuKernel {
    fn drop(&mut self) {
        // SAFETY: the engine was created by `compile` and is destroyed once.
        unsafe { mlir_sys::mlirExecutionEngineDestroy(self.engine) }
    }
}

impl CpuKernel {
    /// Compiles kernel `kernel` (or the module's only kernel) with
    /// `tile-to-cpu` and the LLVM JIT at `-O3`. Consumes the module, which
    /// the pipeline lowers in place.
    pub fn compile(context: &Context, mut module: Module, kernel: Option<&str>) -> Result<CpuKernel> {
        let name = select_kernel(&module, kernel)?;
        let signature = signature(&module, &name)?;
        run_pipeline(context, &mut module, "builtin.module(tile-to-cpu)")?;
        // The JIT resolves what the module declares from this process, and
        // only says so on stderr; a missing function is named here instead.
        let missing: Vec<String> = declared_functions(&module).into_iter().filter(|f| !defined_here(f)).collect();
        if !missing.is_empty() {
            return Err(Error::Jit(format!(
                "the program of kernel @{name} calls {}, which neither the program nor this process defines",
                missing.iter().map(|f| format!("@{f}")).collect::<Vec<_>>().join(", ")
            )));
        }
        melior::utility::register_all_llvm_translations(context);
        let (engine, diagnostics) = capture(context, || {
            // SAFETY: the module is live and fully lowered to the LLVM
            // dialect; the engine keeps its own LLVM copy of it.
            unsafe { mlir_sys::mlirExecutionEngineCreate(module.to_raw(), 3, 0, std::ptr::null(), false, false) }
        });
        if engine.ptr.is_null() {
            return Err(Error::Jit(diagnostics));
        }
        let symbol = format!("_mlir_{name}");
        // SAFETY: the engine is live; the name outlives the call.
        let address = unsafe {
            mlir_sys::mlirExecutionEngineLookup(
                engine,
                mlir_sys::MlirStringRef { data: symbol.as_ptr().cast(), length: symbol.len() },
            )
        };
        if address.is_null() {
            // SAFETY: created above, not used afterwards.
            unsafe { mlir_sys::mlirExecutionEngineDestroy(engine) };
            // The entry point is in the module, so its lookup fails only
            // when linking it does: a function LLVM's code generation calls
            // (a soft-float helper, say) is not in this process.
            return Err(Error::Jit(format!(
                "linking kernel @{name} failed: its machine code calls a function this process does not define \
                 (the JIT printed 'Symbols not found' with its name on stderr)"
            )));
        }
        // SAFETY: `_mlir_<name>` is the ExecutionEngine's packed wrapper,
        // whose C signature is `void(void **)`.
        let entry = unsafe { std::mem::transmute::<*mut c_void, PackedFn>(address) };
        Ok(CpuKernel { engine, entry, signature })
    }

    /// Parses, verifies and compiles a tile program's text.
    pub fn compile_text(context: &Context, text: &str, file_name: &str, kernel: Option<&str>) -> Result<CpuKernel> {
        let module = compile::parse(context, text, file_name)?;
        CpuKernel::compile(context, module, kernel)
    }

    /// The kernel's parameter ABI.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Runs the grid on all cores.
    pub fn launch(&self, args: &mut [Arg], grid: Grid) -> tile_abi::Result<()> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.launch_on(args, grid, threads)
    }

    /// Runs the grid, its blocks split into `threads` contiguous ranges run
    /// in parallel. Blocks never communicate, so the split does not change
    /// results (a program whose blocks write the same elements races, as it
    /// would on a GPU). The grid must be one the GPU could launch too
    /// ([`Grid::new`]); an empty grid runs no block.
    pub fn launch_on(&self, args: &mut [Arg], grid: Grid, threads: usize) -> tile_abi::Result<()> {
        self.signature.check(args)?;
        let grid = Grid::new(grid.0)?;
        if grid.is_empty() {
            return Ok(());
        }
        let slots = flatten(&self.signature, args);
        let blocks = grid.blocks();
        let threads = (threads.max(1) as u64).min(blocks);
        let per_thread = blocks.div_ceil(threads);
        let [gx, gy, gz] = grid.0;
        let run = |first: u64, last: u64| {
            let mut slots = slots.clone();
            slots.extend([gx, gy, gz, first, last]);
            let mut pointers: Vec<*mut c_void> = slots.iter_mut().map(|s| (s as *mut u64).cast()).collect();
            // SAFETY: `signature.check` matched every array's element type,
            // rank, static extents and strides with the kernel's memref
            // types, so the descriptors in `slots` describe live, aligned
            // buffers (borrowed by `args` for this call); the compiled code
            // clamps every access to the descriptors' extents. Each pointer
            // refers to an 8-byte slot that holds the argument in its low
            // bytes, as the packed wrapper reads it.
            unsafe { (self.entry)(pointers.as_mut_ptr()) }
        };
        if threads <= 1 {
            run(0, blocks);
            return Ok(());
        }
        std::thread::scope(|scope| {
            for t in 0..threads {
                let (first, last) = (t * per_thread, ((t + 1) * per_thread).min(blocks));
                if first < last {
                    let run = &run;
                    scope.spawn(move || run(first, last));
                }
            }
        });
        Ok(())
    }
}

/// The functions the lowered module declares without defining them and
/// refers to, which the JIT looks up in this process (`malloc`, ...).
fn declared_functions(module: &Module) -> Vec<String> {
    let mut declared = Vec::new();
    let mut referred = std::collections::HashSet::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        match op.name().as_string_ref().as_str() {
            Ok("llvm.func") if op.region_at(0).is_some_and(|body| body.first_block().is_none()) => {
                if let Some(name) = op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) {
                    declared.push(name.value().to_string());
                }
            }
            Ok("llvm.call") | Ok("llvm.mlir.addressof") => {
                for key in ["callee", "global_name"] {
                    if let Some(name) = op.attribute(key).ok().and_then(|a| FlatSymbolRefAttribute::try_from(a).ok()) {
                        referred.insert(name.value().to_string());
                    }
                }
            }
            _ => {}
        }
        WalkResult::Advance
    });
    declared.retain(|name| referred.contains(name));
    declared
}

unsafe extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const std::ffi::c_char) -> *mut c_void;
}

/// Whether this process defines symbol `name`, where the JIT looks for it
/// (the process's own symbols and the libraries it loaded).
fn defined_here(name: &str) -> bool {
    let Ok(name) = std::ffi::CString::new(name) else { return false };
    // SAFETY: a null handle is RTLD_DEFAULT (the global symbol scope); the
    // name is a NUL-terminated string that outlives the call.
    !unsafe { dlsym(std::ptr::null_mut(), name.as_ptr()) }.is_null()
}

/// The arguments as the LLVM lowering passes them, one 8-byte slot each
/// (`tile_abi::memref_slots`, `Scalar::slot`).
fn flatten(signature: &Signature, args: &mut [Arg]) -> Vec<u64> {
    let mut slots = Vec::new();
    for (param, arg) in signature.params.iter().zip(args.iter_mut()) {
        match (param, arg) {
            (Param::Memref { .. }, Arg::Array(array)) => {
                let address = array.as_mut_ptr() as u64;
                slots.extend(memref_slots(address, array));
            }
            (_, Arg::Scalar(scalar)) => slots.push(scalar.slot()),
            _ => {}
        }
    }
    slots
}
