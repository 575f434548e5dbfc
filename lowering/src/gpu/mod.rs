//! The GPU target: the `tile-to-ptx` pipeline and [`compile()`], which turns a
//! tile program into a [`tile_abi::Bundle`] (PTX plus metadata).
//!
//! `tile-to-ptx{chip=sm_90a toolkit=PATH}` lowers every op of the language:
//!
//! 1. `tile-specialize` (a kernel's `tile.config`, if any), `tile-simplify`;
//!    then, for the register path (the
//!    kernels whose `tile.mma`s, if any, wgmma can take from registers),
//!    `tile-widen-accumulators` (an f16 accumulator computed and carried
//!    in f32), `tile-defer-reductions`,
//!    `tile-prefetch-loads`, `tile-stream-stores`, `tile-sink-loads`,
//!    `tile-assign-layouts`,
//!    `tile-remove-layout-conversions`, for `sm_90a` `tile-use-tma` (a
//!    variant whose mma operand rings the TMA fills, and whose
//!    accumulator's store it writes out) and
//!    `convert-tile-to-registers`:
//!    their tiles in registers, per-thread code from here on; for the
//!    others `convert-tile-to-linalg`, `convert-tile-to-memref`: as on the
//!    CPU, so padding and masking are the same code;
//! 2. bufferization (tile buffers stay `memref.alloc`s) and
//!    `tile-expand-copies`;
//! 3. linalg to parallel loops; `tile-vectorize-copies`: the copies of
//!    tile loads and stores as 16-byte vector copies where a run-time check
//!    finds both sides aligned; `tile-distribute`: every parallel loop
//!    shared among the block's threads (few-output reductions among warps,
//!    with shuffles), a barrier after each;
//! 4. `convert-tile-to-gpu`: the kernel into `gpu.module @tile_kernels`,
//!    tile buffers into dynamic shared memory, the grid queries into
//!    `gpu.block_id` and `gpu.grid_dim`;
//! 5. upstream NVVM lowering (the dynamic shared memory's base an external
//!    declaration, [`crate::extern_shared`]) and `gpu-module-to-binary{format=isa}`
//!    on each kernel alone, in parallel, the PTX joined again
//!    ([`crate::split_kernels`]): PTX.
//!
//! Where a kernel stays off the register path or a loop's load is not
//! issued ahead, the pass says why in a remark at the op
//! ([`crate::remarks`]: `tile-opt --remarks-filter=tile`, `tile-run -v`).
//!
//! `general=deferred` (default `compiled`) adds `tile-defer-general-kernels`
//! after the layouts stage: a kernel that has variants is left out, its
//! variants alone compiled ([`compile_with`], [`General::Deferred`]).
//!
//! `toolkit` is a CUDA toolkit directory whose `nvvm/libdevice` provides
//! `libdevice.10.bc` (math functions such as `expf`); by default the first
//! of `$CUDA_HOME`, `/usr/local/cuda` and the `nvidia-cuda-nvcc` Python
//! package that has it.
//!
//! Status: kernels keep their tiles in registers (issue #20), their
//! `tile.mma`s on wgmma (issue #21), the operands that come from loads
//! copied by cp.async into rings of swizzled shared-memory slots, loaded
//! two iterations ahead, the mma in flight across iterations, and a
//! variant (`tile-use-tma`) whose rings the TMA fills (a producer warp
//! requesting them where the consumers' own requests cannot run two
//! ahead) and whose accumulator's store it writes out, taken where the
//! runtime can encode its descriptors (the store's is optional); kernels
//! the register path does not
//! take (mmas of shapes wgmma has no instruction for) are SIMT code over
//! tiles in shared memory.

