//! The `tile-run` tool: runs on `.npy` files, saves results, and turns every
//! bad input into one clear message and exit code 1.

use crate::support::{root, tool};
use std::{
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};
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

/// `tile-run` with these environment variables, killed (and the test
/// failed) if it has not exited after `limit`.
fn tile_run_within(args: &[&str], env: &[(&str, &str)], limit: Duration) -> Run {
    let mut child = Command::new(tool("tile-run"))
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tile-run");
    let start = Instant::now();
    while child.try_wait().expect("wait for tile-run").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().expect("tile-run's output");
            panic!("tile-run {args:?} ran past {limit:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("tile-run's output");
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
    // A warm-up before the timed launches (the GPU's; taken, and harmless,
    // wherever the kernel runs), and never without --bench.
    let run = tile_run(&[&example("softmax"), "--grid", "1", "--bench", "3", "--bench-warmup-ms", "1", &x, &y]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("median of 3 launches"), "{}", run.stdout);
    let run = tile_run(&[&example("softmax"), "--grid", "1", "--bench-warmup-ms", "1", &x, &y]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("--bench"), "{}", run.stderr);
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
    assert!(run.stderr.contains("argument #3: 'half' is not an f32 number"), "{}", run.stderr);
}

/// Scalars outside their type's range are errors naming the range, never
/// a silent infinity or a "not a number"; NaN and the infinities pass when
/// spelled so, and a boundary value passes.
#[test]
fn scalars_out_of_range_are_errors_naming_the_range() {
    let dir = scratch("scalar-range");
    let x = save(&dir, "x.npy", &Array::zeros(DType::F32, &[10]));
    let y = save(&dir, "y.npy", &Array::zeros(DType::F16, &[10]));
    let z = save(&dir, "z.npy", &Array::zeros(DType::F16, &[10]));
    let fused = example("fused_elementwise");
    let f32_range = "is out of range for f32 (finite values are within ±3.4028235e38)";
    for (alpha, expected) in [
        ("1e400", format!("argument #3: 1e400 {f32_range}")),
        ("-1e39", format!("argument #3: -1e39 {f32_range}")),
        ("3.5e38", format!("argument #3: 3.5e38 {f32_range}")),
        ("1.5.0", "argument #3: '1.5.0' is not an f32 number".to_string()),
    ] {
        let run = tile_run(&[&fused, "--target", "cpu", "--grid", "1", &x, &y, &z, "--", alpha]);
        assert_eq!(run.code, 1, "{alpha}: {}", run.stderr);
        assert!(run.stderr.contains(&expected), "{alpha}: expected '{expected}' in: {}", run.stderr);
        assert!(!run.stderr.contains("@fused_elementwise on"), "{alpha}: the kernel ran: {}", run.stderr);
    }
    for alpha in ["nan", "inf", "-inf", "Infinity", "3.4028235e38", "1e-50"] {
        let run = tile_run(&[&fused, "--target", "cpu", "--grid", "1", &x, &y, &z, "--", alpha]);
        assert_eq!(run.code, 0, "{alpha}: {}", run.stderr);
    }

    // divide.mlir: six arrays, then %d: i32 and %k: index.
    let arrays: Vec<String> = (0..5)
        .map(|i| save(&dir, &format!("i{i}.npy"), &Array::zeros(DType::I32, &[4])))
        .chain([save(&dir, "i64.npy", &Array::zeros(DType::I64, &[8]))])
        .collect();
    let divide = root().join("tests/kernels/divide.mlir").to_str().unwrap().to_string();
    let run_divide = |d: &str, k: &str| {
        let mut args = vec![divide.as_str(), "--target", "cpu", "--grid", "1"];
        args.extend(arrays.iter().map(String::as_str));
        args.extend(["--", d, k]);
        tile_run(&args)
    };
    for (d, k, expected) in [
        ("3000000000", "1", "argument #6: 3000000000 is out of range for i32 (-2147483648..=2147483647)"),
        ("-2147483649", "1", "argument #6: -2147483649 is out of range for i32 (-2147483648..=2147483647)"),
        ("1.5", "1", "argument #6: '1.5' is not an i32 number"),
        (
            "1",
            "99999999999999999999",
            "argument #7: 99999999999999999999 is out of range for index (-9223372036854775808..=9223372036854775807)",
        ),
        ("1", "x", "argument #7: 'x' is not an index number"),
    ] {
        let run = run_divide(d, k);
        assert_eq!(run.code, 1, "{d} {k}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{d} {k}: expected '{expected}' in: {}", run.stderr);
    }
    let run = run_divide("-2147483648", "9223372036854775807");
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// An OS error (here: a directory where a file belongs) is said once, not
/// once by the error that names the path and again as its source.
#[test]
fn os_errors_are_printed_once() {
    let dir = scratch("os-errors");
    let y = save(&dir, "y.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let directory = dir.to_str().unwrap().to_string();
    let save_to_directory = format!("1={directory}");
    for args in [
        vec![
            example("softmax"),
            "--target".into(),
            "cpu".into(),
            "--grid".into(),
            "1".into(),
            directory.clone(),
            y.clone(),
        ],
        vec![
            example("softmax"),
            "--target".into(),
            "cpu".into(),
            "--grid".into(),
            "1".into(),
            y.clone(),
            y.clone(),
            "--save".into(),
            save_to_directory.clone(),
        ],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = tile_run(&args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.matches("Is a directory (os error 21)").count(), 1, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: one line: {}", run.stderr);
    }
    // A missing file, likewise.
    let run = tile_run(&[&example("softmax"), "--target", "cpu", "--grid", "1", "/nonexistent.npy", &y]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr.matches("No such file or directory (os error 2)").count(), 1, "{}", run.stderr);
}

/// A --save path that cannot be written (a directory, a path in a missing
/// directory, a path under a file) is an error before anything is
/// compiled or run; checking leaves no file behind, and an existing file
/// is untouched when the run then fails.
#[test]
fn bad_save_paths_are_found_before_the_kernel_runs() {
    let dir = scratch("save-paths");
    let x = save(&dir, "x.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let y = save(&dir, "y.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let file = dir.join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    for (path, expected) in [
        (dir.clone(), "Is a directory (os error 21)"),
        (dir.join("missing").join("y.npy"), "No such file or directory (os error 2)"),
        (file.join("y.npy"), "Not a directory (os error 20)"),
    ] {
        let save_y = format!("1={}", path.display());
        let run = tile_run(&[&example("softmax"), "--target", "cpu", "--grid", "1", &x, &y, "--save", &save_y]);
        assert_eq!(run.code, 1, "{}: {}", path.display(), run.stderr);
        let message = format!("--save {save_y}: {expected}");
        assert!(run.stderr.contains(&message), "expected '{message}' in: {}", run.stderr);
        assert!(!run.stderr.contains("@softmax on"), "the kernel ran: {}", run.stderr);
    }
    // A writable new path is probed and removed when the run fails later;
    // an existing file keeps its contents.
    let fresh = dir.join("fresh.npy");
    let (save_fresh, save_file) = (format!("0={}", fresh.display()), format!("1={}", file.display()));
    let run = tile_run(&[
        &example("softmax"),
        "--target",
        "cpu",
        "--grid",
        "1",
        "/nonexistent.npy",
        &y,
        "--save",
        &save_fresh,
        "--save",
        &save_file,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!fresh.exists(), "the probe left {}", fresh.display());
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

/// A `.npy` header may repeat a key; numpy reads it as a Python dict
/// literal, where the last value wins, and so does tile-run.
#[test]
fn a_repeated_npy_header_key_reads_as_numpy_does() {
    let dir = scratch("npy-repeated-key");
    let mut rng = Rng::new(17);
    let x = r::random_float(&mut rng, DType::F32, &[4, 1024], 3.0);
    // The last 'shape' is the array's: it runs, on the right values.
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (4, 1024), }";
    let xs = dir.join("x.npy");
    std::fs::write(&xs, npy_with_header(header, x.bytes())).unwrap();
    let ys = save(&dir, "y.npy", &r::poisoned(DType::F32, &[4, 1024]));
    let out = dir.join("out.npy");
    let save_y = format!("1={}", out.display());
    let run = tile_run(&[
        &example("softmax"),
        "--target",
        "cpu",
        "--grid",
        "1",
        xs.to_str().unwrap(),
        &ys,
        "--save",
        &save_y,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let want = r::softmax(&values(&x), 1024);
    assert_close("softmax of a repeated-key .npy", &values(&npy::read(&out, DType::F32).unwrap()), &want, |i| {
        1e-6 + 1e-5 * want[i].abs()
    });
    // The first shape fits the data, the last does not: numpy refuses it.
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 1024), 'shape': (4, 1000), }";
    std::fs::write(&xs, npy_with_header(header, x.bytes())).unwrap();
    let run = tile_run(&[&example("softmax"), "--target", "cpu", "--grid", "1", xs.to_str().unwrap(), &ys]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("shape [4, 1000] of f32 needs 16000 bytes of data, the file has 16384"),
        "{}",
        run.stderr
    );
}

/// A version 1.0 `.npy` file with this header text (padded as numpy pads
/// it) and these data bytes.
fn npy_with_header(header: &str, data: &[u8]) -> Vec<u8> {
    let mut text = header.to_string();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(' ');
    }
    text.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((text.len() as u16).to_le_bytes());
    bytes.extend(text.as_bytes());
    bytes.extend(data);
    bytes
}

/// A diagnostic is never nested in another: a configuration whose tiles
/// do not fit is one located error, without a second `loc(unknown):
/// error:` inside it. The inner text comes from the dialect's checked
/// type constructor (`PartitionViewType::new`, dialects/src/types.rs),
/// which returns MLIR's diagnostic text, location and severity included,
/// and `tile-specialize` wraps it in its own located error.
#[test]
fn a_diagnostic_is_not_nested_in_another() {
    let dir = scratch("nested-diagnostic");
    let (m, n, k) = (256, 256, 256);
    let a = save(&dir, "a.npy", &Array::zeros(DType::F16, &[m, k]));
    let b = save(&dir, "b.npy", &Array::zeros(DType::F16, &[k, n]));
    let c = save(&dir, "c.npy", &Array::zeros(DType::F16, &[m, n]));
    let kernel = example("matmul_f16_f16");
    let config = ["--config", "tile_m=1024,tile_n=1024"];
    for target in [&["--target", "cpu", "--grid", "tiles:2", &a, &b, &c][..], &["--emit-ptx", "/dev/null"][..]] {
        let mut args = vec![kernel.as_str()];
        args.extend(config);
        args.extend(target);
        let run = tile_run(&args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("partition view tile takes 2097152 bytes"), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("loc(unknown)"), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.matches("error:").count(), 2, "tile-run's and the diagnostic's: {}", run.stderr);
    }
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

/// Whether tile-run can tune on a GPU here; else why the test skips.
fn gpu() -> bool {
    if let Err(error) = tile_runtime::cuda::Cuda::new() {
        println!("skipping: {error}");
        return false;
    }
    if tile_lowering::gpu::find_toolkit().is_none() {
        println!("skipping: no CUDA toolkit with nvvm/libdevice");
        return false;
    }
    true
}

/// Tuning on, its choices kept in memory only (never a cached choice).
const TUNE: [(&str, &str); 2] = [("TILE_TUNE", "1"), ("TILE_TUNE_CACHE", "off")];

/// `C = rounds * (A x B)` for one K tile, with `rounds = 2^(M tiles -
/// s)`: one round as written when `s` is C's count of 128-row tiles, and
/// `2^s` with the tuning space's 64-row tiles. A configuration that is
/// wrong (s = 1) or that runs for ever (s = 40), for the tuner to catch.
const ROUNDS: &str = "
func.func @rounds(%A: memref<?x64xbf16>, %B: memref<64x?xbf16>, %C: memref<?x?xf32>, %s: index)
    attributes {tile.kernel, tile.tune = {tile_m = array<i64: 64, 128>}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pa = tile.partition_view %A : memref<?x64xbf16> -> !tile.partition_view<128x64xbf16>
  %pb = tile.partition_view %B : memref<64x?xbf16> -> !tile.partition_view<64x128xbf16>
  %pc = tile.partition_view %C : memref<?x?xf32> -> !tile.partition_view<128x128xf32>
  %bid = tile.block_id x : index
  %nm = tile.num_tiles %pc dim 0 : !tile.partition_view<128x128xf32>
  %nn = tile.num_tiles %pc dim 1 : !tile.partition_view<128x128xf32>
  %bm = arith.divui %bid, %nn : index
  %bn = arith.remui %bid, %nn : index
  %e = arith.subi %nm, %s : index
  %rounds = arith.shli %c1, %e : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %r = %c0 to %rounds step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %pa[%bm, %c0] : !tile.partition_view<128x64xbf16> -> tensor<128x64xbf16>
    %b = tile.load %pb[%c0, %bn] : !tile.partition_view<64x128xbf16> -> tensor<64x128xbf16>
    %d = tile.mma %a, %b, %x : tensor<128x64xbf16>, tensor<64x128xbf16> into tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
  return
}
";

/// The files of a `rounds` run with `m` rows: the kernel, A, B, poisoned
/// C, and where C is saved; with A and B's values.
fn rounds_files(dir: &std::path::Path, m: usize) -> ([String; 4], PathBuf, Vec<f64>, Vec<f64>) {
    let kernel = dir.join("rounds.mlir");
    std::fs::write(&kernel, ROUNDS).unwrap();
    let mut rng = Rng::new(23);
    let a = r::random_float(&mut rng, DType::BF16, &[m, 64], 1.0);
    let b = r::random_float(&mut rng, DType::BF16, &[64, 128], 1.0);
    let files = [
        kernel.to_str().unwrap().to_string(),
        save(dir, "a.npy", &a),
        save(dir, "b.npy", &b),
        save(dir, "c.npy", &r::poisoned(DType::F32, &[m, 128])),
    ];
    (files, dir.join("out.npy"), values(&a), values(&b))
}

/// While tuning, a configuration whose outputs disagree with the kernel
/// as written is dropped with a line saying so, however fast; the kernel
/// as written runs, and its result is right.
#[test]
fn tuning_drops_configurations_whose_outputs_disagree() {
    if !gpu() {
        return;
    }
    let dir = scratch("tune-disagrees");
    let ([kernel, a, b, c], out, av, bv) = rounds_files(&dir, 128);
    let save_c = format!("2={}", out.display());
    let args = [kernel.as_str(), "--target", "cuda", "--grid", "tiles:2", &a, &b, &c, "1", "--save", &save_c];
    let run = tile_run_within(&args, &TUNE, Duration::from_secs(300));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("tuning @rounds: dropped tile_m=64: disagrees with the kernel as written:")
            && run.stderr.contains("of argument #2 differ"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("config tile_m=128"), "{}", run.stderr);
    let (want, magnitude) = r::matmul(&av, &bv, 128, 128, 64);
    let got = values(&npy::read(&out, DType::F32).unwrap());
    assert_close("rounds as written", &got, &want, |i| 1e-5 * magnitude[i] + 1e-6);
}

/// A configuration whose launch never ends stops the tuning with an error
/// naming it, within about a second of the kernel as written's time, and
/// the process exits (which ends the kernel: the GPU is usable after).
#[test]
fn a_hung_configuration_ends_tuning_with_an_error() {
    if !gpu() {
        return;
    }
    let dir = scratch("tune-hangs");
    let ([kernel, a, b, c], _, _, _) = rounds_files(&dir, 128 * 40);
    let args = [kernel.as_str(), "--target", "cuda", "--grid", "tiles:2", &a, &b, &c, "40"];
    let run = tile_run_within(&args, &TUNE, Duration::from_secs(300));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let expected = "tile-run: error: tuning @rounds: configuration tile_m=64 hung (a launch did not finish within";
    assert!(run.stderr.contains(expected) && run.stderr.contains("tuning stopped"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let x = save(&dir, "x.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let y = save(&dir, "y.npy", &Array::zeros(DType::F32, &[4, 1024]));
    let after = tile_run_within(
        &[&example("softmax"), "--target", "cuda", "--grid", "1", &x, &y],
        &[],
        Duration::from_secs(120),
    );
    assert_eq!(after.code, 0, "the GPU after a hang: {}", after.stderr);
}

/// While tuning, a configuration that cannot launch (the general kernel
/// of 128x256 tiles, taken where TMA cannot describe the arrays, asks for
/// 245760 bytes of shared memory) is dropped before anything is timed,
/// with a line saying why; the others run and the result is right.
#[test]
fn tuning_drops_configurations_that_cannot_launch() {
    if !gpu() {
        return;
    }
    let dir = scratch("tune-cannot-launch");
    let text = std::fs::read_to_string(example("matmul_bf16_bf16")).unwrap();
    let (start, end) = (text.find("tile.tune = {").unwrap(), text.find("}} {").unwrap());
    let kernel = dir.join("wide.mlir");
    std::fs::write(&kernel, format!("{}tile.tune = {{tile_n = array<i64: 128, 256>{}", &text[..start], &text[end..]))
        .unwrap();
    // Rows of 100 bf16 elements are 200 bytes, not a multiple of 16: no
    // TMA descriptor, so the general kernel runs.
    let (m, n, k) = (100, 100, 100);
    let mut rng = Rng::new(29);
    let a = r::random_float(&mut rng, DType::BF16, &[m, k], 1.0);
    let b = r::random_float(&mut rng, DType::BF16, &[k, n], 1.0);
    let (ap, bp) = (save(&dir, "a.npy", &a), save(&dir, "b.npy", &b));
    let cp = save(&dir, "c.npy", &r::poisoned(DType::BF16, &[m, n]));
    let out = dir.join("out.npy");
    let save_c = format!("2={}", out.display());
    let args = [kernel.to_str().unwrap(), "--target", "cuda", "--grid", "tiles:2", &ap, &bp, &cp, "--save", &save_c];
    let run = tile_run_within(&args, &TUNE, Duration::from_secs(300));
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The general kernel also has a byte or so of static shared memory.
    let expected = "tuning @matmul_bf16_bf16: dropped tile_n=256: cannot launch: @matmul_bf16_bf16: 245760 bytes of \
                    shared memory";
    assert!(
        run.stderr.contains(expected) && run.stderr.contains("do not fit (at most 232448 per block"),
        "{}",
        run.stderr
    );
    let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
    let got = values(&npy::read(&out, DType::BF16).unwrap());
    assert_close("the tuned matmul", &got, &want, |i| 1e-5 * magnitude[i] + want[i].abs() / 128.0);
}

#[test]
fn verbose_prints_the_compilers_remarks_at_the_op() {
    let wide = root().join("tests/kernels/wide_rows.mlir").to_str().unwrap().to_string();
    // The GPU pipeline (no GPU needed to compile): a streamed store says so
    // at the store (line 21 of the kernel) ...
    let run = tile_run(&["-v", &wide, "--emit-ptx", "/dev/null"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("wide_rows.mlir:21:3: remark: [Passed] StreamStore")
            && run.stderr.contains("this store goes out in 4 chunks"),
        "{}",
        run.stderr
    );
    // ... a kernel off the register path says why, at its tile.mma (32
    // rows, fewer than a wgmma's) ...
    let small = root().join("tests/kernels/small_mma.mlir").to_str().unwrap().to_string();
    let run = tile_run(&["--verbose", &small, "--emit-ptx", "/dev/null"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("small_mma.mlir:19:10: remark: [Missed] RegisterPath")
            && run.stderr.contains("its 32x32x32 shape is not a multiple of 64 rows"),
        "{}",
        run.stderr
    );
    // ... and an f16 accumulator carried in f32 says so at its mma.
    let run = tile_run(&["-v", &example("matmul_f16_f16"), "--emit-ptx", "/dev/null"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("matmul_f16_f16.mlir:33:10: remark: [Passed] WidenedAccumulator")
            && !run.stderr.contains("[Missed] RegisterPath"),
        "{}",
        run.stderr
    );
    // Without -v, nothing.
    let run = tile_run(&[&wide, "--emit-ptx", "/dev/null"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("remark"), "{}", run.stderr);
}

/// `TILE_LLVM_OPTIONS` that LLVM refuses, or that would print and end the
/// process, are one error naming the variable and exit 1 (on the CPU
/// target, which needs no GPU); a known option compiles as before.
#[test]
fn bad_llvm_options_are_errors_naming_the_variable() {
    let dir = scratch("llvm_options");
    let mut rng = Rng::new(5);
    let x = r::random_float(&mut rng, DType::F32, &[3, 1024], 3.0);
    let xs = save(&dir, "x.npy", &x);
    let ys = save(&dir, "y.npy", &r::poisoned(DType::F32, &[3, 1024]));
    let out = dir.join("out.npy");
    let save_to = format!("1={}", out.display());
    let program = example("softmax");
    let args = [program.as_str(), "--grid", "3", "--target", "cpu", xs.as_str(), ys.as_str(), "--save", &save_to];
    for (value, expected) in [
        ("-no-such-llvm-option", "Unknown command line argument '-no-such-llvm-option'"),
        ("-vectorize-slp=banana", "refused an option's value"),
        ("-help", "'-help' would print and end the process"),
        ("--version", "'--version' would print and end the process"),
        ("vectorize-slp", "'vectorize-slp' is not an option"),
    ] {
        let run = tile_run_within(&args, &[("TILE_LLVM_OPTIONS", value)], Duration::from_secs(120));
        assert_eq!(run.code, 1, "{value}: {}", run.stderr);
        assert!(run.stderr.contains("TILE_LLVM_OPTIONS="), "{value}: the variable named: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{value}: {}", run.stderr);
        assert!(!out.exists(), "{value}: nothing saved");
    }
    let run = tile_run_within(&args, &[("TILE_LLVM_OPTIONS", "-vectorize-slp=true")], Duration::from_secs(120));
    assert_eq!(run.code, 0, "a known option: {}", run.stderr);
    let y = npy::read(&out, DType::F32).unwrap();
    let want = r::softmax(&values(&x), 1024);
    assert_close("softmax with an LLVM option", &values(&y), &want, |i| 1e-6 + 1e-5 * want[i].abs());
}
