//! The GEMM family of the benchmark suite (`bench/gemm/`, see
//! `bench/README.md`): every program, at each element type it is
//! instantiated for, on the CPU target at ragged sizes (no dim a multiple
//! of a tile) against the plain-Rust references of `tile_tests::suite` with
//! poisoned outputs; and every instantiation compiled to PTX for sm_90a
//! that ptxas accepts.

use crate::support::{context, root};
use std::process::Command;
use tile_lowering::{cpu::CpuKernel, gpu};
use tile_runtime::{Arg, Array, DType, Grid};
use tile_tests::reference::{self as r, Rng, assert_close, poisoned, values};
use tile_tests::suite as s;

/// The ragged problem every program runs: 2 x 2 tiles of 128 x 128 (4 x 2
/// for small_k's 64 x 128), each ragged, and K = 100, which leaves a
/// partial last K step of 64 (and of 32).
const M: usize = 200;
const N: usize = 150;
const K: usize = 100;
/// The batch of `batched.mlir`.
const L: usize = 3;

/// The programs of `bench/gemm/` with their kernels and the IO types each
/// runs at (`bf16` by the file's `f16 -> DTYPE` instantiation).
const PROGRAMS: &[(&str, &str, &[DType])] = &[
    ("ab", "gemm_ab", &[DType::F16, DType::BF16]),
    ("abt", "linear", &[DType::F16, DType::BF16]),
    ("atb", "gemm_atb", &[DType::F16, DType::BF16]),
    ("bias_relu", "gemm_bias_relu", &[DType::F16, DType::BF16]),
    ("bias_gelu", "gemm_bias_gelu", &[DType::F16, DType::BF16]),
    ("batched", "gemm_batched", &[DType::F16, DType::BF16]),
    ("small_k", "gemm_64x128x32", &[DType::F16, DType::BF16]),
    ("persistent", "gemm_persistent", &[DType::F16, DType::BF16]),
    ("tf32", "gemm_tf32", &[DType::F32]),
    ("f8", "gemm_f8", &[DType::F8E4M3FN]),
    ("f8_abt", "gemm_f8_abt", &[DType::F8E4M3FN]),
];

/// Instantiations `tile-to-ptx` rejects today, with the start of its error
/// (see the comment at the top of each file). The PTX test checks that
/// they still fail this way, so that a fix is noticed and the entry removed.
const REJECTED_BY_PTX: &[(&str, &str)] = &[];

/// Programs the CPU target rejects today, with a part of its error (see
/// the comment at the top of each file). Their value checks are skipped
/// while they fail this way; once one compiles, its test fails until the
/// entry is removed, and then checks its values.
const REJECTED_BY_CPU: &[(&str, &str)] = &[];

/// The text of `bench/gemm/<file>.mlir` for IO type `dtype`, instantiated
/// as the suite's runner does: literal replacement of the `f16` the
/// file's `// instantiate: f16 -> DTYPE` line names.
fn program(file: &str, dtype: DType) -> String {
    let text = std::fs::read_to_string(root().join("bench/gemm").join(format!("{file}.mlir")))
        .unwrap_or_else(|e| panic!("bench/gemm/{file}.mlir: {e}"));
    let instantiable = text.lines().next().is_some_and(|l| l.trim() == "// instantiate: f16 -> DTYPE");
    match dtype {
        DType::F16 => assert!(instantiable, "{file}: written for f16"),
        DType::BF16 => {
            assert!(instantiable, "{file}: no f16 -> DTYPE instantiation");
            return text.replace("f16", dtype.mlir_name());
        }
        _ => assert!(!instantiable, "{file}: instantiable, yet run at {dtype:?} as written"),
    }
    text
}

/// The CPU kernel of an instantiation, or `None` (said) when it is one
/// [`REJECTED_BY_CPU`] names and fails as known.
fn cpu_kernel(file: &str, dtype: DType) -> Option<CpuKernel> {
    let context = context();
    let what = format!("bench/gemm/{file}.mlir at {}", dtype.mlir_name());
    let compiled = CpuKernel::compile_text(&context, &program(file, dtype), &format!("{file}.mlir"), None);
    match (compiled, REJECTED_BY_CPU.iter().find(|r| r.0 == file)) {
        (Ok(kernel), None) => Some(kernel),
        (Err(error), None) => panic!("{what}: {error}"),
        (Err(error), Some((_, expected))) => {
            assert!(error.to_string().contains(expected), "{what}: another error than known: {error}");
            println!("{what}: rejected, as known: {error}");
            None
        }
        (Ok(_), Some(_)) => panic!("{what} now compiles for the CPU: remove it from REJECTED_BY_CPU"),
    }
}

