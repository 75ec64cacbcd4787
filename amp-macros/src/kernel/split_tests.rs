//! Tests of the barrier split of tiled kernels (the CPU accelerator's
//! work-item loops): the regions a body is cut into, the uniform control
//! flow around them, the locals carried across barriers in slots, the
//! renaming of locals that share a name, `tile_static` arrays, exits, and
//! what falls back to the threaded form. Kernels go through the real parse
//! stage first.

use quote::quote;

use super::super::test_support::kernel;
use super::*;

/// What the split makes of a kernel, in owned form.
#[derive(Debug)]
struct Analysis {
    /// The node tree: `R<n>` a region of `n` statements, `if(..)(..)`,
    /// `while[..]`, `loop[..]`, `for[..]` uniform control flow around them.
    shape: String,
    /// The locals carried across regions (slotted), by name.
    slotted: Vec<String>,
    /// Per region, the `tile_static` arrays it binds, by name.
    tiles: Vec<Vec<String>>,
    /// The `tile_static` arrays: name, element type, dimensions.
    tile_statics: Vec<(String, String, Vec<String>)>,
}

fn shape(nodes: &[Node<'_>]) -> String {
    let parts: Vec<String> = nodes
        .iter()
        .map(|n| match n {
            Node::Region(stmts) => format!("R{}", stmts.len()),
            Node::If(_, a, None) => format!("if({})", shape(a)),
            Node::If(_, a, Some(b)) => format!("if({})({})", shape(a), shape(b)),
            Node::While(_, body) => format!("while[{}]", shape(body)),
            Node::Loop(body) => format!("loop[{}]", shape(body)),
            Node::For(_, body) => format!("for[{}]", shape(body)),
        })
        .collect();
    parts.join(" ")
}

/// The split's analysis of `k` (as [`split`] does it), or `None` where the
/// kernel keeps the threaded form.
fn analyse(k: &Kernel) -> Option<Analysis> {
    let renamed = rename_shared_names(&k.body);
    let body = renamed.as_ref().unwrap_or(&k.body);
    let nodes = nodes(body).ok()?;
    let mut info = Info::default();
    info.scan(&nodes);
    info.decide().ok()?;
    let name = |id: &u32| info.names[id].clone();
    Some(Analysis {
        shape: shape(&nodes),
        slotted: info.slotted.iter().map(name).collect(),
        tiles: info
            .regions
            .iter()
            .map(|r| r.tiles.iter().map(name).collect())
            .collect(),
        tile_statics: info
            .tile_statics
            .iter()
            .map(|(id, elem, dims)| {
                (
                    name(id),
                    quote!(#elem).to_string(),
                    dims.iter().map(|d| quote!(#d).to_string()).collect(),
                )
            })
            .collect(),
    })
}

/// The number of work-item loops (regions) in the generated code.
fn work_item_loops(code: &str) -> usize {
    code.matches("'__amp_wi : for").count()
}

#[test]
fn a_body_without_barriers_is_one_region() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            let l = t.local[0];
            let mut v = a[t.global];
            if l > 0 {
                v += 1.0;
            }
            for k in 0..4 {
                v *= 2.0;
            }
            o[t.global] = v;
        }
    });
    let a = analyse(&k).expect("split");
    assert_eq!(a.shape, "R5");
    assert!(a.slotted.is_empty(), "{a:?}");
    let code = split(&k).expect("split").to_string();
    assert_eq!(work_item_loops(&code), 1, "{code}");
    assert!(!code.contains("Slots :: new"), "{code}");
}

#[test]
fn one_barrier_makes_two_regions() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let s: [f32; 16]; }
            let l = t.local[0];
            s[l] = a[t.global];
            t.barrier.wait();
            o[t.global] = s[15 - l];
        }
    });
    let a = analyse(&k).expect("split");
    // The barrier itself is in neither region.
    assert_eq!(a.shape, "R3 R1");
    assert_eq!(a.slotted, ["l"]);
    let code = split(&k).expect("split").to_string();
    assert_eq!(work_item_loops(&code), 2, "{code}");
    assert!(!code.contains("barrier"), "{code}");
    // `l` is stored by the first region and restored by the second.
    let slot = code.find("Slots :: new").expect("a slot");
    let put = code.find(". put (__amp_wi , l)").expect("stored");
    let get = code.find(". get (__amp_wi)").expect("restored");
    assert!(slot < put && put < get, "{code}");
}

