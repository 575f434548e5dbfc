//! The GPU target. Without a CUDA toolkit (libdevice, ptxas) or a GPU, the
//! tests that need one print why and skip; CI still checks every example's
//! PTX with ptxas (from the nvidia-cuda-nvcc-cu12 Python package).

use crate::support::{context, root};
use std::process::Command;
use tile_lowering::{compile, gpu};
use tile_runtime::{Arg, DType, Grid, cuda::Cuda};
use tile_tests::reference::{self as r, Rng, assert_close, poisoned, values};

fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mlir").map(str::to_string))
        .collect();
    names.sort();
    names
}

fn bundle(name: &str) -> tile_runtime::Bundle {
    let context = context();
    let path = root().join("examples").join(format!("{name}.mlir"));
    let module = compile::parse_file(&context, &path).unwrap();
    gpu::compile(&context, module, None, gpu::DEFAULT_CHIP).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Where ptxas would be (the toolkit with libdevice, which compiling needs,
/// is found), or `None` after saying why the test skips.
fn ptxas() -> Option<std::path::PathBuf> {
    let Some(toolkit) = gpu::find_toolkit() else {
        println!("skipping: no CUDA toolkit with nvvm/libdevice (set CUDA_HOME or install nvidia-cuda-nvcc-cu12)");
        return None;
    };
    Some(toolkit.join("bin/ptxas"))
}

/// ptxas's messages on `ptx` for sm_90a; it must accept it.
fn run_ptxas(ptxas: &std::path::Path, ptx: &str, what: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("tile-test-{}-{}.ptx", std::process::id(), what.replace([',', '='], "_")));
    std::fs::write(&path, ptx).unwrap();
    let out = Command::new(ptxas).args(["-arch=sm_90a", "-o", "/dev/null"]).arg(&path).output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "ptxas rejected {what}: {log}");
    let _ = std::fs::remove_file(&path);
    log
}

