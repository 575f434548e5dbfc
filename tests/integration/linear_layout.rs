//! `LinearLayout`'s wgmma layouts against the PTX ISA's fragment figures
//! (pure Rust: no MLIR context).

use tile_lowering::layout::linear::{LinearLayout, unflatten};

/// The (row, column) of element `j` of 32-bit register `i` of lane `l`
/// in warp 0 of wgmma's A fragments, as the PTX ISA draws them for one
/// K step: row `l / 4` (8 below for odd `i`), columns from
/// `width (l % 4)` (`4 width` on for `i >= 2`).
fn ptx_fragment(l: i64, i: i64, j: i64, width: i64) -> (i64, i64) {
    (l / 4 + 8 * (i % 2), width * (l % 4) + 4 * width * (i / 2) + j)
}

#[test]
fn wgmma_operand_matches_the_ptx_fragments() {
    for width in [1, 2, 4] {
        let k = 8 * width;
        let layout = LinearLayout::wgmma_operand(&[64, k], 4, width).unwrap();
        assert!(layout.surjective());
        for l in 0..32 {
            for i in 0..4 {
                for j in 0..width {
                    let r = (i * width + j) as u64;
                    let element = unflatten(&layout.shape, layout.apply(r, l as u64, 0));
                    let (row, col) = ptx_fragment(l, i, j, width);
                    assert_eq!(element, vec![row, col], "width {width}, lane {l}, register {i}, element {j}");
                }
            }
        }
        // Warp w holds rows 16 w on; the next K step follows the first.
        assert_eq!(unflatten(&layout.shape, layout.apply(0, 0, 3)), vec![48, 0]);
    }
    let steps = LinearLayout::wgmma_operand(&[64, 32], 4, 1).unwrap();
    assert_eq!(unflatten(&steps.shape, steps.apply(4, 0, 0)), vec![0, 8]);
}

#[test]
fn a_16_bit_operand_is_the_accumulator_layout() {
    for (shape, warps) in [([64, 16], 4), ([128, 64], 8), ([256, 32], 8)] {
        assert_eq!(
            LinearLayout::wgmma_operand(&shape, warps, 2),
            LinearLayout::wgmma(&shape, &[warps, 1], shape[1]),
            "{shape:?}"
        );
    }
}

#[test]
fn wgmma_operand_refuses_what_wgmma_cannot_read() {
    assert!(LinearLayout::wgmma_operand(&[64, 4], 4, 1).is_none());
    assert!(LinearLayout::wgmma_operand(&[64, 16], 4, 3).is_none());
    assert!(LinearLayout::wgmma_operand(&[64, 16], 2, 2).is_none());
}