#[test]
fn barriers_in_uniform_loops_and_branches_cut_their_bodies() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let s: [i32; 16]; }
            let l = t.local[0];
            let mut sum = 0;
            for k in 0..n {
                s[l] = a[[t.global[0] + k]];
                t.barrier.wait();
                sum += s[(l + k) % 16];
                t.barrier.wait();
            }
            let mut stride = 8;
            while stride > 0 {
                if l < stride {
                    s[l] += s[l + stride];
                }
                t.barrier.wait();
                stride /= 2;
            }
            if n > 4 {
                t.barrier.wait();
            } else {
                sum += 1;
                t.barrier.wait();
                sum += 2;
            }
            loop {
                t.barrier.wait();
                break;
            }
            o[t.global] = sum + s[0];
        }
    });
    let a = analyse(&k).expect("split");
    assert_eq!(
        a.shape,
        "R3 for[R1 R1] R1 while[R1 R1] if()(R1 R1) loop[R1] R1"
    );
    // `k` is the loop's own variable (uniform, the same for every work
    // item): not slotted. `stride` is read by the uniform condition.
    assert_eq!(a.slotted, ["l", "sum", "stride"]);
    let code = split(&k).expect("split").to_string();
    assert_eq!(work_item_loops(&code), 10, "{code}");
    // The uniform condition reads work item 0's `stride`.
    assert!(
        code.contains("while { # [allow (unused_variables)] let stride = __amp_slot"),
        "{code}"
    );
}

#[test]
fn only_locals_used_across_a_barrier_are_carried() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            let l = t.local[0];
            let tmp = l * 2;
            let mut acc = tmp + 1;
            t.barrier.wait();
            let once = 3;
            acc += once;
            t.barrier.wait();
            let m = acc;
            if m > 100 {
                t.barrier.wait();
            }
            o[t.global] = m;
        }
    });
    let a = analyse(&k).expect("split");
    assert_eq!(a.shape, "R3 R2 R1 if() R1");
    // `tmp` and `once` die in their region; `acc` is declared in the first,
    // assigned in the second and read in the third; `m` is read by a
    // uniform condition and a later region.
    assert_eq!(a.slotted, ["acc", "m"]);
    let code = split(&k).expect("split").to_string();
    // Declared by the first region; restored by the second (which stores
    // it back: it assigns it) and the third (which only reads it).
    assert_eq!(code.matches("let mut acc =").count(), 3, "{code}");
    assert_eq!(code.matches(". put (__amp_wi , acc)").count(), 2, "{code}");
    assert!(!code.contains("__amp_wi , tmp"), "{code}");
}

#[test]
fn locals_that_share_a_name_are_renamed_apart() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let s: [i32; 4]; }
            let v = a[t.global];
            s[t.local[0]] = v;
            t.barrier.wait();
            let v = v + s[0];
            for i in 0..2 {
                let w = v + i;
                o[t.global] = w;
            }
            for i in 0..2 {
                let w = i;
                o[t.global] += w;
            }
        }
    });
    let renamed = rename_shared_names(&k.body).expect("shared names");
    let names: Vec<String> = renamed
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Let { local, name, .. } => Some(format!("{local}:{name}")),
            StmtKind::For { var, name, .. } => Some(format!("{var}:{name}")),
            StmtKind::TileStatic { local, name, .. } => Some(format!("{local}:{name}")),
            _ => None,
        })
        .collect();
    // `s` is used once: kept; `v` and `i` (and the `w`s inside the loops)
    // become `name_amp_<local>`.
    assert_eq!(
        names,
        ["0:s", "1:v_amp_1", "2:v_amp_2", "3:i_amp_3", "5:i_amp_5"]
    );
    // Uses follow their local, shadowing kept: the second `v` reads the first.
    let StmtKind::Let {
        init: Some(second), ..
    } = &renamed.stmts[4].kind
    else {
        panic!("{:?}", renamed.stmts[4].kind)
    };
    let ExprKind::Binary(_, first, _) = &second.kind else {
        panic!("{second:?}")
    };
    assert!(
        matches!(&first.kind, ExprKind::Local(1, n) if n == "v_amp_1"),
        "{first:?}"
    );
    let a = analyse(&k).expect("split after renaming");
    assert_eq!(a.slotted, ["v_amp_1"]);
    // Names used once: nothing to rename.
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            let v = a[t.global];
            t.barrier.wait();
            o[t.global] = v;
        }
    });
    assert!(rename_shared_names(&k.body).is_none());
}

