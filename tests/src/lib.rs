//! Shared code of the integration tests: example kernels built through the
//! Rust builders (`tile_dialect::ops`), the way a compiler that embeds tile
//! would build them, and independent references for every example kernel.

pub mod kernels;
pub mod reference;
pub mod suite;
pub mod suite_memory;