fn grid(x: usize, y: usize) -> Grid {
    Grid::new([x as u64, y as u64, 1]).expect("valid grid")
}

/// Random operands of `dtype`: uniform in [-1, 1) rounded to a float type,
/// or any finite f8 bit pattern.
fn operand(rng: &mut Rng, dtype: DType, shape: &[usize]) -> Array {
    match dtype {
        DType::F8E4M3FN | DType::F8E5M2 => r::random_f8(rng, dtype, shape),
        _ => r::random_float(rng, dtype, shape, 1.0),
    }
}

/// The output type of a GEMM on `input`: the IO type, bf16 for f8.
fn output(input: DType) -> DType {
    if input == DType::F8E4M3FN { DType::BF16 } else { input }
}

/// Checks `got` against `want`: the f32 accumulation's rounding (at most
/// `1e-5 sum |a||b|`, scaled by `slope`, the epilogue's largest derivative)
/// and one rounding to the output type, as `check_matmul` in cpu.rs.
fn check(what: &str, got: &Array, want: &[f64], magnitude: &[f64], slope: f64) {
    let out_ulp = match got.dtype() {
        DType::F16 => 1.0 / 1024.0,
        DType::BF16 => 1.0 / 128.0,
        _ => 0.0,
    };
    // 1e-5 absolute: the f32 epilogue (erf's approximation, the bias add).
    assert_close(what, &values(got), want, |i| slope * 1e-5 * magnitude[i] + out_ulp * want[i].abs() + 1e-5);
}

/// Runs `file` at every type it supports on `M x N x K`: A (M x K, or K x M
/// when `a_transposed`) and B (K x N, or N x K when `b_transposed`) are
/// random, C poisoned, on a grid of C's tiles of `tile_m x 128` (or
/// `blocks` blocks when given, for the persistent program).
fn check_2d(file: &str, a_transposed: bool, b_transposed: bool, tile_m: usize, blocks: &[usize]) {
    let dtypes = PROGRAMS.iter().find(|p| p.0 == file).expect("a suite program").2;
    for &dtype in dtypes {
        let Some(kernel) = cpu_kernel(file, dtype) else { continue };
        let mut rng = Rng::new((file.len() * 1000) as u64 + dtype as u64);
        let a = operand(&mut rng, dtype, if a_transposed { &[K, M] } else { &[M, K] });
        let b = operand(&mut rng, dtype, if b_transposed { &[N, K] } else { &[K, N] });
        let a_mk = if a_transposed { s::transpose(&values(&a), K, M) } else { values(&a) };
        let b_kn = if b_transposed { s::transpose(&values(&b), N, K) } else { values(&b) };
        let (want, magnitude) = r::matmul(&a_mk, &b_kn, M, N, K);
        let tiles = M.div_ceil(tile_m) * N.div_ceil(128);
        let grids = if blocks.is_empty() { vec![tiles] } else { blocks.to_vec() };
        for blocks in grids {
            let (mut a, mut b, mut c) = (a.clone(), b.clone(), poisoned(output(dtype), &[M, N]));
            kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(blocks, 1)).unwrap();
            let what = format!("{file} {} {M}x{N}x{K} on {blocks} blocks", dtype.mlir_name());
            check(&what, &c, &want, &magnitude, 1.0);
        }
    }
}

#[test]
fn gemm_ab() {
    check_2d("ab", false, false, 128, &[]);
}

/// `Y = X W^T` with W stored N x K, loaded as stored and permuted.
#[test]
fn gemm_abt_linear() {
    check_2d("abt", false, true, 128, &[]);
}

/// `C = A^T B` with A stored K x M, loaded as stored and permuted.
#[test]
fn gemm_atb() {
    check_2d("atb", true, false, 128, &[]);
}

#[test]
fn gemm_small_k() {
    check_2d("small_k", false, false, 64, &[]);
}

