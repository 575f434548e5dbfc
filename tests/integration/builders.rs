//! The contract's examples built through the Rust builders print exactly as
//! `tile-opt` prints the contract's own text, and verify.

use crate::support::{context, root, tile_opt};
use melior::ir::operation::OperationLike;
use tile_tests::kernels;

fn check(name: &str, module: melior::ir::Module) {
    assert!(module.as_operation().verify(), "{name}: built module does not verify");
    let built = module.as_operation().to_string();
    insta::assert_snapshot!(name, built);
    let path = root().join("examples").join(format!("{name}.mlir"));
    let printed = tile_opt(&[path.to_str().unwrap()]);
    assert_eq!(built.trim_end(), printed.trim_end(), "{name}: builders and tile-opt disagree");
}

#[test]
fn matmul_builders_match_contract_text() {
    let context = context();
    check("matmul", kernels::matmul(&context, Default::default()));
}

#[test]
fn softmax_builders_match_contract_text() {
    let context = context();
    check("softmax", kernels::softmax(&context));
}

#[test]
fn partition_view_type_helpers() {
    use tile_dialect::types::{Padding, PartitionViewType};
    let context = context();
    let f32 = melior::ir::Type::float32(&context);
    let view = PartitionViewType::new(&context, &[4, 1024], f32, Padding::NegInf).unwrap();
    assert_eq!(view.to_string(), "!tile.partition_view<4x1024xf32, padding = neg_inf>");
    assert_eq!(view.shape(), vec![4, 1024]);
    assert_eq!(view.element_type(), f32);
    assert_eq!(view.padding(), Padding::NegInf);
    let parsed = melior::ir::Type::parse(&context, "!tile.partition_view<8x2xf32>").unwrap();
    let parsed = PartitionViewType::try_from_type(parsed).expect("a partition view");
    assert_eq!((parsed.shape(), parsed.padding()), (vec![8, 2], Padding::Zero));
    assert!(PartitionViewType::try_from_type(f32).is_none());

    // Broken tile rules are errors that say which rule, not crashes.
    let error = PartitionViewType::new(&context, &[3, 4], f32, Padding::Zero).unwrap_err();
    assert!(error.to_string().contains("dim 0 is 3, which is not a power of two"), "{error}");
    let i32 = melior::ir::Type::parse(&context, "i32").unwrap();
    let error = PartitionViewType::new(&context, &[4], i32, Padding::Nan).unwrap_err();
    assert!(error.to_string().contains("needs a floating-point element type"), "{error}");
    let error = PartitionViewType::new(&context, &[], f32, Padding::Zero).unwrap_err();
    assert!(error.to_string().contains("rank 0"), "{error}");

    // Enum attributes need the dialect; without it they are an error, not a panic.
    use tile_dialect::types::{Axis, ReduceKind};
    assert_eq!(Axis::Y.attribute(&context).unwrap().to_string(), "#tile<axis y>");
    assert_eq!(ReduceKind::Min.attribute(&context).unwrap().to_string(), "#tile<reduce_kind min>");
    let bare = melior::Context::new();
    assert!(Axis::X.attribute(&bare).is_err());
}