#[test]
fn every_example_compiles_to_ptx_that_ptxas_accepts() {
    let Some(ptxas) = ptxas() else { return };
    for name in examples() {
        let bundle = bundle(&name);
        assert!(bundle.ptx.contains(".target sm_90a"), "{name}: PTX for sm_90a");
        assert!(bundle.kernels[0].block[0] > 0, "{name}: a block size");
        // Tile loads and stores copy 16-byte vectors (where aligned): mma
        // operands straight into shared memory, other tiles into registers.
        assert!(bundle.ptx.contains("st.global.v4.b32"), "{name}: st.global.v4.b32");
        let loads = ["ld.global.v4.b32", "cp.async.cg.shared.global"];
        assert!(loads.iter().any(|l| bundle.ptx.contains(l)), "{name}: one of {loads:?}");
        // The 16-bit matmuls: a TMA variant whose store the TMA writes out.
        let gemm16 = matches!(name.as_str(), "matmul" | "matmul_f16_f16" | "matmul_bf16" | "matmul_bf16_bf16");
        // Every tile.mma multiplies on wgmma, in the kernel and in its
        // variants (attention, tf32 and f8 too).
        let mma = gemm16 || matches!(name.as_str(), "matmul_f32" | "attention" | "matmul_f8");
        assert_eq!(bundle.ptx.contains("wgmma.mma_async"), mma, "{name}: wgmma");
        // The register path's operand loads go to shared memory by cp.async
        // (an f16 accumulator too: `tile-widen-accumulators` makes its mma
        // an f32 one).
        let register_mma = mma;
        assert_eq!(bundle.ptx.contains("cp.async.cg.shared.global"), register_mma, "{name}: cp.async");
        // The register path's mma kernels get a variant whose operand rings
        // the TMA fills (`tile-use-tma`).
        assert_eq!(bundle.ptx.contains("cp.async.bulk.tensor"), register_mma, "{name}: TMA");
        let variants = &bundle.kernels[0].variants;
        let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
        let mut expected = Vec::new();
        if register_mma {
            // K steps of 64 bytes of 8-bit floats widen to 128 in a TMA
            // variant tried first (`tile-widen-blocks`' `__widek` instance).
            // Each TMA variant that stores through the TMA (not
            // attention's: a loop of several mmas) requires the store's
            // descriptor and has a copy after it for outputs the TMA cannot
            // describe (`tile-split-thread-stores`).
            let copies = name != "attention";
            let mut push = |variant: String| {
                if copies {
                    expected.push(variant.clone());
                    expected.push(format!("{variant}__thread_store"));
                } else {
                    expected.push(variant);
                }
            };
            if name == "matmul_f8" {
                push(format!("{name}__widek__tma"));
            }
            push(format!("{name}__tma"));
        }
        assert_eq!(names, expected, "{name}: variants");
        if let Some(variant) = variants.iter().find(|v| v.name.ends_with("__tma")).filter(|_| gemm16) {
            let args: Vec<usize> = variant.tma.iter().map(|d| d.arg).collect();
            assert_eq!(args, [0, 1, 2], "{name}: descriptors of A and B, and of C for the TMA-store epilogue");
            assert_eq!(variant.tma[0].box_shape, [128, 64]);
            assert_eq!(variant.tma[1].box_shape, [64, 64]);
            // 128-byte rows: 64 16-bit or 32 f32 columns of C; required,
            // and optional in the copy, whose threads store C where it
            // cannot be encoded.
            let columns = if matches!(name.as_str(), "matmul" | "matmul_bf16") { 32 } else { 64 };
            assert_eq!(variant.tma[2].box_shape, [128, columns], "{name}: C's boxes");
            assert!(!variant.tma[2].optional, "{name}: C's descriptor is required");
            let copy = variants.iter().find(|v| v.name == format!("{}__thread_store", variant.name)).unwrap();
            assert_eq!(copy.tma[..2], variant.tma[..2], "{name}: the copy's operand descriptors");
            assert!(copy.tma[2].optional, "{name}: the copy's C descriptor is optional");
            assert!(bundle.ptx.contains("cp.async.bulk.tensor.2d.global.shared::cta"), "{name}: TMA store");
        }
        if let Some(variant) = variants.iter().find(|v| v.name.ends_with("__tma")) {
            // The kernel's block, or one warp more: the producer warp.
            let [threads, ..] = variant.block;
            let [kernel_threads, ..] = bundle.kernels[0].block;
            assert!(
                threads == kernel_threads || threads == kernel_threads + 32,
                "{name}: the kernel's block ({kernel_threads}) or a producer warp more, not {threads}"
            );
            if threads == kernel_threads + 32 {
                assert!(bundle.ptx.contains("bar.sync \t1,"), "{name}: the consumers' named barrier");
            }
            assert!(!variant.tma.is_empty(), "{name}: descriptors");
            for descriptor in &variant.tma {
                let inner = *descriptor.box_shape.last().unwrap() as usize;
                let bytes = match &bundle.kernels[0].signature.params[descriptor.arg] {
                    tile_runtime::tile_abi::Param::Memref { dtype, .. } => dtype.size(),
                    other => panic!("{name}: a descriptor of {other:?}"),
                };
                // One block of swizzled rows a box: the row is the swizzle.
                assert_eq!(inner * bytes, descriptor.swizzle as usize, "{name}: {descriptor:?}");
            }
            // The output (each example's last array) goes out through the
            // TMA too, but for attention's (a loop of two mmas).
            let params = &bundle.kernels[0].signature.params;
            let output = params.iter().rposition(|p| matches!(p, tile_runtime::tile_abi::Param::Memref { .. }));
            let stored = variant.tma.iter().any(|d| Some(d.arg) == output);
            assert_eq!(stored, name != "attention", "{name}: a descriptor for the store");
            assert_eq!(
                bundle.ptx.contains("cp.async.bulk.tensor.2d.global.shared::cta"),
                stored,
                "{name}: the TMA store"
            );
            assert!(bundle.ptx.contains("mbarrier.try_wait.parity"), "{name}: slots waited for");
        }
        if !ptxas.exists() {
            println!("skipping ptxas for {name}: {} not found", ptxas.display());
            continue;
        }
        run_ptxas(&ptxas, &bundle.ptx, &name);
    }
}

