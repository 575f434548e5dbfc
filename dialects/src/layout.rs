//! The tile layouts: the register (and shared-memory) layouts that the GPU
//! path puts on tile tensors as their encoding, e.g.
//! `tensor<1x1024xf32, #tile.blocked<...>>`.
//!
//! [`Layout`] mirrors the ODS attributes of `td/Tile.td` (`#tile.blocked`,
//! `#tile.slice`, `#tile.linear`, `#tile.wgmma`, `#tile.wgmma_operand`,
//! `#tile.shared`); it converts to and from them through the C API of
//! `cpp/Layouts.cpp`, so building or reading a layout never goes through
//! text. The C++ verifier is the one judge of validity: its constructors
//! return null, without a diagnostic, for parameters it rejects.

use melior::{
    Context,
    ir::{Attribute, AttributeLike, Type, TypeLike},
};
use mlir_sys::{MlirAttribute, MlirContext};

unsafe extern "C" {
    fn tileLayoutAttrGetKind(attribute: MlirAttribute) -> i32;
    fn tileLayoutAttrGetRank(attribute: MlirAttribute) -> i64;
    fn tileBlockedAttrGet(
        context: MlirContext,
        num_size_per_thread: isize,
        size_per_thread: *const i64,
        num_threads_per_warp: isize,
        threads_per_warp: *const i64,
        num_warps_per_block: isize,
        warps_per_block: *const i64,
        num_order: isize,
        order: *const i64,
    ) -> MlirAttribute;
    fn tileBlockedAttrGetParams(
        attribute: MlirAttribute,
        size_per_thread: *mut i64,
        threads_per_warp: *mut i64,
        warps_per_block: *mut i64,
        order: *mut i64,
        capacity: isize,
    ) -> isize;
    fn tileSliceAttrGet(context: MlirContext, dim: i64, parent: MlirAttribute) -> MlirAttribute;
    fn tileSliceAttrGetParams(attribute: MlirAttribute, parent: *mut MlirAttribute) -> i64;
    fn tileLinearAttrGet(
        context: MlirContext,
        rank: i64,
        num_register: isize,
        register: *const i64,
        num_lane: isize,
        lane: *const i64,
        num_warp: isize,
        warp: *const i64,
    ) -> MlirAttribute;
    fn tileLinearAttrGetRank(attribute: MlirAttribute) -> i64;
    fn tileLinearAttrGetBases(attribute: MlirAttribute, which: i32, out: *mut i64, capacity: isize) -> isize;
    fn tileWgmmaAttrGet(
        context: MlirContext,
        num_warps_per_block: isize,
        warps_per_block: *const i64,
        instr_n: i64,
    ) -> MlirAttribute;
    fn tileWgmmaAttrGetParams(
        attribute: MlirAttribute,
        warps_per_block: *mut i64,
        capacity: isize,
        instr_n: *mut i64,
    ) -> isize;
    fn tileWgmmaOperandAttrGet(context: MlirContext, index: i64, parent: MlirAttribute, k_width: i64) -> MlirAttribute;
    fn tileWgmmaOperandAttrGetParams(attribute: MlirAttribute, parent: *mut MlirAttribute, k_width: *mut i64) -> i64;
    fn tileSharedAttrGet(
        context: MlirContext,
        swizzle_bytes: i64,
        element_bits: i64,
        transposed: bool,
    ) -> MlirAttribute;
    fn tileSharedAttrGetParams(
        attribute: MlirAttribute,
        swizzle_bytes: *mut i64,
        element_bits: *mut i64,
        transposed: *mut bool,
    );
}

/// What `tileLayoutAttrGetKind` returns (cpp/Layouts.cpp).
const BLOCKED: i32 = 1;
const SLICE: i32 = 2;
const LINEAR: i32 = 3;
const WGMMA: i32 = 4;
const WGMMA_OPERAND: i32 = 5;
const SHARED: i32 = 6;

/// The lists of a `#tile.linear`, as `tileLinearAttrGetBases` numbers them.
const REGISTER_BASES: i32 = 0;
const LANE_BASES: i32 = 1;
const WARP_BASES: i32 = 2;

/// A tile register (or shared) layout, as the ODS attributes hold it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Layout {
    /// `#tile.blocked`: Triton's blocked layout; one entry per dim in each
    /// list, `order[0]` the fastest-varying dim.
    Blocked { size_per_thread: Vec<i64>, threads_per_warp: Vec<i64>, warps_per_block: Vec<i64>, order: Vec<i64> },
    /// `#tile.slice`: `parent` with dim `dim` removed (a reduction's result).
    Slice { dim: i64, parent: Box<Layout> },
    /// `#tile.linear`: a linear layout over GF(2); basis `i` of each list is
    /// the tile index (one entry per dim) of register, lane or warp `2^i`.
    Linear { register: Vec<Vec<i64>>, lane: Vec<Vec<i64>>, warp: Vec<Vec<i64>> },
    /// `#tile.wgmma`: the Hopper wgmma accumulator layout.
    Wgmma { warps_per_block: Vec<i64>, instr_n: i64 },
    /// `#tile.wgmma_operand`: a wgmma operand held in registers.
    WgmmaOperand { index: i64, parent: Box<Layout>, k_width: i64 },
    /// `#tile.shared`: the swizzled shared-memory layout of TMA and wgmma.
    Shared { swizzle_bytes: i64, element_bits: i64, transposed: bool },
}