use crate::{
    compile::{self, Error, Result, run_pipeline, select_kernel, signature},
    pass::{PipelineInfo, TilePipeline, parse_options},
};
use melior::{
    Context,
    ir::{
        AttributeLike, BlockLike, Module,
        attribute::{
            ArrayAttribute, DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute, StringAttribute,
        },
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use std::path::PathBuf;
use tile_abi::{Bundle, GridSlice, KernelInfo, Retiled, Variant};

/// The default chip.
pub const DEFAULT_CHIP: &str = "sm_90a";

/// The stages of `tile-to-ptx`, in order: a name and its passes, where
/// `{chip}` and `{toolkit}` are the options, `{widen}` is
/// `tile-widen-blocks`, `{slice}`
/// `tile-split-k, tile-slice-clusters` and `{tma}` `tile-use-tma, tile-finish-widening,
/// tile-persist-blocks` for `sm_90a` (the chip with wgmma and the TMA),
/// else nothing.
///
/// As on the CPU: bufferization may yield new buffers from loops and
/// `tile-carry-in-place` then gives each carried tile one buffer (a
/// yielded allocation would share its fixed place in shared memory with
/// the next iteration's), and `tile-safe-division` makes `x / 0` all ones
/// and `x % 0` the dividend, what `div.u`/`rem.u` give here anyway, but
/// division by zero is undefined behaviour in LLVM IR and signed `div`
/// gives no promise, so the guard makes both targets agree by
/// construction.
///
/// No `canonicalize` runs on the kernels after `convert-tile-to-gpu` or
/// on the LLVM dialect: over the register path's unrolled code they cost
/// compile time and changed no program's PTX (every example, bench program
/// and test kernel compiled both ways, BENCHMARKS.md session 27); LLVM
/// folds the same. The one after the arithmetic's conversion to LLVM does
/// change it, and stays.
///
/// Passes that only rewrite inside a function run nested on each
/// function (`func.func(...)`, `gpu.module(gpu.func(...))`), so that
/// MLIR's thread pool takes a module's kernels and variants in parallel;
/// run on the whole module they gave the same PTX, one function after
/// another. Those that add symbols to the module (`convert-gpu-to-nvvm`
/// its declarations) or read it whole stay on the module.
pub const STAGES: &[(&str, &str)] = &[
    (
        "layouts",
        "{widen}tile-specialize, tile-simplify, func.func(tile-group-blocks, tile-reverse-blocks, tile-version-masks), func.func(tile-widen-accumulators, {slice}tile-defer-reductions, tile-prefetch-loads, tile-stream-stores, tile-sink-loads, tile-assign-layouts), tile-remove-layout-conversions{tma}",
    ),
    ("registers", "func.func(convert-tile-to-registers, tile-narrow-divisions)"),
    ("linalg", "convert-tile-to-linalg"),
    ("memref", "convert-tile-to-memref"),
    (
        "bufferized",
        "func.func(convert-elementwise-to-linalg, canonicalize), \
         one-shot-bufferize{allow-return-allocs-from-loops=true}, tile-carry-in-place, tile-expand-copies",
    ),
    ("threads", "func.func(convert-linalg-to-parallel-loops, canonicalize, tile-vectorize-copies, tile-distribute)"),
    ("gpu", "convert-tile-to-gpu"),
    (
        "nvvm",
        "gpu.module(gpu.func(convert-scf-to-cf)), convert-nvvm-to-llvm, \
         gpu.module(gpu.func(expand-strided-metadata)), nvvm-attach-target{chip={chip} features=+ptx80 O=2}, \
         gpu.module(gpu.func(lower-affine)), tile-lower-float-minmax, gpu.module(gpu.func(arith-expand)), \
         tile-safe-division, gpu.module(gpu.func(convert-arith-to-llvm, convert-index-to-llvm, canonicalize, cse)), \
         gpu.module(convert-gpu-to-nvvm), tile-extern-dynamic-shared, gpu.module(llvm.func(cse)), reconcile-unrealized-casts",
    ),
    (
        "ptx",
        "tile-split-kernels, builtin.module(gpu-module-to-binary{format=isa toolkit={toolkit}}), tile-join-binaries",
    ),
];

/// The `tile-to-ptx` pipeline.
pub struct TileToPtx;

/// A CUDA toolkit directory with libdevice, if one is found.
pub fn find_toolkit() -> Option<PathBuf> {
    let has_libdevice = |dir: &PathBuf| dir.join("nvvm/libdevice/libdevice.10.bc").exists();
    let mut candidates: Vec<PathBuf> = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(dir) = std::env::var_os(var) {
            candidates.push(dir.into());
        }
    }
    candidates.push("/usr/local/cuda".into());
    // pip's nvidia-cuda-nvcc wheels: <site-packages>/nvidia/cuda_nvcc
    for base in ["/usr/local/lib", "/usr/lib", "/root/.local/lib"] {
        if let Ok(entries) = std::fs::read_dir(base) {
            for entry in entries.flatten() {
                for site in ["site-packages", "dist-packages"] {
                    candidates.push(entry.path().join(site).join("nvidia/cuda_nvcc"));
                }
            }
        }
    }
    if let Ok(home) = std::env::var("HOME") {
        for version in ["3.11", "3.12", "3.13"] {
            candidates.push(format!("{home}/.local/lib/python{version}/site-packages/nvidia/cuda_nvcc").into());
        }
        if let Ok(entries) = std::fs::read_dir(format!("{home}/.pyenv/versions")) {
            for entry in entries.flatten() {
                if let Ok(libs) = std::fs::read_dir(entry.path().join("lib")) {
                    for lib in libs.flatten() {
                        candidates.push(lib.path().join("site-packages/nvidia/cuda_nvcc"));
                    }
                }
            }
        }
    }
    candidates.into_iter().find(has_libdevice)
}

/// Checks a chip name: `sm_` and a compute capability the NVPTX backend
/// knows (50 to 121), optionally with the `a` suffix. Anything else would
/// reach LLVM (which crashes on an empty name) or break the pipeline text.
pub fn check_chip(chip: &str) -> std::result::Result<(), String> {
    let digits = chip.strip_prefix("sm_").map(|rest| rest.strip_suffix('a').unwrap_or(rest));
    match digits.and_then(|d| d.parse::<u32>().ok().filter(|_| d.chars().all(|c| c.is_ascii_digit()))) {
        Some(capability) if (50..=121).contains(&capability) => Ok(()),
        _ => Err(format!("'{chip}' is not an NVIDIA chip name such as sm_90a")),
    }
}

/// Checks a toolkit path: it goes into pipeline text, so it must not hold
/// the text's delimiters.
fn check_toolkit(toolkit: &str) -> std::result::Result<(), String> {
    if toolkit.contains(['{', '}', ' ', ',', '(', ')']) {
        return Err(format!("toolkit path '{toolkit}' contains a space, comma, brace or parenthesis"));
    }
    Ok(())
}

/// The pass text of `tile-to-ptx` for a chip and toolkit, up to and
/// including stage `last`.
pub fn passes(chip: &str, toolkit: &str, last: &str) -> String {
    passes_with(chip, toolkit, last, General::Compiled)
}

/// [`passes`], with `tile-defer-general-kernels` after the layouts stage
/// (where the variants are made) for [`General::Deferred`].
pub fn passes_with(chip: &str, toolkit: &str, last: &str, general: General) -> String {
    let mut parts = Vec::new();
    for (name, text) in STAGES {
        parts.push(stage_text(text, chip, toolkit));
        if *name == "layouts" && general == General::Deferred {
            parts.push("tile-defer-general-kernels".into());
        }
        if *name == last {
            break;
        }
    }
    parts.join(", ")
}

/// A stage's pass text (from [`STAGES`]) with the options filled in.
pub fn stage_text(text: &str, chip: &str, toolkit: &str) -> String {
    let (widen, slice, tma) = if chip == "sm_90a" {
        (
            "tile-widen-blocks, ",
            "tile-split-k, tile-slice-clusters, ",
            ", tile-use-tma, tile-finish-widening, func.func(tile-persist-blocks, tile-stream-k), tile-split-last-wave, \
             tile-split-thread-stores",
        )
    } else {
        ("", "", "")
    };
    text.replace("{chip}", chip)
        .replace("{toolkit}", toolkit)
        .replace("{widen}", widen)
        .replace("{slice}", slice)
        .replace("{tma}", tma)
}

impl TilePipeline for TileToPtx {
    const INFO: PipelineInfo = PipelineInfo {
        argument: "tile-to-ptx",
        summary: "Lower tile kernels to PTX for NVIDIA GPUs (options: chip=sm_90a, toolkit=CUDA dir with libdevice, \
                  general=compiled|deferred: deferred compiles the variants alone of a kernel that has any)",
    };

    fn expand(options: &str) -> std::result::Result<String, String> {
        let mut chip = DEFAULT_CHIP.to_string();
        let mut toolkit = find_toolkit().map(|p| p.display().to_string()).unwrap_or_default();
        let mut general = General::Compiled;
        for (key, value) in parse_options(options, &["chip", "toolkit", "general"])? {
            match key {
                "chip" => chip = value.to_string(),
                "general" => {
                    general = match value {
                        "compiled" => General::Compiled,
                        "deferred" => General::Deferred,
                        other => return Err(format!("general='{other}': expected compiled or deferred")),
                    }
                }
                _ => toolkit = value.to_string(),
            }
        }
        check_chip(&chip)?;
        check_toolkit(&toolkit)?;
        Ok(passes_with(&chip, &toolkit, "ptx", general))
    }
}

/// Whether [`compile_with`] compiles a kernel that has variants whole, or
/// its variants alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum General {
    /// Each kernel and its variants: the bundle runs on any arguments.
    #[default]
    Compiled,
    /// A kernel's variants alone where it has any
    /// (`tile-defer-general-kernels`; `KernelInfo::deferred`): most of the
    /// compile time goes to the general kernel, which only arguments no
    /// variant takes need (arrays a TMA descriptor cannot describe), and
    /// so do the `__thread_store` variants (`tile-split-thread-stores`),
    /// left out with it. A launch on such arguments is
    /// `tile_runtime::Error::Deferred`, and the caller compiles again with
    /// [`General::Compiled`].
    Deferred,
}

