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

/// The typed builders generated from LLVM 22's own NVVM ODS build ops that
/// print as upstream's syntax and verify.
#[test]
fn nvvm_builders() {
    use melior::{
        dialect::func,
        ir::{
            Block, BlockLike, Location, Module, Region, RegionLike,
            attribute::{StringAttribute, TypeAttribute},
            r#type::{FunctionType, IntegerType},
        },
    };
    use tile_dialect::nvvm;
    let context = context();
    let location = Location::unknown(&context);
    let module = Module::new(location);
    let block = Block::new(&[]);
    let i32 = IntegerType::new(&context, 32).into();
    block.append_operation(nvvm::read_ptx_sreg_tid_x(&context, i32, location).into());
    block.append_operation(nvvm::barrier_0(&context, location).into());
    block.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(block);
    module.body().append_operation(func::func(
        &context,
        StringAttribute::new(&context, "f"),
        TypeAttribute::new(FunctionType::new(&context, &[], &[]).into()),
        region,
        &[],
        location,
    ));
    assert!(module.as_operation().verify(), "the built module does not verify");
    assert_eq!(
        module.as_operation().to_string(),
        "module {\n  func.func @f() {\n    %0 = nvvm.read.ptx.sreg.tid.x : i32\n    nvvm.barrier0\n    return\n  }\n}\n"
    );
}

/// The lowerings build float infinities and NaN, and integer extremes
/// (reduction identities), typed; they are the very attributes MLIR's
/// parser makes of their text.
#[test]
fn typed_specials_match_parsed_attributes() {
    use melior::ir::{Attribute, Type, attribute::IntegerAttribute};
    use tile_lowering::build::{Special, float_bits, special_attribute};
    let context = context();
    for name in ["f32", "f16", "bf16"] {
        let element = Type::parse(&context, name).unwrap();
        for special in [Special::NegInf, Special::PosInf, Special::Nan] {
            let bits = float_bits(element, special).unwrap();
            let parsed = Attribute::parse(&context, &format!("{bits} : {name}")).unwrap();
            assert_eq!(special_attribute(&context, element, special), Some(parsed), "{name} {special:?}");
        }
    }
    // f8 views pad with the values their type has: E4M3FN has NaN but no
    // infinities, E5M2 all three.
    let f8 = Type::parse(&context, "f8E4M3FN").unwrap();
    assert_eq!(special_attribute(&context, f8, Special::Nan), Attribute::parse(&context, "0x7F : f8E4M3FN"));
    assert_eq!(special_attribute(&context, f8, Special::NegInf), None);
    let f8 = Type::parse(&context, "f8E5M2").unwrap();
    for (special, bits) in [(Special::NegInf, "0xFC"), (Special::PosInf, "0x7C"), (Special::Nan, "0x7E")] {
        assert_eq!(special_attribute(&context, f8, special), Attribute::parse(&context, &format!("{bits} : f8E5M2")));
    }
    for bits in [8u32, 16, 32, 64] {
        let element = Type::parse(&context, &format!("i{bits}")).unwrap();
        let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        for value in [min, max, -1, 0] {
            let parsed = Attribute::parse(&context, &format!("{value} : i{bits}")).unwrap();
            let typed: Attribute = IntegerAttribute::new(element, i64::try_from(value).unwrap()).into();
            assert_eq!(typed, parsed, "{value} : i{bits}");
        }
    }
}