impl Layout {
    /// The attribute; None (never a crash) when the parameters do not verify
    /// (use the ODS `getChecked` with a diagnostic that is swallowed, or check in Rust first).
    pub fn to_attribute<'c>(&self, context: &'c Context) -> Option<Attribute<'c>> {
        let raw = self.to_raw(context.to_raw())?;
        // SAFETY: a non-null attribute that the C API made in `context`,
        // uniqued there and alive as long as it is ('c).
        Some(unsafe { Attribute::from_raw(raw) })
    }

    /// The layout an attribute holds, None if it is not one of these attributes.
    pub fn from_attribute(attribute: Attribute) -> Option<Layout> {
        Self::from_raw(attribute.to_raw())
    }

    /// The encoding of a tensor type, if it is one of these layouts.
    pub fn of_type(r#type: Type) -> Option<Layout> {
        let raw = r#type.to_raw();
        // SAFETY: `raw` is a live type; the encoding getter is only called on
        // a ranked tensor and returns a null attribute for none, which
        // `from_raw` maps to None.
        unsafe {
            if !mlir_sys::mlirTypeIsARankedTensor(raw) {
                return None;
            }
            Self::from_raw(mlir_sys::mlirRankedTensorTypeGetEncoding(raw))
        }
    }

    /// The attribute in `context`, or None where the C++ rules reject it.
    fn to_raw(&self, context: MlirContext) -> Option<MlirAttribute> {
        // The constructors check every rule and return null rather than
        // build an invalid attribute; they copy the integers they are given
        // into the context's uniqued storage.
        let raw = match self {
            // SAFETY: `context` is live; each pointer comes with its length
            // and outlives the call.
            Self::Blocked { size_per_thread, threads_per_warp, warps_per_block, order } => unsafe {
                tileBlockedAttrGet(
                    context,
                    size_per_thread.len() as isize,
                    size_per_thread.as_ptr(),
                    threads_per_warp.len() as isize,
                    threads_per_warp.as_ptr(),
                    warps_per_block.len() as isize,
                    warps_per_block.as_ptr(),
                    order.len() as isize,
                    order.as_ptr(),
                )
            },
            Self::Slice { dim, parent } => {
                let parent = parent.to_raw(context)?;
                // SAFETY: `context` is live and `parent` a live attribute of it.
                unsafe { tileSliceAttrGet(context, *dim, parent) }
            }
            Self::Linear { register, lane, warp } => {
                // Stored flattened, `rank` integers a basis: every basis must
                // have the same length, read off the first one (the C++ rules
                // then check the rank and the counts).
                let rank = register.iter().chain(lane).chain(warp).next().map_or(0, Vec::len);
                if register.iter().chain(lane).chain(warp).any(|basis| basis.len() != rank) {
                    return None;
                }
                let (register, lane, warp) = (register.concat(), lane.concat(), warp.concat());
                // SAFETY: `context` is live; each pointer comes with its
                // length and outlives the call.
                unsafe {
                    tileLinearAttrGet(
                        context,
                        rank as i64,
                        register.len() as isize,
                        register.as_ptr(),
                        lane.len() as isize,
                        lane.as_ptr(),
                        warp.len() as isize,
                        warp.as_ptr(),
                    )
                }
            }
            // SAFETY: `context` is live; the pointer comes with its length
            // and outlives the call.
            Self::Wgmma { warps_per_block, instr_n } => unsafe {
                tileWgmmaAttrGet(context, warps_per_block.len() as isize, warps_per_block.as_ptr(), *instr_n)
            },
            Self::WgmmaOperand { index, parent, k_width } => {
                let parent = parent.to_raw(context)?;
                // SAFETY: `context` is live and `parent` a live attribute of it.
                unsafe { tileWgmmaOperandAttrGet(context, *index, parent, *k_width) }
            }
            // SAFETY: `context` is live; the rest are plain values.
            Self::Shared { swizzle_bytes, element_bits, transposed } => unsafe {
                tileSharedAttrGet(context, *swizzle_bytes, *element_bits, *transposed)
            },
        };
        (!raw.ptr.is_null()).then_some(raw)
    }

    fn from_raw(raw: MlirAttribute) -> Option<Layout> {
        if raw.ptr.is_null() {
            return None;
        }
        // Each getter below is called only on the kind that
        // `tileLayoutAttrGetKind` reported, as the C API requires.
        // SAFETY: `raw` is a live, non-null attribute.
        let layout = match unsafe { tileLayoutAttrGetKind(raw) } {
            BLOCKED => {
                let null = std::ptr::null_mut();
                // SAFETY: a live blocked attribute; with capacity 0 nothing is
                // written, so null buffers are fine.
                let rank = unsafe { tileBlockedAttrGetParams(raw, null, null, null, null, 0) };
                let mut lists = [(); 4].map(|()| vec![0; rank.max(0) as usize]);
                let [size_per_thread, threads_per_warp, warps_per_block, order] = &mut lists;
                // SAFETY: a live blocked attribute; each buffer holds `rank`
                // integers, the capacity passed.
                unsafe {
                    tileBlockedAttrGetParams(
                        raw,
                        size_per_thread.as_mut_ptr(),
                        threads_per_warp.as_mut_ptr(),
                        warps_per_block.as_mut_ptr(),
                        order.as_mut_ptr(),
                        rank,
                    )
                };
                let [size_per_thread, threads_per_warp, warps_per_block, order] = lists;
                Self::Blocked { size_per_thread, threads_per_warp, warps_per_block, order }
            }
            SLICE => {
                let mut parent = MlirAttribute { ptr: std::ptr::null() };
                // SAFETY: a live slice attribute; `parent` is writable.
                let dim = unsafe { tileSliceAttrGetParams(raw, &mut parent) };
                Self::Slice { dim, parent: Box::new(Self::from_raw(parent)?) }
            }
            LINEAR => {
                // SAFETY: a live linear attribute.
                let rank = unsafe { tileLinearAttrGetRank(raw) }.max(1) as usize;
                let bases = |which| {
                    // SAFETY: a live linear attribute; with capacity 0
                    // nothing is written.
                    let size = unsafe { tileLinearAttrGetBases(raw, which, std::ptr::null_mut(), 0) };
                    let mut flat = vec![0; size.max(0) as usize];
                    // SAFETY: a live linear attribute; `flat` holds `size`
                    // integers, the capacity passed.
                    unsafe { tileLinearAttrGetBases(raw, which, flat.as_mut_ptr(), size) };
                    flat.chunks(rank).map(<[i64]>::to_vec).collect()
                };
                Self::Linear { register: bases(REGISTER_BASES), lane: bases(LANE_BASES), warp: bases(WARP_BASES) }
            }
            WGMMA => {
                let mut instr_n = 0;
                // SAFETY: a live wgmma attribute; with capacity 0 nothing is
                // written to the null buffer; `instr_n` is writable.
                let rank = unsafe { tileWgmmaAttrGetParams(raw, std::ptr::null_mut(), 0, &mut instr_n) };
                let mut warps_per_block = vec![0; rank.max(0) as usize];
                // SAFETY: as above, with a buffer of `rank` integers.
                unsafe { tileWgmmaAttrGetParams(raw, warps_per_block.as_mut_ptr(), rank, &mut instr_n) };
                Self::Wgmma { warps_per_block, instr_n }
            }
            WGMMA_OPERAND => {
                let mut parent = MlirAttribute { ptr: std::ptr::null() };
                let mut k_width = 0;
                // SAFETY: a live wgmma_operand attribute; the outputs are
                // writable.
                let index = unsafe { tileWgmmaOperandAttrGetParams(raw, &mut parent, &mut k_width) };
                Self::WgmmaOperand { index, parent: Box::new(Self::from_raw(parent)?), k_width }
            }
            SHARED => {
                let (mut swizzle_bytes, mut element_bits, mut transposed) = (0, 0, false);
                // SAFETY: a live shared attribute; the outputs are writable.
                unsafe { tileSharedAttrGetParams(raw, &mut swizzle_bytes, &mut element_bits, &mut transposed) };
                Self::Shared { swizzle_bytes, element_bits, transposed }
            }
            _ => return None,
        };
        Some(layout)
    }
}