/// Compiles every kernel of the module to PTX for `chip`; the bundle
/// describes kernel `kernel` (or the only kernel) first.
pub fn compile(context: &Context, module: Module, kernel: Option<&str>, chip: &str) -> Result<Bundle> {
    compile_with(context, module, kernel, chip, General::Compiled)
}

/// [`compile()`], with the general kernels compiled or deferred.
pub fn compile_with(
    context: &Context,
    module: Module,
    kernel: Option<&str>,
    chip: &str,
    general: General,
) -> Result<Bundle> {
    if general == General::Compiled {
        return compile_module(context, module, kernel, chip, false)?
            .ok_or_else(|| Error::Gpu("a kernel compiled whole lost its general kernel".into()));
    }
    // SAFETY: `module` is a live module; the clone is a new top-level op
    // that `Module::from_operation` takes ownership of (or drops).
    let whole =
        unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(module.as_operation().to_raw())) };
    match compile_module(context, module, kernel, chip, true)? {
        Some(bundle) => Ok(bundle),
        None => {
            let whole =
                Module::from_operation(whole).ok_or_else(|| Error::Gpu("the module's copy is not a module".into()))?;
            compile_module(context, whole, kernel, chip, false)?
                .ok_or_else(|| Error::Gpu("a kernel compiled whole lost its general kernel".into()))
        }
    }
}

