//! Insta snapshots of the IR after each stage of `tile-to-cpu` and
//! `tile-to-ptx`, for the contract's examples. A change in any lowering
//! shows up here as a diff.

use crate::support::{context, root};
use tile_lowering::{compile, cpu, gpu};

/// Runs example `name` through `stages` (name and pass text), snapshotting
/// the IR after each as `{name}.{target}.{stage}`.
fn snapshot(name: &str, target: &str, stages: impl IntoIterator<Item = (&'static str, String)>) {
    let context = context();
    let path = root().join("examples").join(format!("{name}.mlir"));
    let mut module = compile::parse_file(&context, &path).unwrap();
    for (stage, passes) in stages {
        compile::run_pipeline(&context, &mut module, &format!("builtin.module({passes})"))
            .unwrap_or_else(|e| panic!("{name}, stage {stage}: {e}"));
        // Printing omits locations, which name the checkout's path.
        insta::assert_snapshot!(format!("{name}.{target}.{stage}"), module.as_operation().to_string());
    }
}

fn snapshot_stages(name: &str) {
    snapshot(name, "cpu", cpu::STAGES.iter().map(|(stage, passes)| (*stage, passes.to_string())));
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
    let stages = gpu::STAGES.iter().filter(|(stage, _)| *stage != "ptx");
    snapshot(name, "gpu", stages.map(|(stage, text)| (*stage, gpu::stage_text(text, gpu::DEFAULT_CHIP, ""))));
}

#[test]
fn matmul_gpu_stages() {
    snapshot_gpu_stages("matmul");
}

#[test]
fn softmax_gpu_stages() {
    snapshot_gpu_stages("softmax");
}

#[test]
fn layernorm_gpu_stages() {
    snapshot_gpu_stages("layernorm");
}