/// The kernels of `tests/kernels/` that once failed on the GPU too: loops
/// carrying tiles in every shape (bufferization refused them), integer
/// division by a run-time divisor (guarded), bf16 arithmetic. Each module
/// compiles to PTX that ptxas accepts, every kernel in it.
#[test]
fn test_kernels_compile_to_ptx_that_ptxas_accepts() {
    let Some(ptxas) = ptxas() else { return };
    for (file, kernels) in [
        (
            "loops",
            &[
                "commuted_add",
                "subtract",
                "fresh",
                "swap",
                "pure_swap",
                "twice",
                "if_choice",
                "select_choice",
                "nested",
            ][..],
        ),
        ("divide", &["divide"][..]),
        ("bf16_elementwise", &["bf16_elementwise"][..]),
        ("small_mma", &["small_mma"][..]),
        ("padded_mma", &["padded_mma"][..]),
    ] {
        let context = context();
        let path = root().join("tests/kernels").join(format!("{file}.mlir"));
        let module = compile::parse_file(&context, &path).unwrap();
        let bundle = gpu::compile(&context, module, Some(kernels[0]), gpu::DEFAULT_CHIP)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut compiled: Vec<&str> = bundle.kernels.iter().map(|k| k.signature.name.as_str()).collect();
        compiled.sort();
        let mut expected = kernels.to_vec();
        expected.sort();
        assert_eq!(compiled, expected, "{file}");
        for kernel in kernels {
            assert!(bundle.ptx.contains(&format!(".entry {kernel}(")), "{file}: @{kernel} in the PTX");
        }
        if !ptxas.exists() {
            println!("skipping ptxas for {file}: {} not found", ptxas.display());
            continue;
        }
        run_ptxas(&ptxas, &bundle.ptx, file);
    }
}

/// ptxas serialises wgmma it cannot prove warpgroup-convergent, and says
/// so (warnings C7510 to C7520, "wgmma.mma_async instructions are
/// serialized"): a kernel that still computes the right thing at a fraction
/// of the speed. Every kind of main loop the knobs select must be free of it.
/// The tuners compile a space's configurations on several threads, a
/// context each (`tune::on_each_config`): every configuration's PTX must be
/// what compiling it alone gives, in the configurations' order.
#[test]
fn configurations_compile_in_parallel_as_one_at_a_time() {
    if gpu::find_toolkit().is_none() {
        println!("skipping: no CUDA toolkit with nvvm/libdevice (set CUDA_HOME or install nvidia-cuda-nvcc-cu12)");
        return;
    }
    let (name, file) = ("matmul_f16_f16", "examples/matmul_f16_f16.mlir");
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let context = context();
    let module = compile::parse(&context, &text, file).unwrap();
    let tunable = tile_lowering::tune::tunable(&module, name).unwrap().expect("a tuning space");
    // A spread of the space (tile sizes, stages, producer warps, persistent
    // blocks), more configurations than this machine has threads.
    let configs: Vec<_> = tunable.configs().into_iter().step_by(9).collect();
    assert!(configs.len() >= 8, "{} configurations", configs.len());
    let ptx = |context: &melior::Context, config: &tile_runtime::tune::Config| {
        let mut module = compile::parse(context, &text, file).map_err(|e| e.to_string())?;
        tile_lowering::tune::apply(context, &mut module, name, config).map_err(|e| e.to_string())?;
        gpu::compile(context, module, Some(name), gpu::DEFAULT_CHIP).map(|b| b.ptx).map_err(|e| e.to_string())
    };
    let parallel = tile_lowering::tune::on_each_config(&configs, ptx);
    assert_eq!(parallel.len(), configs.len());
    let mut distinct = std::collections::HashSet::new();
    for (config, got) in configs.iter().zip(&parallel) {
        let want = ptx(&context, config);
        assert!(want.is_ok(), "{config}: {want:?}");
        assert!(got == &want, "{config}: the PTX compiled in parallel differs from compiling it alone");
        distinct.insert(want.unwrap());
    }
    assert!(distinct.len() > 1, "the configurations compile to different kernels");
}