/// The bundle of `module`, its general kernels deferred or not; `None`
/// (known after `convert-tile-to-gpu`, before the NVVM and PTX stages)
/// where a deferred kernel is left with no variant: `convert-tile-to-gpu`
/// drops a variant that does not fit in shared memory, and the kernel is
/// then compiled whole.
fn compile_module(
    context: &Context,
    mut module: Module,
    kernel: Option<&str>,
    chip: &str,
    defer: bool,
) -> Result<Option<Bundle>> {
    check_chip(chip).map_err(Error::Gpu)?;
    let name = select_kernel(&module, kernel)?;
    let mut signatures = vec![signature(&module, &name)?];
    for other in compile::kernels(&module) {
        if other != name {
            signatures.push(signature(&module, &other)?);
        }
    }
    let toolkit = find_toolkit().map(|p| p.display().to_string()).unwrap_or_default();
    check_toolkit(&toolkit).map_err(Error::Gpu)?;
    let general = if defer { General::Deferred } else { General::Compiled };
    run_pipeline(context, &mut module, &format!("builtin.module({})", passes_with(chip, &toolkit, "gpu", general)))?;
    let mut kernels = Vec::new();
    for signature in signatures {
        let variants = variants(&module, &signature.name)?;
        let cluster = program_cluster(&module, &signature.name);
        // A deferred kernel (erased with its variants made) has no
        // launch shape of its own.
        let (block, shared_memory, deferred) = match launch_shape(&module, &signature.name) {
            Some((block, shared_memory)) => (block, shared_memory, false),
            None if defer => ([0; 3], 0, true),
            None => {
                return Err(Error::Gpu(format!(
                    "kernel @{} has no launch shape after convert-tile-to-gpu",
                    signature.name
                )));
            }
        };
        if deferred && variants.is_empty() {
            return Ok(None);
        }
        kernels.push(KernelInfo { signature, block, shared_memory, cluster, variants, deferred });
    }
    let rest: Vec<String> = STAGES
        .iter()
        .skip_while(|(stage, _)| *stage != "nvvm")
        .map(|(_, text)| stage_text(text, chip, &toolkit))
        .collect();
    run_pipeline(context, &mut module, &format!("builtin.module({})", rest.join(", ")))?;
    let ptx = extract_ptx(&module).ok_or_else(|| Error::Gpu("no PTX in the compiled module".into()))?;
    if ptx.contains(".extern .func") && ptx.contains("__nv_") {
        return Err(Error::Gpu(
            "the kernel calls libdevice math functions, but no CUDA toolkit with nvvm/libdevice was found; \
             set CUDA_HOME (or install the nvidia-cuda-nvcc-cu12 Python package)"
                .into(),
        ));
    }
    Ok(Some(Bundle { chip: chip.to_string(), ptx, kernels }))
}

