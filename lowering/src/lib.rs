//! Passes and lowerings of the tile dialect, written in Rust with melior.
//!
//! Every pass implements [`TilePass`] and is registered by name into MLIR's
//! global pass registry by [`register_passes`], so that textual pipelines
//! (`tile-opt --pass-pipeline=...`, `PassManager::parse`) mix tile passes with
//! upstream ones.

pub mod abi;
pub mod build;
pub mod carry_in_place;
pub mod compile;
pub mod cpu;
pub mod defer_general;
pub mod defer_reductions;
pub mod distribute;
pub mod expand_copies;
pub mod extern_shared;
pub mod finish_widening;
pub mod float_minmax;
pub mod gpu;
pub mod group_blocks;
pub mod layout;
pub mod loops;
pub mod narrow_divisions;
pub mod pass;
pub mod persist_blocks;
pub mod pipeline_mma;
pub mod prefetch;
pub mod prefetch_fragments;
pub mod registers;
pub mod remarks;
pub mod reverse_blocks;
pub mod rewrite;
pub mod safe_division;
pub mod simplify;
pub mod sink_loads;
pub mod slice_clusters;
pub mod specialize;
pub mod split_k;
pub mod split_kernels;
pub mod split_last_wave;
pub mod split_thread_stores;
pub mod stream_k;
pub mod stream_stores;
pub mod to_gpu;
pub mod to_linalg;
pub mod to_memref;
pub mod to_scf;
pub mod tune;
pub mod use_tma;
pub mod vectorize_copies;
pub mod version_masks;
pub mod widen_accumulators;
pub mod widen_blocks;
pub mod widen_k;

pub use pass::{PassInfo, TilePass, create_pass, register_passes};

/// Registration functions of every tile pass, in `--help` order.
pub(crate) const PASSES: &[fn()] = &[
    pass::register::<widen_blocks::WidenBlocks>,
    pass::register::<specialize::Specialize>,
    pass::register::<simplify::Simplify>,
    pass::register::<group_blocks::GroupBlocks>,
    pass::register::<reverse_blocks::ReverseBlocks>,
    pass::register::<version_masks::VersionMasks>,
    pass::register::<widen_k::WidenK>,
    pass::register::<split_k::SplitK>,
    pass::register::<slice_clusters::SliceClusters>,
    pass::register::<widen_accumulators::WidenAccumulators>,
    pass::register::<pipeline_mma::PipelineMma>,
    pass::register::<defer_reductions::DeferReductions>,
    pass::register::<stream_stores::StreamStores>,
    pass::register::<prefetch::PrefetchLoads>,
    pass::register::<sink_loads::SinkLoads>,
    pass::register::<layout::assign::AssignLayouts>,
    pass::register::<layout::remove_conversions::RemoveLayoutConversions>,
    pass::register::<use_tma::UseTma>,
    pass::register::<persist_blocks::PersistBlocks>,
    pass::register::<stream_k::StreamK>,
    pass::register::<prefetch_fragments::PrefetchFragments>,
    pass::register::<finish_widening::FinishWidening>,
    pass::register::<split_last_wave::SplitLastWave>,
    pass::register::<split_thread_stores::SplitThreadStores>,
    pass::register::<defer_general::DeferGeneralKernels>,
    pass::register::<registers::ConvertTileToRegisters>,
    pass::register::<to_linalg::ConvertTileToLinalg>,
    pass::register::<to_memref::ConvertTileToMemref>,
    pass::register::<to_scf::ConvertTileToScf>,
    pass::register::<carry_in_place::CarryInPlace>,
    pass::register::<expand_copies::ExpandCopies>,
    pass::register::<float_minmax::LowerFloatMinMax>,
    pass::register::<safe_division::SafeDivision>,
    pass::register::<narrow_divisions::NarrowDivisions>,
    pass::register::<vectorize_copies::VectorizeCopies>,
    pass::register::<distribute::Distribute>,
    pass::register::<to_gpu::ConvertTileToGpu>,
    pass::register::<extern_shared::ExternDynamicShared>,
    pass::register::<split_kernels::SplitKernels>,
    pass::register::<split_kernels::JoinBinaries>,
    pass::register_pipeline::<cpu::TileToCpu>,
    pass::register_pipeline::<gpu::TileToPtx>,
];
