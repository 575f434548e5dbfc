//! `tile_dialect::layout`: every layout kind to its attribute and back, the
//! printed forms, invalid parameters as None, and tensor types that carry a
//! layout.

use melior::{
    Context,
    ir::{Attribute, Type},
};
use tile_dialect::layout::{Layout, tensor_type};

fn blocked() -> Layout {
    Layout::Blocked {
        size_per_thread: vec![1, 8],
        threads_per_warp: vec![1, 32],
        warps_per_block: vec![1, 4],
        order: vec![1, 0],
    }
}

fn wgmma() -> Layout {
    Layout::Wgmma { warps_per_block: vec![4, 1], instr_n: 128 }
}

/// Each kind, with the text it prints as.
fn valid() -> Vec<(Layout, &'static str)> {
    let blocked_text =
        "#tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], warps_per_block = [1, 4], order = [1, 0]>";
    let slice_text = "#tile.slice<dim = 1, parent = #tile.blocked<size_per_thread = [1, 8], threads_per_warp = [1, 32], \
                      warps_per_block = [1, 4], order = [1, 0]>>";
    let lane = vec![vec![0, 4], vec![0, 8], vec![0, 16], vec![1, 0], vec![2, 0]];
    vec![
        (blocked(), blocked_text),
        (Layout::Slice { dim: 1, parent: Box::new(blocked()) }, slice_text),
        (
            Layout::Linear {
                register: vec![vec![0, 1], vec![0, 2]],
                lane: lane.clone(),
                warp: vec![vec![0, 32], vec![0, 0]],
            },
            "#tile.linear<register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], \
             warp = [[0, 32], [0, 0]]>",
        ),
        (
            Layout::Linear { register: vec![], lane, warp: vec![] },
            "#tile.linear<register = [], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = []>",
        ),
        (wgmma(), "#tile.wgmma<warps_per_block = [4, 1], instr_n = 128>"),
        (
            Layout::WgmmaOperand { index: 0, parent: Box::new(wgmma()), k_width: 2 },
            "#tile.wgmma_operand<index = 0, parent = #tile.wgmma<warps_per_block = [4, 1], instr_n = 128>, k_width = 2>",
        ),
        (
            Layout::Shared { swizzle_bytes: 128, element_bits: 16, transposed: false },
            "#tile.shared<swizzle_bytes = 128, element_bits = 16, transposed = false>",
        ),
        (
            Layout::Shared { swizzle_bytes: 0, element_bits: 8, transposed: true },
            "#tile.shared<swizzle_bytes = 0, element_bits = 8, transposed = true>",
        ),
    ]
}

#[test]
fn round_trip() {
    let context = tile_dialect::create_context();
    for (layout, text) in valid() {
        let attribute = layout.to_attribute(&context).unwrap_or_else(|| panic!("{layout:?} should verify"));
        assert_eq!(attribute.to_string(), text);
        assert_eq!(Layout::from_attribute(attribute).as_ref(), Some(&layout));
        // The text parses to the same (uniqued) attribute.
        assert_eq!(Attribute::parse(&context, text), Some(attribute));
    }
}