/// Parses, verifies and compiles a tile program's text.
pub fn compile_text(
    context: &Context,
    text: &str,
    file_name: &str,
    kernel: Option<&str>,
    chip: &str,
) -> Result<Bundle> {
    let module = compile::parse(context, text, file_name)?;
    compile(context, module, kernel, chip)
}

/// The variants of kernel `name` (`tile-use-tma`'s, `tile-finish-widening`'s
/// and `tile-persist-blocks`'), with their launch shapes and TMA descriptors.
fn variants(module: &Module, name: &str) -> Result<Vec<Variant>> {
    let mut found = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let of = op.attribute("tile.variant_of").ok().map(|a| a.to_string());
        if op.name().as_string_ref().as_str() == Ok("gpu.func") && of.as_deref() == Some(&format!("@{name}")) {
            let variant = op
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())
                .map(|s| s.value().to_string());
            let arg_attrs = op.attribute("arg_attrs").ok().and_then(|a| ArrayAttribute::try_from(a).ok());
            let mut tma = Vec::new();
            if let Some(arg_attrs) = arg_attrs {
                for i in 0..arg_attrs.len() {
                    // An unreadable descriptor makes the variant an error
                    // below: a missing one would shift the parameters.
                    if let Some(descriptor) = arg_attrs.element(i).ok().and_then(crate::abi::read_tma) {
                        tma.push(descriptor);
                    }
                }
            }
            // Clusters along x alone (`convert-tile-to-gpu` makes no other
            // from `tile.cluster`).
            let cluster = op
                .attribute("nvvm.cluster_dim")
                .ok()
                .and_then(|a| DenseI32ArrayAttribute::try_from(a).ok())
                .and_then(|a| a.element(0).ok())
                .map_or(1, |x| x.max(1) as u32);
            let retiled = op
                .attribute(tile_dialect::attrs::RETILED)
                .ok()
                .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
                .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect::<Vec<i64>>());
            let stream_k = op.attribute(tile_dialect::attrs::STREAM_K).ok().map(|a| {
                DenseI64ArrayAttribute::try_from(a)
                    .ok()
                    .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect::<Vec<i64>>())
            });
            let grid_slice = op.attribute(tile_dialect::attrs::GRID_SLICE).ok().map(|a| {
                IntegerAttribute::try_from(a).ok().and_then(|g| u32::try_from(g.value()).ok()).filter(|&g| g >= 1)
            });
            found.push((variant, tma, op.has_attribute("tile.persistent"), cluster, retiled, stream_k, grid_slice));
        }
        WalkResult::Advance
    });
    let mut variants = Vec::new();
    for (variant, tma, persistent, cluster, retiled, stream_k, grid_slice) in found {
        let variant = variant.ok_or_else(|| Error::Gpu(format!("a variant of @{name} has no name")))?;
        let tma = tma
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::Gpu(format!("kernel @{variant} has an unreadable tile.tma descriptor")))?;
        let (block, shared_memory) = launch_shape(module, &variant)
            .ok_or_else(|| Error::Gpu(format!("kernel @{variant} has no launch shape after convert-tile-to-gpu")))?;
        let retiled = match retiled.as_deref() {
            None => None,
            Some(&[arg, row, column, program_rows, program_columns, rows, columns, ref walk @ ..])
                if walk.len() <= 1 =>
            {
                let count = |x: i64| u32::try_from(x).ok();
                Some(Retiled {
                    walk: walk == [1],
                    arg: usize::try_from(arg)
                        .map_err(|_| Error::Gpu(format!("kernel @{variant}: bad tile.retiled")))?,
                    dims: [row, column].map(|d| d as usize),
                    program_tile: [count(program_rows), count(program_columns)].map(|c| c.unwrap_or(0)),
                    tile: [count(rows), count(columns)].map(|c| c.unwrap_or(0)),
                })
            }
            Some(_) => return Err(Error::Gpu(format!("kernel @{variant} has an unreadable tile.retiled"))),
        };
        let stream_k = match stream_k {
            None => None,
            Some(Some(values)) => match values[..] {
                [elements, arg, dim, tile] if elements > 0 && arg >= 0 && dim >= 0 && tile > 0 => {
                    Some(tile_abi::StreamK {
                        elements: elements as u64,
                        arg: arg as usize,
                        dim: dim as usize,
                        tile: tile as u64,
                    })
                }
                _ => return Err(Error::Gpu(format!("kernel @{variant} has an unreadable tile.stream_k"))),
            },
            Some(None) => return Err(Error::Gpu(format!("kernel @{variant} has an unreadable tile.stream_k"))),
        };
        let grid_slice = match grid_slice {
            None => None,
            Some(Some(group)) => Some(GridSlice { group }),
            Some(None) => return Err(Error::Gpu(format!("kernel @{variant} has an unreadable tile.grid_slice"))),
        };
        variants.push(Variant {
            name: variant,
            block,
            shared_memory,
            tma,
            persistent,
            cluster,
            retiled,
            stream_k,
            grid_slice,
        });
    }
    Ok(variants)
}

