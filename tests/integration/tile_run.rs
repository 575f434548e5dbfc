//! The `tile-run` tool: runs on `.npy` files, saves results, and turns every
//! bad input into one clear message and exit code 1.

use crate::support::{root, tool};
use std::{path::PathBuf, process::Command};
use tile_runtime::{Array, DType, npy};
use tile_tests::reference::{self as r, Rng, assert_close, values};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn tile_run(args: &[&str]) -> Run {
    let output = Command::new(tool("tile-run")).args(args).output().expect("run tile-run");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tile-run-test-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn save(dir: &std::path::Path, name: &str, array: &Array) -> String {
    let path = dir.join(name);
    npy::write(&path, array).unwrap();
    path.to_str().unwrap().to_string()
}

fn example(name: &str) -> String {
    root().join("examples").join(format!("{name}.mlir")).to_str().unwrap().to_string()
}

#[test]
fn runs_softmax_and_saves_the_result() {
    let dir = scratch("softmax");
    let mut rng = Rng::new(11);
    let x = r::random_float(&mut rng, DType::F32, &[9, 1024], 3.0);
    let xs = save(&dir, "x.npy", &x);
    let ys = save(&dir, "y.npy", &r::poisoned(DType::F32, &[9, 1024]));
    let out = dir.join("out.npy");
    let run = tile_run(&[
        &example("softmax"),
        "--grid",
        "3",
        "--target",
        "cpu",
        &xs,
        &ys,
        "--save",
        &format!("1={}", out.display()),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let y = npy::read(&out, DType::F32).unwrap();
    let want = r::softmax(&values(&x), 1024);
    assert_close("tile-run softmax", &values(&y), &want, |i| 1e-6 + 1e-5 * want[i].abs());
}

#[test]
fn bench_prints_the_median() {
    let dir = scratch("bench");
    let x = save(&dir, "x.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let y = save(&dir, "y.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let run = tile_run(&[&example("softmax"), "--grid", "1", "--bench", "3", &x, &y]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("median of 3 launches"), "{}", run.stdout);
}

#[test]
fn scalars_and_bf16_raw_bits() {
    let dir = scratch("scalars");
    let mut rng = Rng::new(12);
    let a = r::random_float(&mut rng, DType::BF16, &[130, 70], 1.0);
    let b = r::random_float(&mut rng, DType::BF16, &[70, 129], 1.0);
    // bf16 travels as '<u2': write the raw bits with that dtype.
    let bits = |x: &Array| Array::from_bytes(DType::BF16, x.shape(), x.bytes()).unwrap();
    let (ap, bp) = (save(&dir, "a.npy", &bits(&a)), save(&dir, "b.npy", &bits(&b)));
    assert!(std::fs::read(&ap).unwrap().windows(3).any(|w| w == b"<u2"), "bf16 is written as '<u2'");
    let cp = save(&dir, "c.npy", &r::poisoned(DType::F32, &[130, 129]));
    let out = dir.join("c_out.npy");
    let run =
        tile_run(&[&example("matmul_bf16"), "--grid", "4", &ap, &bp, &cp, "--save", &format!("2={}", out.display())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (want, magnitude) = r::matmul(&values(&a), &values(&b), 130, 129, 70);
    let c = npy::read(&out, DType::F32).unwrap();
    assert_close("tile-run matmul_bf16", &values(&c), &want, |i| 1e-5 * magnitude[i] + 1e-6);

    let x = save(&dir, "x.npy", &Array::zeros(DType::F32, &[10]));
    let y = save(&dir, "y.npy", &Array::zeros(DType::F16, &[10]));
    let z = save(&dir, "z.npy", &Array::zeros(DType::F16, &[10]));
    let run = tile_run(&[&example("fused_elementwise"), "--grid", "1", &x, &y, &z, "-0.5"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = tile_run(&[&example("fused_elementwise"), "--grid", "1", &x, &y, &z, "half"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("argument #3: 'half' is not a f32 number"), "{}", run.stderr);
}

/// Runs softmax with `x` in place of its input and returns the error text.
fn softmax_error(test: &str, x: &Array) -> String {
    let dir = scratch(test);
    let xs = save(&dir, "x.npy", x);
    let ys = save(&dir, "y.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let run = tile_run(&[&example("softmax"), "--grid", "1", &xs, &ys]);
    assert_eq!(run.code, 1, "{test}: expected exit code 1, stderr: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run.stderr
}

#[test]
fn wrong_npy_dtype_rank_or_shape_is_a_clear_error() {
    let err = softmax_error("dtype", &Array::zeros(DType::F16, &[4, 1024]));
    assert!(err.contains("dtype '<f2' cannot hold f32: expected '<f4'"), "{err}");
    let err = softmax_error("rank", &Array::zeros(DType::F32, &[4096]));
    assert!(err.contains("argument #0: the memref has rank 2, the array has shape [4096]"), "{err}");
    let err = softmax_error("shape", &Array::zeros(DType::F32, &[4, 1000]));
    assert!(err.contains("argument #0: dim 1 of the memref is 1024, the array's is 1000"), "{err}");
}

#[test]
fn bad_files_and_flags_are_clear_errors() {
    let dir = scratch("files");
    let y = save(&dir, "y.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let garbage = dir.join("garbage.npy");
    std::fs::write(&garbage, b"not numpy").unwrap();
    let truncated = dir.join("truncated.npy");
    let mut bytes = npy::encode(&Array::zeros(DType::F32, &[4, 1024]));
    bytes.truncate(bytes.len() - 4);
    std::fs::write(&truncated, bytes).unwrap();

    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![example("softmax"), "--grid".into(), "1".into(), garbage.display().to_string(), y.clone()],
            "not a .npy file",
        ),
        (
            vec![example("softmax"), "--grid".into(), "1".into(), truncated.display().to_string(), y.clone()],
            "needs 16384 bytes of data, the file has 16380",
        ),
        (
            vec![example("softmax"), "--grid".into(), "1".into(), "/nonexistent.npy".into(), y.clone()],
            "/nonexistent.npy",
        ),
        (
            vec![example("softmax"), "--grid".into(), "1".into(), y.clone()],
            "takes 2 arguments (memref<?x1024xf32>, memref<?x1024xf32>), got 1",
        ),
        (vec![example("softmax"), "--grid".into(), "2,x".into(), y.clone(), y.clone()], "is not a grid"),
        (vec![example("softmax"), "--grid".into(), "2147483648".into(), y.clone(), y.clone()], "x below 2^31"),
        (vec![example("softmax"), "--grid".into(), "1,65536".into(), y.clone(), y.clone()], "at most 65535"),
        (
            vec![
                example("softmax"),
                "--grid".into(),
                "1".into(),
                "--kernel".into(),
                "nope".into(),
                y.clone(),
                y.clone(),
            ],
            "no kernel @nope",
        ),
        (
            vec![
                example("softmax"),
                "--grid".into(),
                "1".into(),
                "--save".into(),
                "7=x.npy".into(),
                y.clone(),
                y.clone(),
            ],
            "parameter #7 of @softmax is not a memref",
        ),
        (vec!["/nonexistent.mlir".into(), "--grid".into(), "1".into()], "/nonexistent.mlir"),
        (
            vec![example("matmul"), "--emit-ptx".into(), "/dev/null".into(), "--chip".into(), "".into()],
            "'' is not an NVIDIA chip name",
        ),
        (
            vec![example("matmul"), "--emit-ptx".into(), "/dev/null".into(), "--chip".into(), "sm_90a}".into()],
            "is not an NVIDIA chip name",
        ),
        (vec![example("softmax"), y.clone()], "--grid"),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = tile_run(&args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{args:?}: expected '{expected}' in: {}", run.stderr);
    }
}

#[test]
fn invalid_program_is_a_located_diagnostic() {
    let dir = scratch("invalid");
    let program = dir.join("bad.mlir");
    std::fs::write(
        &program,
        "func.func @k(%A: memref<?xf32>) attributes {tile.kernel} {\n  %v = tile.partition_view %A : memref<?xf32> -> !tile.partition_view<100xf32>\n  return\n}\n",
    )
    .unwrap();
    let run = tile_run(&[program.to_str().unwrap(), "--grid", "1", "x.npy"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("bad.mlir:2:"), "{}", run.stderr);
    assert!(run.stderr.contains("power of two"), "{}", run.stderr);
}

#[test]
fn a_configuration_resizes_the_tiles_and_the_grid_follows() {
    // bf16 in and out, f32 accumulation: 64x256 tiles (tile_k 32) of a
    // 300x260x100 product, one block per tile of C (5 x 2), on the CPU.
    let dir = scratch("config");
    let (m, n, k) = (300, 260, 100);
    let mut rng = Rng::new(5);
    let a = r::random_float(&mut rng, DType::BF16, &[m, k], 1.0);
    let b = r::random_float(&mut rng, DType::BF16, &[k, n], 1.0);
    let (paths, out) = (
        [save(&dir, "a.npy", &a), save(&dir, "b.npy", &b), save(&dir, "c.npy", &r::poisoned(DType::BF16, &[m, n]))],
        dir.join("out.npy"),
    );
    let kernel = example("matmul_bf16_bf16");
    let args = |config: &str, grid: &str| -> Vec<String> {
        let mut args = vec![kernel.clone(), "--target".into(), "cpu".into(), "--grid".into(), grid.into()];
        if !config.is_empty() {
            args.extend(["--config".to_string(), config.to_string()]);
        }
        args.extend(paths.iter().cloned());
        args.extend(["--save".to_string(), format!("2={}", out.display())]);
        args
    };
    let run_with = |config: &str, grid: &str| {
        let args = args(config, grid);
        tile_run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let run = run_with("tile_m=64,tile_n=256,tile_k=32,num_stages=2", "tiles:2");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("grid [10, 1, 1]") && run.stderr.contains("tile_m=64"), "{}", run.stderr);
    let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
    let got = values(&npy::read(&out, DType::BF16).unwrap());
    assert_close("tile-run --config", &got, &want, |i| 1e-5 * magnitude[i] + want[i].abs() / 128.0);

    // Bad configurations and grids: one message, exit code 1.
    for (config, grid, expected) in [
        ("tile_q=64", "tiles:2", "unknown key 'tile_q'"),
        ("tile_n=96", "tiles:2", "'tile_n' = 96 is not a power of two"),
        ("tile_m", "tiles:2", "'tile_m' is not KEY=VALUE"),
        ("", "tiles:7", "parameter #7 of @matmul_bf16_bf16 is not a memref"),
        ("", "tiles:x", "'x' is not a parameter index"),
    ] {
        let run = run_with(config, grid);
        assert_eq!(run.code, 1, "{config} {grid}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{config} {grid}: {}", run.stderr);
    }
}

/// The contract's matmul on empty arrays (B 64x0, C 128x0): `--grid
/// tiles:2` is an empty grid, which runs no block, and `--grid 1` runs a
/// block that divides by C's tile count, zero; neither may end in a signal
/// (SIGFPE was exit code 136). With K = 0, C is all zeros.
#[test]
fn matmul_on_empty_arrays_runs_without_a_signal() {
    let dir = scratch("empty");
    for (m, n, k) in [(128, 0, 64), (0, 128, 64), (130, 70, 0)] {
        let a = save(&dir, "a.npy", &Array::zeros(DType::F16, &[m, k]));
        let b = save(&dir, "b.npy", &Array::zeros(DType::F16, &[k, n]));
        let c = save(&dir, "c.npy", &r::poisoned(DType::F32, &[m, n]));
        let out = dir.join("out.npy");
        for grid in ["tiles:2", "1", "5"] {
            let save_c = format!("2={}", out.display());
            let run = tile_run(&[&example("matmul"), "--target", "cpu", "--grid", grid, &a, &b, &c, "--save", &save_c]);
            assert_eq!(run.code, 0, "{m}x{n}x{k}, --grid {grid}: {}", run.stderr);
            if grid == "tiles:2" {
                let tiles = m.div_ceil(128) * n.div_ceil(128);
                assert!(run.stderr.contains(&format!("grid [{tiles}, 1, 1]")), "{}", run.stderr);
            }
            if grid != "1" {
                let c = npy::read(&out, DType::F32).unwrap();
                assert!(c.to_f32().unwrap().iter().all(|&v| v == 0.0), "{m}x{n}x{k}, --grid {grid}: C is zeros");
            }
        }
    }
}

/// A kernel dividing by a zero scalar argument: no signal, and the values
/// both targets define (x / 0 is all ones, x % 0 is x).
#[test]
fn division_by_a_zero_argument_runs_without_a_signal() {
    let dir = scratch("divide");
    let data = [7, -7, 0, i32::MIN, i32::MAX];
    let x = save(&dir, "x.npy", &Array::from_i32(&[5], &data).unwrap());
    let outputs: Vec<String> =
        (0..4).map(|i| save(&dir, &format!("o{i}.npy"), &r::poisoned(DType::I32, &[5]))).collect();
    let index = save(&dir, "i.npy", &r::poisoned(DType::I64, &[8]));
    let kernel = root().join("tests/kernels/divide.mlir").to_str().unwrap().to_string();
    let (q, rem) = (dir.join("q.npy"), dir.join("r.npy"));
    let (save_q, save_r) = (format!("1={}", q.display()), format!("2={}", rem.display()));
    let mut args = vec![kernel.as_str(), "--target", "cpu", "--grid", "1", &x];
    args.extend(outputs.iter().map(String::as_str));
    args.extend([index.as_str(), "0", "0", "--save", &save_q, "--save", &save_r]);
    let run = tile_run(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(npy::read(&q, DType::I32).unwrap().to_i32().unwrap(), [-1; 5]);
    assert_eq!(npy::read(&rem, DType::I32).unwrap().to_i32().unwrap(), data);
}