/// Fewer blocks than the 4 tiles (blocks 0 and 1 walk two each) and more
/// (blocks 4 to 6 have none and must write nothing).
#[test]
fn gemm_persistent() {
    check_2d("persistent", false, false, 128, &[3, 7]);
}

/// tf32 on the GPU, but full f32 on the CPU: the f32 accumulation's bound.
#[test]
fn gemm_tf32() {
    check_2d("tf32", false, false, 128, &[]);
}

/// f8E4M3FN operands (any finite pattern, up to 448), rounded to bf16 once.
#[test]
fn gemm_f8() {
    check_2d("f8", false, false, 128, &[]);
}

/// The same with B stored N x K (K-major, as wgmma reads 8-bit operands).
#[test]
fn gemm_f8_abt() {
    check_2d("f8_abt", false, true, 128, &[]);
}

/// `C = act(A B + bias)` for the bias programs; `slope` bounds `act'`.
fn check_bias(file: &str, act: fn(f64) -> f64, slope: f64) {
    for dtype in [DType::F16, DType::BF16] {
        let Some(kernel) = cpu_kernel(file, dtype) else { continue };
        let mut rng = Rng::new(file.len() as u64 * 7 + dtype as u64);
        let mut a = operand(&mut rng, dtype, &[M, K]);
        let mut b = operand(&mut rng, dtype, &[K, N]);
        let mut bias = operand(&mut rng, dtype, &[N]);
        let mut c = poisoned(dtype, &[M, N]);
        let (product, magnitude) = r::matmul(&values(&a), &values(&b), M, N, K);
        let want: Vec<f64> = s::add_bias(&product, &values(&bias)).into_iter().map(act).collect();
        let tiles = M.div_ceil(128) * N.div_ceil(128);
        let mut args = [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut bias), Arg::Array(&mut c)];
        kernel.launch(&mut args, grid(tiles, 1)).unwrap();
        check(&format!("{file} {} {M}x{N}x{K}", dtype.mlir_name()), &c, &want, &magnitude, slope);
    }
}

#[test]
fn gemm_bias_relu() {
    check_bias("bias_relu", s::relu, 1.0);
}

/// GELU's derivative peaks at about 1.13 (near x = 2.4).
#[test]
fn gemm_bias_gelu() {
    check_bias("bias_gelu", s::gelu, 1.2);
}

/// `L` matrices back to back; grid y walks the batch.
#[test]
fn gemm_batched() {
    for dtype in [DType::F16, DType::BF16] {
        let Some(kernel) = cpu_kernel("batched", dtype) else { continue };
        let mut rng = Rng::new(90 + dtype as u64);
        let mut a = operand(&mut rng, dtype, &[L, M, K]);
        let mut b = operand(&mut rng, dtype, &[L, K, N]);
        let mut c = poisoned(dtype, &[L, M, N]);
        let (want, magnitude) = s::batched_matmul(&values(&a), &values(&b), L, M, N, K);
        let tiles = M.div_ceil(128) * N.div_ceil(128);
        kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(tiles, L)).unwrap();
        check(&format!("batched {} {L}x{M}x{N}x{K}", dtype.mlir_name()), &c, &want, &magnitude, 1.0);
    }
}