#[test]
fn tma_variants_are_not_serialised() {
    let Some(ptxas) = ptxas() else { return };
    if !ptxas.exists() {
        println!("skipping: {} not found", ptxas.display());
        return;
    }
    let configs = [
        "tile_m=128,tile_n=256,num_stages=4",
        "tile_m=128,tile_n=256,num_stages=3,persistent=1",
        // Rings shrunk to a share of the multiprocessor's memory.
        "tile_m=128,tile_n=128,occupancy=2,persistent=1",
        "tile_m=128,tile_n=256,num_stages=4,warp_specialize=1",
        "tile_m=128,tile_n=256,num_stages=4,warp_specialize=1,persistent=1",
        // Sliced clusters, B multicast by the producer warps.
        "tile_m=128,tile_n=256,num_stages=4,warp_specialize=1,persistent=1,num_ctas=2",
        "tile_m=256,tile_n=128,num_stages=4,warp_specialize=1,persistent=1,num_ctas=2",
        "tile_m=64,tile_n=64,num_stages=2,occupancy=2",
        "tile_m=64,tile_n=128,num_stages=8,warp_specialize=1",
        "tile_m=128,tile_n=128,split_k=2",
    ];
    for config in configs {
        let context = context();
        let path = root().join("examples/matmul_bf16_bf16.mlir");
        let mut module = compile::parse_file(&context, &path).unwrap();
        let parsed: tile_runtime::tune::Config = config.parse().unwrap();
        tile_lowering::tune::apply(&context, &mut module, "matmul_bf16_bf16", &parsed).unwrap();
        let bundle =
            gpu::compile(&context, module, None, gpu::DEFAULT_CHIP).unwrap_or_else(|e| panic!("{config}: {e}"));
        // The TMA variant, checked by the same ptxas run as the kernel.
        let variants: Vec<&str> = bundle.kernels[0].variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(variants.first().copied(), Some("matmul_bf16_bf16__tma"), "{config}: the TMA variant");
        let log = run_ptxas(&ptxas, &bundle.ptx, config);
        assert!(!log.contains("serialized"), "{config}: {log}");
        // ...nor ignore the persistent producer's `setmaxnreg` (C7508).
        assert!(!log.contains("C7508"), "{config}: {log}");
    }
}

/// `name` of examples/ (or a path with `DTYPE` for f16), compiled with
/// its general kernel deferred.
fn deferred_bundle(context: &melior::Context, path: &str) -> tile_runtime::Bundle {
    bundle_of(context, path, gpu::General::Deferred)
}