/// `tensor<shape x element, layout>`; None if the layout does not verify.
pub fn tensor_type<'c>(shape: &[i64], element: Type<'c>, layout: &Layout) -> Option<Type<'c>> {
    // The `ContextRef` must outlive the `&Context` made from it (which
    // points into it): a temporary would leave a dangling reference.
    let context_ref = element.context();
    // SAFETY: the element type lives in this context, so the context is
    // alive; `context_ref` outlives every use of the reference.
    let context: &Context = unsafe { context_ref.to_ref() };
    let encoding = layout.to_raw(context.to_raw())?;
    // SAFETY: `encoding` is a live attribute.
    let rank = unsafe { tileLayoutAttrGetRank(encoding) };
    // A register layout places the elements of tiles of its own rank only
    // (the tensor type's encoding check, done here without a diagnostic).
    if rank >= 0 && rank != shape.len() as i64 {
        return None;
    }
    // The checked constructor reports any other invalid shape or element
    // type as a diagnostic, which is swallowed: the caller gets None.
    let (raw, _) = crate::diagnostics::capture(context, || {
        // SAFETY: `shape` outlives the call, which copies it; the element
        // type and encoding are live in `context`.
        unsafe {
            mlir_sys::mlirRankedTensorTypeGetChecked(
                mlir_sys::mlirLocationUnknownGet(context.to_raw()),
                shape.len() as isize,
                shape.as_ptr(),
                element.to_raw(),
                encoding,
            )
        }
    });
    // SAFETY: null or a type uniqued in the element type's context ('c).
    unsafe { Type::from_option_raw(raw) }
}