/// `tile-widen-blocks`' narrow instances (`@k__narrow`, 64x64 tiles) run
/// as kernels of their own on the CPU: on one block per narrow tile of C,
/// as the runtime launches them, and a walk's (the persistent program's)
/// also on fewer and more blocks than its tiles, each computes C as the
/// reference does. This checks the instance's claim to do the program's
/// work, apart from the GPU's variants made of it.
#[test]
fn narrow_instances_compute_the_programs_tiles() {
    use tile_lowering::compile;
    for (file, kernel, a_transposed, b_transposed) in [
        ("ab", "gemm_ab", false, false),
        ("abt", "linear", false, true),
        ("atb", "gemm_atb", true, false),
        ("small_k", "gemm_64x128x32", false, false),
        ("persistent", "gemm_persistent", false, false),
    ] {
        let context = context();
        let mut module = compile::parse(&context, &program(file, DType::F16), &format!("{file}.mlir")).unwrap();
        compile::run_pipeline(&context, &mut module, "builtin.module(tile-widen-blocks)").unwrap();
        let name = format!("{kernel}__narrow");
        let narrow = CpuKernel::compile(&context, module, Some(&name)).unwrap_or_else(|e| panic!("@{name}: {e}"));
        let mut rng = Rng::new(77 + file.len() as u64);
        let a = operand(&mut rng, DType::F16, if a_transposed { &[K, M] } else { &[M, K] });
        let b = operand(&mut rng, DType::F16, if b_transposed { &[N, K] } else { &[K, N] });
        let a_mk = if a_transposed { s::transpose(&values(&a), K, M) } else { values(&a) };
        let b_kn = if b_transposed { s::transpose(&values(&b), N, K) } else { values(&b) };
        let (want, magnitude) = r::matmul(&a_mk, &b_kn, M, N, K);
        let tiles = M.div_ceil(64) * N.div_ceil(64);
        let grids = if file == "persistent" { vec![tiles, 5, tiles + 3] } else { vec![tiles] };
        for blocks in grids {
            let (mut a, mut b, mut c) = (a.clone(), b.clone(), poisoned(DType::F16, &[M, N]));
            narrow.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(blocks, 1)).unwrap();
            check(&format!("@{name} {M}x{N}x{K} on {blocks} blocks"), &c, &want, &magnitude, 1.0);
        }
    }
    // The bias epilogue (a bias tile at the block's column) and the batch
    // (block id y) likewise.
    let narrow = |file: &str, kernel: &str| {
        let context = context();
        let mut module = compile::parse(&context, &program(file, DType::F16), &format!("{file}.mlir")).unwrap();
        compile::run_pipeline(&context, &mut module, "builtin.module(tile-widen-blocks)").unwrap();
        CpuKernel::compile(&context, module, Some(&format!("{kernel}__narrow"))).unwrap()
    };
    let tiles = M.div_ceil(64) * N.div_ceil(64);
    let mut rng = Rng::new(78);
    let (a, b, bias) = (
        operand(&mut rng, DType::F16, &[M, K]),
        operand(&mut rng, DType::F16, &[K, N]),
        operand(&mut rng, DType::F16, &[N]),
    );
    let (product, magnitude) = r::matmul(&values(&a), &values(&b), M, N, K);
    let want: Vec<f64> = s::add_bias(&product, &values(&bias)).into_iter().map(s::relu).collect();
    let (mut a, mut b, mut bias, mut c) = (a, b, bias, poisoned(DType::F16, &[M, N]));
    let mut args = [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut bias), Arg::Array(&mut c)];
    narrow("bias_relu", "gemm_bias_relu").launch(&mut args, grid(tiles, 1)).unwrap();
    check(&format!("@gemm_bias_relu__narrow {M}x{N}x{K}"), &c, &want, &magnitude, 1.0);
    let mut a = operand(&mut rng, DType::F16, &[L, M, K]);
    let mut b = operand(&mut rng, DType::F16, &[L, K, N]);
    let mut c = poisoned(DType::F16, &[L, M, N]);
    let (want, magnitude) = s::batched_matmul(&values(&a), &values(&b), L, M, N, K);
    let mut args = [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)];
    narrow("batched", "gemm_batched").launch(&mut args, grid(tiles, L)).unwrap();
    check(&format!("@gemm_batched__narrow {L}x{M}x{N}x{K}"), &c, &want, &magnitude, 1.0);
}

