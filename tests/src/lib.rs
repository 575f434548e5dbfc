//! Example kernels built through the Rust builders (`tile_dialect::ops`), the
//! way a compiler that embeds tile would build them. The integration tests
//! check that they print exactly as the contract's text does.

pub mod kernels;
