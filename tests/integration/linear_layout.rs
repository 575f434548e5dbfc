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

/// The columns (last index) thread (`l`, `w`) holds in `layout`.
fn columns(layout: &LinearLayout, l: u64, w: u64) -> std::collections::BTreeSet<i64> {
    (0..layout.registers() as u64).map(|r| *unflatten(&layout.shape, layout.apply(r, l, w)).last().unwrap()).collect()
}

#[test]
fn swapped_layouts_agree_and_tf32_fragment_loads_meet_each_bank_once() {
    use tile_lowering::registers::{mma::swapped_layouts_of, swizzle::Swizzled};
    for (bits, k) in [(32, 64), (8, 128)] {
        let (accumulator, fragments) = swapped_layouts_of(128, 128, k, 8, bits).unwrap();
        assert!(accumulator.surjective() && fragments.surjective() && accumulator.simple() && fragments.simple());
        // wgmma's row r of C^T is the column a thread multiplies B^T's row
        // r into: the accumulator and the fragments name the same columns.
        for w in 0..8 {
            for l in 0..32 {
                assert_eq!(columns(&accumulator, l, w), columns(&fragments, l, w), "{bits} bits, lane {l}, warp {w}");
            }
        }
        if bits != 32 {
            continue;
        }
        // B (k x 128 f32) N-major in the 128-byte swizzle, as loaded.
        let buffer = Swizzled { rows: k, row: 128, bytes: 4 };
        for w in 0..8 {
            for r in 0..fragments.registers() as u64 {
                let mut banks = std::collections::HashMap::new();
                for l in 0..32 {
                    let index = unflatten(&fragments.shape, fragments.apply(r, l, w));
                    let word = buffer.offset_of(index[0], index[1]) / 4;
                    let other = *banks.entry(word % 32).or_insert(word);
                    assert_eq!(other, word, "warp {w}, register {r}: two words in one bank");
                }
            }
        }
    }
}

#[test]
fn swap_bits_twice_is_the_layout() {
    let layout = LinearLayout::wgmma(&[64, 64], &[4, 1], 64).unwrap();
    let swapped = layout.swap_bits(2, 4);
    assert_ne!(swapped, layout);
    assert_eq!(swapped.swap_bits(2, 4), layout);
    assert_eq!(swapped.swap_bits(4, 2), layout);
}

#[test]
fn swizzled_offsets_are_a_linear_bijection() {
    use tile_lowering::registers::swizzle::Swizzled;
    // `Swizzled::read` relies on the offset being linear over GF(2) in the
    // element's row and column bits (it checks each thread, and refuses
    // otherwise): true for every swizzle a shared tile takes.
    for (rows, row, bytes, columns) in [(64, 128, 4, 128), (128, 128, 1, 128), (64, 64, 2, 32), (32, 32, 4, 8)] {
        let buffer = Swizzled { rows, row, bytes };
        let mut seen = std::collections::HashSet::new();
        for r in 0..rows {
            for c in 0..columns {
                let offset = buffer.offset_of(r, c);
                assert_eq!(offset % bytes, 0);
                assert!(offset < rows * columns * bytes);
                assert!(seen.insert(offset), "{rows}x{columns} by {row}: ({r}, {c}) shares {offset}");
                // The XOR of the offsets of its index's single bits.
                let bits = |n: i64, at: &dyn Fn(i64) -> i64| {
                    (0..63).filter(|b| n >> b & 1 == 1).fold(0, |acc, b| acc ^ at(1 << b))
                };
                let linear = bits(r, &|x| buffer.offset_of(x, 0)) ^ bits(c, &|x| buffer.offset_of(0, x));
                assert_eq!(offset, linear, "({r}, {c})");
            }
        }
    }
}