#[test]
fn tile_static_arrays_are_memory_of_the_batch_bound_in_each_region() {
    let k = kernel(quote! {
        d, |t: TiledIndex<2>| {
            tile_static! {
                let a_tile: [[f32; TS]; TS];
                let count: u32;
            }
            let (r, c) = (t.local[0], t.local[1]);
            a_tile[r][c] = a[t.global];
            atomic_fetch_add(&count, 1);
            t.barrier.wait();
            let mut sum = 0.0f32;
            for k in 0..TS {
                sum += a_tile[r][k];
            }
            t.barrier.wait();
            o[t.global] = sum + count as f32;
        }
    });
    let a = analyse(&k).expect("split");
    // The `tile_static!` declarations stay in the first region's statement
    // list (they emit nothing there).
    // (`let (r, c)` is a hidden tuple local and two locals.)
    assert_eq!(a.shape, "R7 R2 R1");
    assert_eq!(
        a.tile_statics,
        [
            (
                "a_tile".to_string(),
                "f32".to_string(),
                vec!["TS".to_string(), "TS".to_string()]
            ),
            (
                "count".to_string(),
                "u32".to_string(),
                vec!["1".to_string()]
            ),
        ]
    );
    assert_eq!(
        a.tiles,
        [
            vec!["a_tile".to_string(), "count".to_string()],
            vec!["a_tile".to_string()],
            vec!["count".to_string()],
        ]
    );
    assert_eq!(a.slotted, ["r", "sum"]);
    let code = split(&k).expect("split").to_string();
    // Hoisted once, before the tiles; bound by reference in each region
    // that uses them.
    assert_eq!(
        code.matches("LocalTile :: < f32 , 2usize > :: new").count(),
        1,
        "{code}"
    );
    assert_eq!(
        code.matches("LocalTile :: < u32 , 1usize > :: new").count(),
        1,
        "{code}"
    );
    assert!(code.find("LocalTile").unwrap() < code.find("'__amp_tile").unwrap());
    assert_eq!(
        code.matches("let a_tile = & __amp_tile_static_").count(),
        2,
        "{code}"
    );
    assert_eq!(
        code.matches("let count = & __amp_tile_static_").count(),
        2,
        "{code}"
    );
}

#[test]
fn exits_from_regions_set_flags_for_the_uniform_code() {
    // A `break` of a loop with barriers leaves the work-item loop and sets
    // a flag; a `return` in the last region just ends the work item's turn.
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            let mut i = 0;
            loop {
                t.barrier.wait();
                i += 1;
                if i > n {
                    break;
                }
            }
            if t.local[0] > 3 {
                return;
            }
            o[t.global] = i;
        }
    });
    let a = analyse(&k).expect("split");
    assert_eq!(a.shape, "R1 loop[R2] R2");
    let code = split(&k).expect("split").to_string();
    assert!(code.contains("let mut __amp_exit1 = 0u8"), "{code}");
    assert!(
        code.contains("__amp_exit1 = 1u8 ; continue '__amp_wi"),
        "{code}"
    );
    assert!(code.contains("if __amp_exit1 == 1 { break ; }"), "{code}");
    assert!(!code.contains("__amp_exit2 = 3u8"), "{code}");
    assert!(code.contains("> 3) { { continue '__amp_wi ; } }"), "{code}");
    // A `return` followed by more regions: the flag ends the tile's run.
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            if t.tile[0] == 0 {
                return;
            }
            t.barrier.wait();
            o[t.global] = 1;
        }
    });
    let code = split(&k).expect("split").to_string();
    assert!(code.contains("__amp_exit0 = 3u8"), "{code}");
    assert!(
        code.contains("if __amp_exit0 == 3 { continue '__amp_tile ; }"),
        "{code}"
    );
}

#[test]
fn what_the_split_does_not_cover_keeps_the_threaded_form() {
    let threaded = |body| {
        let k = kernel(body);
        assert!(analyse(&k).is_none(), "{:?}", analyse(&k));
        assert!(split(&k).is_err());
    };
    // A barrier inside an expression.
    threaded(quote! {
        d, |t: TiledIndex<1>| {
            let v = if n > 0 {
                t.barrier.wait();
                1
            } else {
                2
            };
            o[t.global] = v;
        }
    });
    // A call that passes the tiled index (it may wait inside).
    threaded(quote! {
        d, |t: TiledIndex<1>| {
            mirror(&o, &t, 64);
        }
    });
    // A `match` used as a value whose arm waits.
    threaded(quote! {
        d, |t: TiledIndex<1>| {
            let v = match n {
                0 => {
                    t.barrier.wait();
                    1
                }
                _ => 2,
            };
            o[t.global] = v;
        }
    });
    // A block tail next to barriers.
    threaded(quote! {
        d, |t: TiledIndex<1>| {
            for _ in 0..n {
                t.barrier.wait();
                f(1)
            }
        }
    });
}

#[test]
fn a_match_statement_is_uniform_control_flow_around_regions() {
    // Lowered to `let __amp_match0 = n;` (with its native exhaustiveness
    // check) and an `if` chain: the scrutinee's local is read by the
    // uniform condition, so it is slotted.
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            match n {
                0 => t.barrier.wait(),
                _ => {}
            }
            o[t.global] = 1;
        }
    });
    let a = analyse(&k).expect("split");
    assert_eq!(a.shape, "if(R2 if()()) R1");
    assert_eq!(a.slotted, ["__amp_match0"]);
}