#[test]
fn invalid_parameters_give_none() {
    let context = tile_dialect::create_context();
    let lane = || vec![vec![0, 4], vec![0, 8], vec![0, 16], vec![1, 0], vec![2, 0]];
    let invalid = [
        // Blocked: rank 0, lengths, powers of two, 32 threads, 32 warps, order.
        Layout::Blocked { size_per_thread: vec![], threads_per_warp: vec![], warps_per_block: vec![], order: vec![] },
        Layout::Blocked {
            size_per_thread: vec![1, 8],
            threads_per_warp: vec![1, 32],
            warps_per_block: vec![4],
            order: vec![1, 0],
        },
        Layout::Blocked {
            size_per_thread: vec![3],
            threads_per_warp: vec![32],
            warps_per_block: vec![4],
            order: vec![0],
        },
        Layout::Blocked {
            size_per_thread: vec![1],
            threads_per_warp: vec![16],
            warps_per_block: vec![4],
            order: vec![0],
        },
        Layout::Blocked {
            size_per_thread: vec![1],
            threads_per_warp: vec![32],
            warps_per_block: vec![512],
            order: vec![0],
        },
        Layout::Blocked {
            size_per_thread: vec![1, 8],
            threads_per_warp: vec![1, 32],
            warps_per_block: vec![1, 4],
            order: vec![0, 0],
        },
        // Slice: dim out of range, rank-1 parent, shared parent, invalid parent.
        Layout::Slice { dim: 2, parent: Box::new(blocked()) },
        Layout::Slice { dim: -1, parent: Box::new(blocked()) },
        Layout::Slice {
            dim: 0,
            parent: Box::new(Layout::Blocked {
                size_per_thread: vec![1],
                threads_per_warp: vec![32],
                warps_per_block: vec![4],
                order: vec![0],
            }),
        },
        Layout::Slice {
            dim: 0,
            parent: Box::new(Layout::Shared { swizzle_bytes: 0, element_bits: 8, transposed: false }),
        },
        Layout::Slice { dim: 0, parent: Box::new(Layout::Wgmma { warps_per_block: vec![1, 1], instr_n: 8 }) },
        // Linear: no bases, ragged bases, lane count, warp and register
        // counts, negative entries, rank 4.
        Layout::Linear { register: vec![], lane: vec![], warp: vec![] },
        Layout::Linear { register: vec![vec![1]], lane: lane(), warp: vec![] },
        Layout::Linear { register: vec![], lane: lane()[..4].to_vec(), warp: vec![] },
        Layout::Linear { register: vec![], lane: lane(), warp: vec![vec![0, 0]; 9] },
        Layout::Linear { register: vec![vec![0, 1]; 21], lane: lane(), warp: vec![] },
        Layout::Linear { register: vec![vec![0, -1]], lane: lane(), warp: vec![] },
        Layout::Linear { register: vec![], lane: vec![vec![0, 0, 0, 1]; 5], warp: vec![] },
        // Wgmma: rank, warpgroups, at most 32 warps, instr_n.
        Layout::Wgmma { warps_per_block: vec![4], instr_n: 128 },
        Layout::Wgmma { warps_per_block: vec![2, 1], instr_n: 128 },
        Layout::Wgmma { warps_per_block: vec![16, 4], instr_n: 128 },
        Layout::Wgmma { warps_per_block: vec![4, 1], instr_n: 100 },
        Layout::Wgmma { warps_per_block: vec![4, 1], instr_n: 264 },
        // WgmmaOperand: index, parent, k_width.
        Layout::WgmmaOperand { index: 1, parent: Box::new(wgmma()), k_width: 2 },
        Layout::WgmmaOperand { index: 0, parent: Box::new(blocked()), k_width: 2 },
        Layout::WgmmaOperand { index: 0, parent: Box::new(wgmma()), k_width: 3 },
        // Shared: swizzle and element width.
        Layout::Shared { swizzle_bytes: 16, element_bits: 16, transposed: false },
        Layout::Shared { swizzle_bytes: 128, element_bits: 64, transposed: false },
    ];
    // Nothing may be reported for rejected parameters: a diagnostic would
    // land in whatever handler the context has.
    let (_, diagnostics) = tile_dialect::diagnostics::capture(&context, || {
        for layout in &invalid {
            assert_eq!(layout.to_attribute(&context), None, "{layout:?} should not verify");
            assert_eq!(tensor_type(&[4, 64], Type::float32(&context), layout), None);
        }
    });
    assert_eq!(diagnostics, "");
}

#[test]
fn from_attribute_of_other_attributes() {
    let context = tile_dialect::create_context();
    for text in ["42 : i64", "\"foo\"", "#tile<axis x>", "[1, 2]"] {
        let attribute = Attribute::parse(&context, text).unwrap();
        assert_eq!(Layout::from_attribute(attribute), None, "{text}");
    }
}

#[test]
fn tensor_types() {
    let context = tile_dialect::create_context();
    let f32 = Type::float32(&context);
    let slice = Layout::Slice { dim: 1, parent: Box::new(blocked()) };
    for (shape, layout) in [
        (&[1, 1024][..], blocked()),
        (&[4][..], slice.clone()),
        (&[64, 128][..], wgmma()),
        (&[64, 64][..], Layout::Shared { swizzle_bytes: 128, element_bits: 32, transposed: true }),
    ] {
        let tensor = tensor_type(shape, f32, &layout).unwrap_or_else(|| panic!("{shape:?} in {layout:?}"));
        assert_eq!(Layout::of_type(tensor).as_ref(), Some(&layout));
        let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
        let text = format!("tensor<{}xf32, {}>", dims.join("x"), layout.to_attribute(&context).unwrap());
        assert_eq!(tensor.to_string(), text);
        assert_eq!(Type::parse(&context, &text), Some(tensor));
    }

    // A register layout's rank is the tensor's; the tensor rules hold too.
    let (_, diagnostics) = tile_dialect::diagnostics::capture(&context, || {
        assert_eq!(tensor_type(&[1024], f32, &blocked()), None);
        assert_eq!(tensor_type(&[4, 64], f32, &slice), None);
        assert_eq!(tensor_type(&[-5, 4], f32, &blocked()), None);
    });
    assert_eq!(diagnostics, "");

    // Tensors without an encoding, or with another one, and other types.
    for text in ["tensor<4xf32>", "tensor<4xf32, \"foo\">", "tensor<?xf32>", "f32", "memref<4xf32>"] {
        let r#type = Type::parse(&context, text).unwrap();
        assert_eq!(Layout::of_type(r#type), None, "{text}");
    }
}

/// A context that has not loaded the tile dialect still builds layouts (the
/// C API loads it rather than abort).
#[test]
fn bare_context() {
    let context = Context::new();
    let attribute = blocked().to_attribute(&context).unwrap();
    assert_eq!(Layout::from_attribute(attribute), Some(blocked()));
}
