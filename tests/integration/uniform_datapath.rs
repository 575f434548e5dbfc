//! The mma loops of the TMA variants run on ptxas's uniform datapath.
//!
//! A TMA variant's loop keeps its ring slot, its phase and its wgmma
//! descriptors in uniform registers (`UR`), which ptxas uses only for
//! values it can prove the same in every thread of a warp. Twice a change
//! elsewhere made a value of the loop look per thread to ptxas, which then
//! computed the descriptors per thread and moved each into a uniform
//! register (`R2UR`) before its `HGMMA`: the hand-written persistent GEMM
//! ran 17% slower (BENCHMARKS.md, session 40, run 7) and attention d64
//! 3-4.5% (session 41, runs 1 and 7). The PTX does not show it and no check
//! on values can, so this test assembles each program's TMA variants with
//! ptxas and counts the `R2UR`s among the mma loop's instructions: at most
//! one, the warpgroup's index that a variant without a producer warp
//! shuffles at its mma (`registers/mma.rs`), or, for the configurations
//! in [`KNOWN`], no more than they have now. The slow forms had several
//! (BENCHMARKS.md). It reads no timing; skipped (saying why)
//! without ptxas.
//!
//! The instructions are told apart by the low 12 bits of each 128-bit
//! instruction's first word, the opcode field of sm_90a's encoding; the
//! values below are those `cuobjdump --dump-sass` prints as `HGMMA`,
//! `R2UR` and `SYNCS` (the mbarrier wait before the loop's first wgmma)
//! on the device (`bench/experiments/s40-walk/sass_ops.py` builds the
//! whole table).

use crate::support::{context, root};
use std::process::Command;
use tile_lowering::{compile, gpu, tune};
use tile_runtime::Config;

const HGMMA: u16 = 0x9f0;
const R2UR: u16 = 0x2ca;
const SYNCS: [u16; 3] = [0x5b2, 0x5a7, 0x9a7];

/// The programs: each 16-bit GEMM and attention program of the suite, at
/// f16, the bf16 example as written and in the configuration the tuner
/// picks at 4096^3 (a persistent walk with a producer warpgroup), and the
/// f16 example in every configuration of its `tile.tune` space (the
/// program as written first). A 64-bit division anywhere in a kernel took
/// the persistent walks with a producer off the datapath
/// (`tile-narrow-divisions`, BENCHMARKS.md, session 42). (tf32 and f8
/// wgmmas have other opcodes than `HGMMA`, not in the table.)
fn programs() -> Vec<(String, Option<Config>)> {
    let mut programs = Vec::new();
    for dir in ["bench/gemm", "bench/attention"] {
        let mut files: Vec<_> = std::fs::read_dir(root().join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        let sixteen_bit = |f: &std::path::Path| !["f8", "tf32"].iter().any(|t| f.to_string_lossy().contains(t));
        for file in files.into_iter().filter(|f| f.extension().is_some_and(|e| e == "mlir") && sixteen_bit(f)) {
            programs.push((format!("{dir}/{}", file.file_name().unwrap().to_string_lossy()), None));
        }
    }
    let picked: Config = "tile_m=128,tile_n=256,num_stages=3,persistent=1,warp_specialize=1".parse().unwrap();
    programs.push(("examples/matmul_bf16_bf16.mlir".to_string(), None));
    programs.push(("examples/matmul_bf16_bf16.mlir".to_string(), Some(picked)));
    let example = "examples/matmul_f16_f16.mlir";
    let context = context();
    let text = std::fs::read_to_string(root().join(example)).unwrap();
    let module = compile::parse(&context, &text, example).unwrap();
    let space = tune::tunable(&module, "matmul_f16_f16").unwrap().expect("the f16 example has a tile.tune space");
    programs.extend(space.configs().into_iter().map(|config| (example.to_string(), Some(config))));
    programs
}

/// The configurations of the f16 example, without a producer warp, whose
/// loops keep more than one `R2UR`, and the most each may have: their
/// loops carry the shared address of every ring tile requested ahead, and
/// with those ptxas runs out of uniform registers
/// (`bench/experiments/s42-slots/NOTES.md`). A ratchet: a count below its
/// entry is printed, to be lowered here; one above fails.
const KNOWN: [(&str, usize); 5] = [
    ("tile_m=64,tile_n=64,num_stages=8,persistent=0,warp_specialize=0", 5),
    ("tile_m=64,tile_n=64,num_stages=8,persistent=1,warp_specialize=0", 4),
    ("tile_m=64,tile_n=128,num_stages=4,persistent=1,warp_specialize=0", 5),
    ("tile_m=128,tile_n=64,num_stages=4,persistent=1,warp_specialize=0", 4),
    ("tile_m=128,tile_n=64,num_stages=8,persistent=1,warp_specialize=0", 3),
];

/// Each function's instructions' opcodes, by the cubin's `.text.<name>`
/// sections (an ELF64 file).
fn opcodes(cubin: &[u8]) -> Vec<(String, Vec<u16>)> {
    let u16_at = |at: usize| u16::from_le_bytes(cubin[at..at + 2].try_into().unwrap());
    let u32_at = |at: usize| u32::from_le_bytes(cubin[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(cubin[at..at + 8].try_into().unwrap());
    let (headers, size, count, names) =
        (u64_at(0x28) as usize, u16_at(0x3a) as usize, u16_at(0x3c) as usize, u16_at(0x3e) as usize);
    let section = |i: usize| {
        let header = headers + i * size;
        (u32_at(header) as usize, u64_at(header + 0x18) as usize, u64_at(header + 0x20) as usize)
    };
    let (_, strings, _) = section(names);
    (0..count)
        .filter_map(|i| {
            let (name, offset, length) = section(i);
            let name = &cubin[strings + name..];
            let name = String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0)?]).into_owned();
            let function = name.strip_prefix(".text.")?.to_string();
            let ops = cubin[offset..offset + length].chunks_exact(16).map(|i| u16::from_le_bytes([i[0], i[1]]) & 0xfff);
            Some((function, ops.collect()))
        })
        .collect()
}