fn bundle_of(context: &melior::Context, path: &str, general: gpu::General) -> tile_runtime::Bundle {
    let text = std::fs::read_to_string(root().join(path)).unwrap().replace("DTYPE", "f16");
    let module = compile::parse(context, &text, path).unwrap();
    gpu::compile_with(context, module, None, gpu::DEFAULT_CHIP, general).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn deferred_bundles_hold_the_variants_alone() {
    let context = context();
    let bundle = deferred_bundle(&context, "examples/matmul.mlir");
    let info = &bundle.kernels[0];
    assert!(info.deferred, "matmul has a TMA variant, so its general kernel is deferred");
    assert_eq!((info.block, info.shared_memory), ([0; 3], 0));
    assert_eq!(info.variants.first().map(|v| v.name.as_str()), Some("matmul__tma"));
    assert!(bundle.ptx.contains(".entry matmul__tma("), "the variant's entry");
    assert!(!bundle.ptx.contains(".entry matmul("), "no general kernel");
    let json = tile_runtime::Bundle::from_json(&bundle.to_json()).unwrap();
    assert!(json.kernels[0].deferred, "the bundle's JSON keeps `deferred`");
    // A kernel without variants is compiled whole either way.
    let softmax = deferred_bundle(&context, "examples/softmax.mlir");
    assert!(!softmax.kernels[0].deferred && softmax.kernels[0].variants.is_empty());
    assert!(softmax.ptx.contains(".entry softmax("));
    assert!(
        !gpu::compile(
            &context,
            compile::parse_file(&context, &root().join("examples/matmul.mlir")).unwrap(),
            None,
            gpu::DEFAULT_CHIP
        )
        .unwrap()
        .kernels[0]
            .deferred
    );
    if let Some(ptxas) = ptxas().filter(|p| p.exists()) {
        run_ptxas(&ptxas, &bundle.ptx, "deferred matmul");
    }
    // The TMA variant requires its store descriptor; its `__thread_store`
    // copy, for outputs the TMA cannot describe, is compiled with the
    // general kernel, and the variant's PTX is the same either way.
    let store = |bundle: &tile_runtime::Bundle, name: &str| -> Option<Vec<bool>> {
        let variant = bundle.kernels[0].variants.iter().find(|v| v.name == name)?;
        Some(variant.tma.iter().filter(|d| d.arg == 2).map(|d| d.optional).collect())
    };
    let deferred = deferred_bundle(&context, "bench/gemm/abt.mlir");
    let whole = bundle_of(&context, "bench/gemm/abt.mlir", gpu::General::Compiled);
    assert_eq!(store(&deferred, "linear__tma"), Some(vec![false]), "the output's descriptor is required");
    assert_eq!(store(&deferred, "linear__tma__thread_store"), None, "deferred with the general kernel");
    assert_eq!(store(&whole, "linear__tma"), Some(vec![false]));
    assert_eq!(store(&whole, "linear__tma__thread_store"), Some(vec![true]), "the copy's is optional");
    let names: Vec<&str> = whole.kernels[0].variants.iter().map(|v| v.name.as_str()).collect();
    let at = |name: &str| names.iter().position(|n| *n == name);
    assert!(at("linear__tma") < at("linear__tma__thread_store"), "the copy comes after: {names:?}");
    let entry = |ptx: &str, name: &str| -> String {
        let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no .entry {name}"));
        let end = ptx[start..].find("\n.visible .entry ").map_or(ptx.len(), |e| start + e);
        ptx[start..end].lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(entry(&deferred.ptx, "linear__tma"), entry(&whole.ptx, "linear__tma"), "the same PTX");
    // A 64x128 program's 128x128 instance, kept as its last variant for
    // rows the TMA cannot describe (its threads' copies), is compiled
    // with the general kernel too.
    let kept = |bundle: &tile_runtime::Bundle| {
        bundle.kernels[0].variants.iter().any(|v| v.name == "gemm_64x128x32__wide" && v.tma.is_empty())
    };
    assert!(!kept(&deferred_bundle(&context, "bench/gemm/small_k.mlir")), "deferred with the general kernel");
    assert!(kept(&bundle_of(&context, "bench/gemm/small_k.mlir", gpu::General::Compiled)), "in the whole bundle");
}

#[test]
fn deferred_bundles_run_their_variants_and_refuse_the_rest() {
    let cuda = match Cuda::new() {
        Ok(cuda) => cuda,
        Err(error) => {
            println!("skipping: {error}");
            return;
        }
    };
    let context = context();
    let mut rng = Rng::new(38);
    let matmul = deferred_bundle(&context, "examples/matmul.mlir");
    fn launch(
        cuda: &Cuda,
        bundle: &tile_runtime::Bundle,
        name: &str,
        [a, b, c]: [&mut tile_runtime::Array; 3],
        m: usize,
        n: usize,
    ) -> tile_runtime::Result<tile_runtime::cuda::Launched> {
        let grid = Grid::new([(m.div_ceil(128) * n.div_ceil(128)) as u64, 1, 1]).unwrap();
        cuda.launch_report(bundle, name, &mut [Arg::Array(a), Arg::Array(b), Arg::Array(c)], grid, 1)
    }
    // Rows of 16-byte multiples: the TMA variant runs.
    let (m, n, k) = (264, 136, 200);
    let mut a = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
    let mut b = r::random_float(&mut rng, DType::F16, &[k, n], 1.0);
    let mut c = poisoned(DType::F32, &[m, n]);
    let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
    let launched = launch(&cuda, &matmul, "matmul", [&mut a, &mut b, &mut c], m, n).unwrap();
    assert_eq!(launched.entry, "matmul__tma");
    assert_close("deferred matmul", &values(&c), &want, |i| 1e-5 * magnitude[i] + 1e-6);
    // B's rows not 16-byte aligned: no variant takes them, a typed error
    // naming why, and nothing launched (the output still poisoned).
    let (m, n, k) = (130, 67, 72);
    let mut a = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
    let mut b = r::random_float(&mut rng, DType::F16, &[k, n], 1.0);
    let mut c = poisoned(DType::F32, &[m, n]);
    match launch(&cuda, &matmul, "matmul", [&mut a, &mut b, &mut c], m, n) {
        Err(tile_runtime::Error::Deferred { kernel, passed_over }) => {
            assert_eq!(kernel, "matmul");
            assert!(passed_over.iter().any(|why| why.contains("@matmul__tma")), "{passed_over:?}");
        }
        other => panic!("expected Error::Deferred, got {:?}", other.map(|l| l.entry)),
    }
    assert!(values(&c).iter().all(|v| v.is_nan()), "nothing ran");

    // X W^T with the output's rows unaligned (N odd) and the operands'
    // aligned: the TMA variant requires its store descriptor, so the
    // deferred launch is refused; compiled whole, the `__thread_store`
    // copy runs without it, and its threads store the tile.
    let linear = deferred_bundle(&context, "bench/gemm/abt.mlir");
    let (m, n, k) = (300, 263, 136);
    let mut x = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
    let mut w = r::random_float(&mut rng, DType::F16, &[n, k], 1.0);
    let mut y = poisoned(DType::F16, &[m, n]);
    let wv = values(&w);
    let wt: Vec<f64> = (0..k * n).map(|i| wv[(i % n) * k + i / n]).collect();
    let (want, magnitude) = r::matmul(&values(&x), &wt, m, n, k);
    match launch(&cuda, &linear, "linear", [&mut x, &mut w, &mut y], m, n) {
        Err(tile_runtime::Error::Deferred { passed_over, .. }) => {
            assert!(passed_over.iter().any(|why| why.contains("@linear__tma")), "{passed_over:?}");
        }
        other => panic!("expected Error::Deferred, got {:?}", other.map(|l| l.entry)),
    }
    assert!(values(&y).iter().all(|v| v.is_nan()), "nothing ran");
    let linear = bundle_of(&context, "bench/gemm/abt.mlir", gpu::General::Compiled);
    let launched = launch(&cuda, &linear, "linear", [&mut x, &mut w, &mut y], m, n).unwrap();
    assert_eq!(launched.entry, "linear__tma__thread_store", "{:?}", launched.passed_over);
    assert_close("linear, output unaligned", &values(&y), &want, |i| 5e-3 * magnitude[i] + 1e-3 * want[i].abs() + 1e-6);
}

#[test]
fn softmax_and_matmul_on_the_gpu() {
    let cuda = match Cuda::new() {
        Ok(cuda) => cuda,
        Err(error) => {
            println!("skipping: {error}");
            return;
        }
    };
    if gpu::find_toolkit().is_none() {
        println!("skipping: no CUDA toolkit with libdevice");
        return;
    }
    let mut rng = Rng::new(21);
    let rows = 1001;
    let mut x = r::random_float(&mut rng, DType::F32, &[rows, 1024], 4.0);
    let mut y = poisoned(DType::F32, &[rows, 1024]);
    let want = r::softmax(&values(&x), 1024);
    let grid = Grid::new([rows.div_ceil(4) as u64, 1, 1]).unwrap();
    cuda.launch(&bundle("softmax"), "softmax", &mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid, 1).unwrap();
    assert_close("gpu softmax", &values(&y), &want, |i| 1e-6 + 1e-5 * want[i].abs());

    let (m, n, k) = (300, 200, 100);
    let mut a = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
    let mut b = r::random_float(&mut rng, DType::F16, &[k, n], 1.0);
    let mut c = poisoned(DType::F32, &[m, n]);
    let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
    let grid = Grid::new([(m.div_ceil(128) * n.div_ceil(128)) as u64, 1, 1]).unwrap();
    cuda.launch(
        &bundle("matmul"),
        "matmul",
        &mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)],
        grid,
        1,
    )
    .unwrap();
    assert_close("gpu matmul", &values(&c), &want, |i| 1e-5 * magnitude[i] + 1e-6);

    // Rows of 16-byte multiples: the TMA variant, ragged in every
    // dim (K = 200 is not a multiple of 64: the TMA's zero fill).
    let (m, n, k) = (264, 136, 200);
    for dtype in [DType::F16, DType::BF16] {
        let mut a = r::random_float(&mut rng, dtype, &[m, k], 1.0);
        let mut b = r::random_float(&mut rng, dtype, &[k, n], 1.0);
        let mut c = poisoned(DType::F32, &[m, n]);
        let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
        let grid = Grid::new([(m.div_ceil(128) * n.div_ceil(128)) as u64, 1, 1]).unwrap();
        let kernel = if dtype == DType::F16 { "matmul" } else { "matmul_bf16" };
        let launched = cuda
            .launch_report(
                &bundle(kernel),
                kernel,
                &mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)],
                grid,
                1,
            )
            .unwrap();
        assert_eq!(launched.entry, format!("{kernel}__tma"), "{:?}", launched.passed_over);
        assert_close(&format!("gpu {kernel} tma"), &values(&c), &want, |i| 1e-5 * magnitude[i] + 1e-6);
    }
}

#[test]
fn no_gpu_is_a_typed_error() {
    // Either a GPU is there, or creating the runtime says why; never a panic.
    match Cuda::new() {
        Ok(cuda) => println!("GPU present: {}", cuda.name()),
        Err(error) => {
            assert!(matches!(error, tile_runtime::Error::NoDriver | tile_runtime::Error::NoGpu(_)), "{error}")
        }
    }
}
