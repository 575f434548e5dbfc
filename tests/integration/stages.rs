//! Insta snapshots of the IR after each stage of `tile-to-cpu` and
//! `tile-to-ptx`, for the contract's examples. A change in any lowering
//! shows up here as a diff.

use crate::support::{context, root};
use tile_lowering::{compile, cpu, gpu};

fn snapshot_stages(name: &str) {
    let context = context();
    let path = root().join("examples").join(format!("{name}.mlir"));
    let mut module = compile::parse_file(&context, &path).unwrap();
    for (stage, passes) in cpu::STAGES {
        compile::run_pipeline(&context, &mut module, &format!("builtin.module({passes})"))
            .unwrap_or_else(|e| panic!("{name}, stage {stage}: {e}"));
        // Printing omits locations, which name the checkout's path.
        insta::assert_snapshot!(format!("{name}.cpu.{stage}"), module.as_operation().to_string());
    }
}

#[test]
fn matmul_cpu_stages() {
    snapshot_stages("matmul");
}

#[test]
fn softmax_cpu_stages() {
    snapshot_stages("softmax");
}

/// Every `tile-to-ptx` stage but the last, whose PTX the ptxas test and the
/// lit tests check (and which needs a toolkit).
fn snapshot_gpu_stages(name: &str) {
    let context = context();
    let path = root().join("examples").join(format!("{name}.mlir"));
    let mut module = compile::parse_file(&context, &path).unwrap();
    for (stage, text) in gpu::STAGES.iter().filter(|(stage, _)| *stage != "ptx") {
        let passes = gpu::stage_text(text, gpu::DEFAULT_CHIP, "");
        compile::run_pipeline(&context, &mut module, &format!("builtin.module({passes})"))
            .unwrap_or_else(|e| panic!("{name}, stage {stage}: {e}"));
        insta::assert_snapshot!(format!("{name}.gpu.{stage}"), module.as_operation().to_string());
    }
}

#[test]
fn matmul_gpu_stages() {
    snapshot_gpu_stages("matmul");
}

#[test]
fn softmax_gpu_stages() {
    snapshot_gpu_stages("softmax");
}