/// `tile-widen-blocks`' wide instances (`@k__wide`, blocks of two 128x128
/// program tiles; `@k__wide__wide` of four 64x128 ones) run on the CPU on
/// one block per wide tile compute the program's C: the 16-bit programs'
/// and tf32's, whose instance also takes K steps of 32 where the program
/// takes 64. N of 150 and 300: one wide column, and two whose second is
/// half outside C.
#[test]
fn wide_instances_compute_the_programs_tiles() {
    use tile_lowering::compile;
    for (file, instance, dtype, b_transposed) in [
        ("ab", "gemm_ab__wide", DType::F16, false),
        ("abt", "linear__wide", DType::BF16, true),
        ("small_k", "gemm_64x128x32__wide__wide", DType::F16, false),
        ("tf32", "gemm_tf32__wide", DType::F32, false),
    ] {
        for n in [N, 2 * N] {
            let context = context();
            let mut module = compile::parse(&context, &program(file, dtype), &format!("{file}.mlir")).unwrap();
            compile::run_pipeline(&context, &mut module, "builtin.module(tile-widen-blocks)").unwrap();
            let wide =
                CpuKernel::compile(&context, module, Some(instance)).unwrap_or_else(|e| panic!("@{instance}: {e}"));
            let mut rng = Rng::new(91 + n as u64 + file.len() as u64);
            let a = operand(&mut rng, dtype, &[M, K]);
            let b_shape = if b_transposed { [n, K] } else { [K, n] };
            let b = operand(&mut rng, dtype, &b_shape);
            let b_kn = if b_transposed { s::transpose(&values(&b), n, K) } else { values(&b) };
            let (want, magnitude) = r::matmul(&values(&a), &b_kn, M, n, K);
            let (mut a, mut b, mut c) = (a, b, poisoned(dtype, &[M, n]));
            let blocks = M.div_ceil(128) * n.div_ceil(256);
            wide.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(blocks, 1)).unwrap();
            check(&format!("@{instance} {M}x{n}x{K} on {blocks} blocks"), &c, &want, &magnitude, 1.0);
        }
    }
}

/// `tile-group-blocks` relabels the blocks (or the persistent loop's
/// tiles) of `ab` and `persistent` to walk 3 tile rows at a time: on a
/// 5 x 4 grid of ragged tiles (a last group of 2 rows), with as many
/// blocks as tiles and more (the extra ones keep their ids and write
/// nothing), and the persistent loop on fewer and more blocks, every tile
/// of C is computed once, as the reference says.
#[test]
fn grouped_block_orders() {
    let (m, n, k) = (5 * 128 - 7, 4 * 128 - 1, K);
    for (file, grids) in [("ab", &[20, 23][..]), ("persistent", &[3, 7, 20, 26][..])] {
        let text = program(file, DType::F16)
            .replace("attributes {tile.kernel}", "attributes {tile.kernel, tile.hints = {group_m = 3}}");
        assert!(text.contains("group_m = 3"), "{file}: no hint inserted");
        let context = context();
        let kernel = CpuKernel::compile_text(&context, &text, &format!("{file}.mlir"), None).unwrap();
        let mut rng = Rng::new(31 + file.len() as u64);
        let a = operand(&mut rng, DType::F16, &[m, k]);
        let b = operand(&mut rng, DType::F16, &[k, n]);
        let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
        for &blocks in grids {
            let (mut a, mut b, mut c) = (a.clone(), b.clone(), poisoned(DType::F16, &[m, n]));
            kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(blocks, 1)).unwrap();
            check(&format!("{file} group_m = 3 {m}x{n}x{k} on {blocks} blocks"), &c, &want, &magnitude, 1.0);
        }
    }
}

/// ptxas's messages on `ptx` for sm_90a; it must accept it.
fn run_ptxas(ptxas: &std::path::Path, ptx: &str, what: &str) -> String {
    let path =
        std::env::temp_dir().join(format!("tile-suite-gemm-{}-{}.ptx", std::process::id(), what.replace(' ', "-")));
    std::fs::write(&path, ptx).unwrap();
    let out = Command::new(ptxas).args(["-arch=sm_90a", "-o", "/dev/null"]).arg(&path).output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let _ = std::fs::remove_file(&path);
    assert!(out.status.success(), "ptxas rejected {what}: {log}");
    log
}

