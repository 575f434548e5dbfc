//! A compiled GPU module: PTX plus what a launch needs to know.

use crate::{Result, Signature};
use serde::{Deserialize, Serialize};

/// One kernel of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelInfo {
    /// Name and parameter ABI. On the GPU a memref parameter is passed as
    /// its descriptor's fields (allocated and aligned pointer, offset, sizes,
    /// strides), each a kernel parameter of 8 bytes; scalars as themselves.
    pub signature: Signature,
    /// Threads per block, as the compiler chose them.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_memory: u32,
    /// Blocks of the cluster each program block runs as (1: none): the
    /// runtime launches this many times the program's grid along `x`, in
    /// clusters of this many blocks.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cluster: u32,
    /// Specialised versions of the kernel, best first. A launch takes the
    /// first whose requirements the arguments meet (every TMA descriptor
    /// can be encoded), else the kernel itself, which takes any arguments
    /// (unless it is [`Self::deferred`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// The kernel itself is not in the PTX, only its variants: it was
    /// compiled with its general kernel deferred (the compiler's
    /// `General::Deferred`), for arguments a variant takes. Nothing of the
    /// kernel itself launches, so `block` and `shared_memory` are zero
    /// and `cluster` is 1; a launch that no variant takes is refused
    /// (the runtime's `Error::Deferred`), and the caller compiles the
    /// kernel whole.
    #[serde(default, skip_serializing_if = "is_false")]
    pub deferred: bool,
}

/// A specialised kernel: same arguments as the kernel it belongs to, then
/// one device pointer per TMA descriptor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// The PTX entry.
    pub name: String,
    pub block: [u32; 3],
    pub shared_memory: u32,
    /// Descriptors to encode, in the order of their kernel parameters.
    pub tma: Vec<TmaDescriptor>,
    /// Whether each block walks several of the program's tile blocks: it
    /// takes the program's (1-D) grid size as an extra last parameter and
    /// is launched with as many blocks as are resident at once.
    #[serde(default)]
    pub persistent: bool,
    /// Blocks of the cluster each program block runs as (1: none), as
    /// [`KernelInfo::cluster`]: the launch has that many times the
    /// program's grid along x (a persistent variant: as many clusters as
    /// are resident at once, at most one a program block).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cluster: u32,
    /// The variant's blocks each compute a larger tile of one array than
    /// the program's blocks do (`tile-widen-blocks`): it runs only where
    /// the launch's grid along x is the program's tile count of that
    /// array, on its own tiles' count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retiled: Option<Retiled>,
}

/// How a variant's grid follows from the program's (`Variant::retiled`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retiled {
    /// Index of the memref argument whose tiles the grid counts.
    pub arg: usize,
    /// Its dims the tiles are counted along (the block's row, then its
    /// column), outermost first.
    pub dims: [usize; 2],
    /// The program's tile along those dims.
    pub program_tile: [u32; 2],
    /// The variant's tile along those dims.
    pub tile: [u32; 2],
    /// The kernel walks the tiles itself (a hand-written persistent loop:
    /// each block takes every grid-size-th tile from its id, and the
    /// compiler checked that this is all it reads of the grid), so any grid
    /// computes the same: the runtime takes the variant for a 1-D grid of
    /// more blocks than program tiles, and launches it on one block a tile
    /// of its own.
    #[serde(default, skip_serializing_if = "is_false")]
    pub walk: bool,
}

impl Retiled {
    /// The tiles of an array of `shape` along `dims`, with tiles of
    /// `tile`: `None` where a dim is missing, a tile is empty, or the
    /// count overflows.
    pub fn count(&self, shape: &[usize], tile: [u32; 2]) -> Option<u64> {
        let mut count: u64 = 1;
        for (&dim, &size) in self.dims.iter().zip(&tile) {
            let extent = *shape.get(dim)? as u64;
            if size == 0 {
                return None;
            }
            count = count.checked_mul(extent.div_ceil(u64::from(size)))?;
        }
        Some(count)
    }

    /// Whether the variant's tiles are smaller than the program's (its
    /// blocks each compute part of a program tile).
    pub fn narrows(&self) -> bool {
        u64::from(self.tile[0]) * u64::from(self.tile[1])
            < u64::from(self.program_tile[0]) * u64::from(self.program_tile[1])
    }
}

fn one() -> u32 {
    1
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

/// A tiled TMA descriptor of one memref argument
/// (`cuTensorMapEncodeTiled`), zero-filled out of bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TmaDescriptor {
    /// Index of the memref argument it describes.
    pub arg: usize,
    /// Elements per dim of one transfer, outermost first like the memref.
    pub box_shape: Vec<u32>,
    /// Shared-memory swizzle width in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
    /// The variant runs without it: where the array cannot be described,
    /// the runtime passes a null pointer in its place and the kernel does
    /// the work the TMA would have done (a store's threads store the tile).
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// PTX for one chip and the kernels in it. Serialised as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    pub chip: String,
    pub ptx: String,
    pub kernels: Vec<KernelInfo>,
}

impl Bundle {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.signature.name == name)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Bundle> {
        Ok(serde_json::from_str(text)?)
    }
}
