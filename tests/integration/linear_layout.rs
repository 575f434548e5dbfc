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

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` as the PTX ISA
/// defines it, on a buffer of element ids (one a byte): lane `8 m + i`
/// gives the address of row `i` of matrix `m`; thread `t` gets, per
/// matrix, b16 (row `2 (t % 4)`, column `t / 4`) in its low half and
/// (row `2 (t % 4) + 1`, column `t / 4`) in its high half.
fn ldmatrix_x4_trans(memory: &std::collections::HashMap<i64, u64>, addresses: &[i64; 32], t: usize) -> [[u64; 4]; 4] {
    let byte = |a: i64| memory[&a];
    std::array::from_fn(|m| {
        let (row, column) = (8 * m + 2 * (t % 4), 2 * (t / 4) as i64);
        let (lo, hi) = (addresses[row] + column, addresses[row + 1] + column);
        [byte(lo), byte(lo + 1), byte(hi), byte(hi + 1)]
    })
}

/// `prmt.b32 d, lo, hi, selector` (default mode) as the PTX ISA defines
/// it: byte `j` of `d` is byte `selector[4j + 2 : 4j]` of `{hi, lo}`.
fn prmt(lo: [u64; 4], hi: [u64; 4], selector: u32) -> [u64; 4] {
    std::array::from_fn(|j| {
        let nibble = selector >> (4 * j) & 0xf;
        assert_eq!(nibble & 8, 0, "sign replication");
        let i = (nibble & 7) as usize;
        if i < 4 { lo[i] } else { hi[i - 4] }
    })
}

#[test]
fn f8_fragments_by_ldmatrix_replay_the_ptx_isa() {
    use tile_lowering::registers::{ldmatrix, mma::swapped_layouts_of, swizzle::Swizzled};
    // (M, N, K, warps, swizzle): B is K x N bytes, N-major, in the
    // swizzle its rows take (N bytes, at most 128).
    for (m, n, k, warps, swizzle) in [
        (128, 128, 128, 8, 128),
        (128, 128, 32, 8, 128),
        (64, 128, 64, 4, 128),
        (128, 256, 64, 8, 128),
        (128, 64, 128, 8, 64),
        (64, 256, 32, 4, 128),
    ] {
        let case = format!("{m}x{n}x{k}, {warps} warps");
        let (_, fragments) = swapped_layouts_of(m, n, k, warps, 8).unwrap();
        let buffer = Swizzled { rows: k, row: swizzle, bytes: 1 };
        let plan = ldmatrix::plan(&buffer, &fragments, 0).unwrap_or_else(|| panic!("{case}: no plan"));
        // The addresses are emitted as a thread part XOR constants.
        assert!(buffer.linear_offsets(&plan.rows, 0).is_some(), "{case}");
        let mut memory = std::collections::HashMap::new();
        for row in 0..k {
            for column in 0..n {
                assert!(memory.insert(buffer.offset_of(row, column), (row * n + column) as u64).is_none());
            }
        }
        if (m, n, k, warps) == (128, 128, 128, 8) {
            // The scheme bench/experiments/tf32-f8/tools/check_ldsm.py
            // checks: lane 8 m + 2 q + e of warp w reads K row
            // 32 s + 16 (m >> 1) + 4 q + e + 2 ((m & 1) ^ (q >> 1)) at
            // column 16 w; selectors 0x6420 and 0x7531, halves swapped
            // for lanes with l % 4 >= 2.
            for w in 0..8u64 {
                for s in 0..4u64 {
                    for lane in 0..32u64 {
                        let (mm, q, e) = (lane >> 3, (lane & 7) >> 1, lane & 1);
                        let row = 32 * s + 16 * (mm >> 1) + 4 * q + e + 2 * ((mm & 1) ^ (q >> 1));
                        let element = unflatten(&plan.rows.shape, plan.rows.apply(s, lane, w));
                        assert_eq!(element, vec![row as i64, 16 * w as i64], "lane {lane}, warp {w}, instruction {s}");
                    }
                }
            }
            for (r, permute) in plan.permutes.iter().enumerate() {
                assert_eq!(permute.sources, [r / 2 * 2, r / 2 * 2 + 1]);
                for l in 0..32u64 {
                    let selectors = if (l & 3) >> 1 == 1 { [0x2064, 0x3175] } else { [0x6420, 0x7531] };
                    assert_eq!(permute.selector.of(l, 0), selectors[r % 2], "register {r}, lane {l}");
                }
            }
        }
        let instructions = plan.rows.registers();
        assert_eq!(4 * instructions, fragments.registers() / 4, "{case}: a loaded 32-bit register for each");
        for w in 0..warps as u64 {
            let mut loaded = vec![Vec::new(); 32];
            for s in 0..instructions as u64 {
                let addresses: [i64; 32] = std::array::from_fn(|lane| {
                    let element = unflatten(&plan.rows.shape, plan.rows.apply(s, lane as u64, w));
                    buffer.offset_of(element[0], element[1])
                });
                // Each matrix's eight rows in eight distinct 16-byte
                // chunks of the banks: one pass.
                for matrix in addresses.chunks(8) {
                    let chunks: std::collections::HashSet<i64> = matrix.iter().map(|a| a / 16 % 8).collect();
                    assert_eq!(chunks.len(), 8, "{case}: warp {w}, instruction {s}: bank conflicts");
                }
                for (t, registers) in loaded.iter_mut().enumerate() {
                    registers.extend(ldmatrix_x4_trans(&memory, &addresses, t));
                }
            }
            for (l, registers) in loaded.iter().enumerate() {
                for (r, permute) in plan.permutes.iter().enumerate() {
                    let [lo, hi] = permute.sources;
                    let word = prmt(registers[lo], registers[hi], permute.selector.of(l as u64, w));
                    for (j, &element) in word.iter().enumerate() {
                        let wanted = fragments.apply((4 * r + j) as u64, l as u64, w);
                        assert_eq!(element, wanted, "{case}: warp {w}, lane {l}, register {r}, byte {j}");
                    }
                }
            }
        }
    }
    // wgmma's own row order (no column rotation) has no plan: a lane's
    // two rows are not one b16.
    let plain = LinearLayout::wgmma_operand(&[128, 128], 8, 4).unwrap().permute(&[1, 0]);
    assert!(ldmatrix::plan(&Swizzled { rows: 128, row: 128, bytes: 1 }, &plain, 0).is_none());
}

#[test]
fn rotate_bits_cycles_back() {
    let layout = LinearLayout::wgmma(&[64, 64], &[4, 1], 64).unwrap();
    let mut rotated = layout.rotate_bits(0, 3);
    assert_ne!(rotated, layout);
    assert_eq!(unflatten(&rotated.shape, rotated.apply(4, 0, 0)), vec![0, 1], "column 8 to column 1");
    for _ in 0..3 {
        rotated = rotated.rotate_bits(0, 3);
    }
    assert_eq!(rotated, layout);
}
