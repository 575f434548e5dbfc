//! Integration tests. One binary, because each links all of MLIR statically.
//! MLIR's global registration is not thread-safe: every test takes its
//! context from `support::context`, which serialises registration.

mod bounds;
mod builders;
mod cpu;
mod docs;
mod gpu;
mod linear_layout;
mod stages;
mod stream_stores;
mod suite_gemm;
mod suite_memory;
mod support;
mod tile_bench;
mod tile_run;
mod uniform_datapath;