/// The `R2UR`s from the mbarrier wait before the first `HGMMA` to just
/// past the last (the mma loop, where a kernel has one), or `None`
/// without wgmmas there.
fn loop_moves(ops: &[u16]) -> Option<usize> {
    let first = ops.iter().position(|&op| op == HGMMA)?;
    let last = ops.iter().rposition(|&op| op == HGMMA)?;
    let start = ops[..first].iter().rposition(|op| SYNCS.contains(op))?;
    Some(ops[start..(last + 8).min(ops.len())].iter().filter(|&&op| op == R2UR).count())
}

#[test]
fn tma_variants_keep_their_mma_loops_uniform() {
    let Some(toolkit) = gpu::find_toolkit() else {
        println!("skipping: no CUDA toolkit with ptxas (set CUDA_HOME or install nvidia-cuda-nvcc-cu12)");
        return;
    };
    let mut checked = 0;
    let mut slow = Vec::new();
    for (path, config) in programs() {
        let what = format!("{path}{}", config.as_ref().map(|c| format!(" ({c})")).unwrap_or_default());
        let context = context();
        let text = std::fs::read_to_string(root().join(&path)).unwrap().replace("DTYPE", "f16");
        let mut module = compile::parse(&context, &text, &path).unwrap();
        if let Some(config) = &config {
            let name = text.split("func.func @").nth(1).and_then(|s| s.split('(').next()).unwrap();
            tune::apply(&context, &mut module, name, config).unwrap();
        }
        let bundle = gpu::compile_with(&context, module, None, gpu::DEFAULT_CHIP, gpu::General::Deferred)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let stem = std::env::temp_dir().join(format!("tile-uniform-{}-{checked}", std::process::id()));
        let (ptx, cubin) = (stem.with_extension("ptx"), stem.with_extension("cubin"));
        std::fs::write(&ptx, &bundle.ptx).unwrap();
        let out = Command::new(toolkit.join("bin/ptxas")).arg("-arch=sm_90a").arg(&ptx).arg("-o").arg(&cubin).output();
        let out = out.unwrap();
        assert!(out.status.success(), "ptxas rejected {what}: {}", String::from_utf8_lossy(&out.stderr));
        let binary = std::fs::read(&cubin).unwrap();
        let _ = (std::fs::remove_file(&ptx), std::fs::remove_file(&cubin));
        for (function, ops) in opcodes(&binary) {
            if !function.contains("__tma") {
                continue;
            }
            let moves = loop_moves(&ops).unwrap_or_else(|| panic!("{what}: @{function} has no mma loop after a wait"));
            println!("{what}: @{function}: {moves} R2UR in its mma loop");
            checked += 1;
            let known = KNOWN.iter().find(|(known, _)| config.as_ref() == Some(&known.parse().unwrap()));
            let allowed = known.map_or(1, |&(_, most)| most);
            if moves > allowed {
                slow.push(format!("{what}: @{function}: {moves} (at most {allowed})"));
            } else if known.is_some() && moves < allowed {
                println!("{what}: @{function}: {moves}, below its entry in KNOWN ({allowed}): lower it");
            }
        }
    }
    assert!(checked >= 90, "only {checked} TMA variants found");
    let version = Command::new(toolkit.join("bin/ptxas")).arg("--version").output();
    let version = version.map(|o| String::from_utf8_lossy(&o.stdout).lines().last().unwrap_or_default().to_string());
    assert!(
        slow.is_empty(),
        "mma loops off the uniform datapath (R2UR count; {}):\n{}",
        version.unwrap_or_default(),
        slow.join("\n")
    );
}