/// Every instantiation through `tile-to-ptx` for sm_90a and ptxas, as the
/// suite's runner compiles it; skipped (saying why) without a toolkit.
#[test]
fn gemm_programs_compile_to_ptx_that_ptxas_accepts() {
    let Some(toolkit) = gpu::find_toolkit() else {
        println!("skipping: no CUDA toolkit with nvvm/libdevice (set CUDA_HOME or install nvidia-cuda-nvcc-cu12)");
        return;
    };
    let ptxas = toolkit.join("bin/ptxas");
    let mut wgmma = Vec::new();
    for &(file, kernel, dtypes) in PROGRAMS {
        for &dtype in dtypes {
            let what = format!("{file} {}", dtype.mlir_name());
            let context = context();
            let compiled =
                gpu::compile_text(&context, &program(file, dtype), &format!("{file}.mlir"), None, gpu::DEFAULT_CHIP);
            let rejected = REJECTED_BY_PTX.iter().find(|r| r.0 == file);
            let bundle = match (compiled, rejected) {
                (Ok(bundle), None) => bundle,
                (Err(error), None) => panic!("{what}: {error}"),
                (Err(error), Some((_, expected))) => {
                    assert!(error.to_string().contains(expected), "{what}: another error than known: {error}");
                    println!("{what}: rejected, as known: {error}");
                    continue;
                }
                (Ok(_), Some(_)) => panic!("{what} now compiles to PTX: remove it from REJECTED_BY_PTX"),
            };
            assert!(bundle.ptx.contains(&format!(".entry {kernel}(")), "{what}: @{kernel} in the PTX");
            // Every GEMM of the suite multiplies on wgmma.
            assert!(bundle.ptx.contains("wgmma.mma_async"), "{what}: no wgmma.mma_async in the PTX");
            wgmma.push(what.clone());
            // The 16-bit programs get variants with blocks of a quarter of a
            // program tile (half of a 64x128 one), tried first where too few
            // program tiles would leave SMs idle, and those that split their
            // block id row-major get blocks of two program tiles
            // (`tile-widen-blocks`); the persistent loop, a narrow one alone
            // (a walk); tf32 a wide one alone; the 8-bit programs neither.
            let variants = &bundle.kernels[0].variants;
            let retiled = !matches!(file, "tf32" | "f8" | "f8_abt");
            let widened = !matches!(file, "f8" | "f8_abt" | "persistent");
            let narrow_first = variants.first().is_some_and(|v| v.retiled.as_ref().is_some_and(|r| r.narrows()));
            assert_eq!(narrow_first, retiled, "{what}: narrow variant first");
            let first_wide = variants.iter().find(|v| v.retiled.as_ref().is_some_and(|r| !r.narrows()));
            assert_eq!(first_wide.is_some(), widened, "{what}: wide variants");
            let four = first_wide.is_some_and(|v| v.retiled.as_ref().is_some_and(|r| r.tile == [128, 256]));
            assert!(four || file != "small_k", "{what}: blocks of four 64x128 tiles first of the wide ones");
            // A 64x128 program's 128x128 instance is also its last variant,
            // the threads' copies for rows the TMA cannot take.
            let general_wide = variants.last().is_some_and(|v| v.name == format!("{kernel}__wide") && v.tma.is_empty());
            assert_eq!(general_wide, file == "small_k", "{what}: the 128x128 instance's own path last");
            for variant in variants {
                // `__widek` variants take wider K steps on the same tiles.
                let wide = variant.name.contains("__wide__") || variant.name.ends_with("__wide");
                let narrow = variant.name.contains("__narrow");
                assert_eq!(wide || narrow, variant.retiled.is_some(), "{what}: {}", variant.name);
                if let Some(retiled) = &variant.retiled {
                    // A 64x128 program: blocks of two tiles (128x128), and
                    // of four (128x256, `__wide__wide`, tried first).
                    let (program, tile) = match file {
                        "small_k" if narrow => ([64, 128], [64, 64]),
                        _ if narrow => ([128, 128], [64, 64]),
                        "small_k" if variant.name.contains("__wide__wide") => ([64, 128], [128, 256]),
                        "small_k" => ([64, 128], [128, 128]),
                        _ => ([128, 128], [128, 256]),
                    };
                    assert_eq!((retiled.program_tile, retiled.tile), (program, tile), "{what}: {}", variant.name);
                    assert_eq!(retiled.walk, file == "persistent", "{what}: {} walks its tiles", variant.name);
                    let output = bundle.kernels[0].signature.params.len() - 1;
                    assert_eq!(retiled.arg, output, "{what}: the output's tiles");
                    let rows = if file == "batched" { [1, 2] } else { [0, 1] };
                    assert_eq!(retiled.dims, rows, "{what}: {}", variant.name);
                }
            }
            if !ptxas.exists() {
                println!("skipping ptxas for {what}: {} not found", ptxas.display());
                continue;
            }
            run_ptxas(&ptxas, &bundle.ptx, &what);
        }
    }
    println!("on wgmma: {}", wgmma.join(", "));
}