/// The blocks of the cluster each program block of kernel `name` runs as
/// (its `tile.cluster`, which `convert-tile-to-gpu` keeps), or 1.
fn program_cluster(module: &Module, name: &str) -> u32 {
    let mut found = 1;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let is_it = op.name().as_string_ref().as_str() == Ok("gpu.func")
            && op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value() == name)
                == Some(true);
        if is_it {
            found = crate::registers::cluster::blocks(op) as u32;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

/// Block size and shared memory that `convert-tile-to-gpu` chose.
fn launch_shape(module: &Module, name: &str) -> Option<([u32; 3], u32)> {
    let mut found = None;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let is_it = op.name().as_string_ref().as_str() == Ok("gpu.func")
            && op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value() == name)
                == Some(true);
        if is_it {
            let block = op.attribute("known_block_size").ok().and_then(|a| DenseI32ArrayAttribute::try_from(a).ok());
            let smem = op.attribute("tile.shared_memory").ok().and_then(|a| IntegerAttribute::try_from(a).ok());
            if let (Some(block), Some(smem)) = (block, smem) {
                let dims: Option<Vec<u32>> = (0..3).map(|i| block.element(i).ok().map(|v| v as u32)).collect();
                found = dims.map(|d| ([d[0], d[1], d[2]], smem.value() as u32));
            }
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

/// The PTX text of the `gpu.binary` that `gpu-module-to-binary` made.
fn extract_ptx(module: &Module) -> Option<String> {
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok("gpu.binary") {
            let objects = ArrayAttribute::try_from(op.attribute("objects").ok()?).ok()?;
            let object = objects.element(0).ok()?;
            // SAFETY: `object` is a live #gpu.object attribute; the string
            // it returns lives as long as the context.
            let text = unsafe { tile_dialect::string_ref_text(mlir_sys::mlirGPUObjectAttrGetObject(object.to_raw())) };
            return Some(text);
        }
        next = op.next_in_block();
    }
    None
}
