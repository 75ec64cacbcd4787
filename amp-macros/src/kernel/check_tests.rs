//! Tests of the check stage: the uniformity check of tiled kernels (every
//! work item of a tile reaches the same barriers), the uniform `tile_static`
//! loads it marks, the calls whose results it takes as uniform, and the
//! `break`/`continue` rule. Kernels go through the real parse stage first.

use quote::quote;

use super::super::ast::*;
use super::super::test_support::{
    assert_all, check_errors, checked, compile_errors, function, kernel, kernel_function_errors,
};
use super::{assumed_uniform_calls, barrier_params, varying_arg_calls};

/// A stable part of the message of a divergent barrier.
const DIVERGES: &str = "every thread of a tile must reach the same barriers";
/// ... of a call passing the tiled index under divergent control flow.
const CALL_DIVERGES: &str = "every thread of a tile must make the call";
/// ... of such a call with arguments that vary by thread, where the
/// callee's barriers depend on them.
const CALL_ARGS_VARY: &str = "the function's barriers depend on them";

/// The `tile_static` loads of `b` (statements and nested blocks), in order,
/// with whether the check marked each uniform.
fn tile_loads(b: &Block) -> Vec<(String, bool)> {
    fn expr(e: &Expr, out: &mut Vec<(String, bool)>) {
        super::super::split::visit_expr(e, &mut |x| match &x.kind {
            ExprKind::TileLoad(_, name, _, uniform, _) => {
                out.push((name.to_string(), uniform.get()))
            }
            ExprKind::If(_, a, b) => {
                block(a, out);
                block(b, out);
            }
            ExprKind::Block(b) => block(b, out),
            _ => {}
        });
    }
    fn block(b: &Block, out: &mut Vec<(String, bool)>) {
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Let { init: Some(e), .. } | StmtKind::Expr(e) => expr(e, out),
                StmtKind::Assign(_, _, e) => expr(e, out),
                StmtKind::If(c, a, b) => {
                    expr(c, out);
                    block(a, out);
                    if let Some(b) = b {
                        block(b, out);
                    }
                }
                StmtKind::While(c, body) => {
                    expr(c, out);
                    block(body, out);
                }
                StmtKind::Loop(body) | StmtKind::For { body, .. } => block(body, out),
                _ => {}
            }
        }
        if let Some(t) = &b.tail {
            expr(t, out);
        }
    }
    let mut out = Vec::new();
    block(b, &mut out);
    out
}

#[test]
fn a_barrier_at_top_level_is_accepted() {
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let s: [f32; 16]; }
            s[t.local[0]] = a[t.global];
            t.barrier.wait();
            t.barrier.wait_with_all_memory_fence();
            o[t.global] = s[15 - t.local[0]];
        }
    });
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn a_barrier_under_an_if_on_the_tiled_index_is_refused() {
    for cond in [
        quote!(t.local[0] == 0),
        quote!(t.global[0] < 8),
        quote!(t.local[0] == 0 || n > 3),
    ] {
        let errors = check_errors(quote! {
            d, |t: TiledIndex<1>| {
                if #cond {
                    t.barrier.wait();
                }
                o[t.global] = 1;
            }
        });
        assert_all(&errors, 1, DIVERGES);
        assert!(
            errors[0].starts_with("this barrier is under control flow that depends on the thread")
        );
    }
}

#[test]
fn a_barrier_under_an_if_on_uniform_values_is_accepted() {
    // A constant, a captured scalar, the tile's number (the same for the
    // whole tile), the tile's extent, and a local computed from them.
    for cond in [
        quote!(TS > 8),
        quote!(n > 0),
        quote!(t.tile[0] % 3 == 2),
        quote!(t.tile_extent[0] == 16),
        quote!(m > 4),
    ] {
        let errors = check_errors(quote! {
            d, |t: TiledIndex<1>| {
                let m = n * 2 + t.tile_origin[0];
                if #cond {
                    t.barrier.wait();
                } else {
                    t.barrier.wait_with_tile_static_memory_fence();
                }
                o[t.global] = m;
            }
        });
        assert_eq!(errors, Vec::<String>::new(), "if {cond}");
    }
}

#[test]
fn a_barrier_under_data_a_thread_loaded_is_refused() {
    // A container's element, and a local assigned under divergent control
    // (its value differs between threads even though every value assigned
    // is a constant).
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            let v = a[t.global];
            if v > 0 {
                t.barrier.wait_with_global_memory_fence();
            }
            let mut flag = 0;
            if t.local[0] == 0 {
                flag = 1;
            }
            if flag == 1 {
                t.barrier.wait();
            }
            let mut arr = [0; 4];
            arr[t.local[0] % 4] = 1;
            if arr[0] == 1 {
                t.barrier.wait();
            }
        }
    });
    assert_all(&errors, 3, DIVERGES);
}

#[test]
fn barriers_in_loops_with_uniform_bounds_are_accepted() {
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let s: [i32; 16]; }
            let l = t.local[0];
            for k in 0..n {
                s[l] = k;
                t.barrier.wait();
            }
            for k in (0..TS).step_by(2).rev() {
                t.barrier.wait();
                if k > 2 {
                    t.barrier.wait();
                }
            }
            let mut stride = 8;
            while stride > 0 {
                if l < stride {
                    s[l] += s[l + stride];
                }
                t.barrier.wait();
                stride /= 2;
            }
            loop {
                t.barrier.wait();
                if n > 2 {
                    break;
                }
            }
            o[t.global] = s[0];
        }
    });
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn barriers_in_loops_with_bounds_from_the_local_index_are_refused() {
    // A `for` bound, a `while` condition through a local, a step, and a
    // `while` condition that itself waits (threads leave at different
    // iterations).
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            for _ in 0..t.local[0] {
                t.barrier.wait();
            }
            let n = t.local[0] % 4;
            let mut i = 0;
            while i < n {
                t.barrier.wait();
                i += 1;
            }
            for _ in (0..16).step_by((t.local[0] + 1) as usize) {
                t.barrier.wait();
            }
            let mut k = 0;
            while {
                t.barrier.wait();
                k < t.local[0]
            } {
                k += 1;
            }
        }
    });
    assert_all(&errors, 4, DIVERGES);
}

#[test]
fn threads_that_return_break_or_continue_divergently_miss_later_barriers() {
    // After a divergent `return`: the rest of the kernel.
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            if t.global[0] >= 60 {
                return;
            }
            t.barrier.wait();
        }
    });
    assert_all(&errors, 1, DIVERGES);
    // A uniform `return` (whole tiles) is fine.
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            if t.tile[0] % 3 == 2 {
                return;
            }
            t.barrier.wait();
        }
    });
    assert_eq!(errors, Vec::<String>::new());
    // A divergent `break`: every barrier of the loop, those before it too
    // (threads that left miss them in later iterations); one error each,
    // though the body is visited twice.
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            let mut k = 0;
            loop {
                t.barrier.wait();
                if a[t.global] > k {
                    break;
                }
                k += 1;
                t.barrier.wait();
            }
        }
    });
    assert_all(&errors, 2, DIVERGES);
    // ... but threads meet again where the loop ends.
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            for _ in 0..4 {
                if t.local[0] == 0 {
                    break;
                }
            }
            t.barrier.wait();
        }
    });
    assert_eq!(errors, Vec::<String>::new());
    // A divergent `continue`: the rest of that loop's body; a barrier before
    // it is reached by every thread at every iteration.
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            for k in 0..4 {
                t.barrier.wait();
                if t.local[0] == k {
                    continue;
                }
                t.barrier.wait();
            }
            t.barrier.wait();
        }
    });
    assert_all(&errors, 1, DIVERGES);
    // A divergent `return` inside a loop: the loop's barriers and the rest
    // of the kernel (threads that returned do not meet the others again).
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            for _ in 0..4 {
                t.barrier.wait();
                if t.local[0] == 3 {
                    return;
                }
            }
            t.barrier.wait();
        }
    });
    assert_all(&errors, 2, DIVERGES);
}

#[test]
fn the_right_operand_of_and_and_a_match_on_the_index_are_control_flow() {
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            let v = a[t.global];
            let go = v > 0 && {
                t.barrier.wait();
                true
            };
            match t.local[0] {
                0 => t.barrier.wait(),
                _ => {}
            }
            // A `match` on a uniform value is fine.
            match n {
                0 | 1 => t.barrier.wait(),
                _ => {}
            }
            o[t.global] = go as i32;
        }
    });
    assert_all(&errors, 2, DIVERGES);
}

#[test]
fn a_tile_static_value_read_after_a_barrier_is_a_uniform_load() {
    // C++ AMP's MandelBrot shape: a flag every work item reads at the same
    // address after a barrier, with no write since, decides a `break` out
    // of a loop of barriers.
    let (k, errors) = checked(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let busy: u32; let s: [u32; 16]; }
            let mut v = x[t.global];
            loop {
                t.barrier.wait();
                if t.local[0] == 0 {
                    busy = 0;
                }
                t.barrier.wait();
                if v > 1 {
                    busy = 1;
                }
                s[t.local[0]] = v;
                t.barrier.wait();
                let first = s[0];
                let mine = s[t.local[0]];
                if busy == 0 {
                    break;
                }
                v = v / 2 + first + mine;
            }
            o[t.global] = v;
        }
    });
    assert_eq!(errors, Vec::<String>::new());
    // `busy` and `s[0]` are uniform; `s[t.local[0]]` is not (its address
    // varies).
    assert_eq!(
        tile_loads(&k.body),
        [
            ("s".to_string(), true),
            ("s".to_string(), false),
            ("busy".to_string(), true)
        ]
    );
    // The IR builder loads the uniform ones with `UniformLoad`.
    let code = super::super::expand::expand(&k).to_string();
    assert_eq!(code.matches("UniformLoad").count(), 2, "{code}");
}

#[test]
fn a_tile_static_value_written_since_the_last_barrier_varies() {
    // A write under divergent control after the barrier: the flag may
    // differ between work items, so both barriers of the loop are refused.
    let (k, errors) = checked(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let busy: u32; }
            let mut v = x[t.global];
            loop {
                if t.local[0] == 0 {
                    busy = 0;
                }
                t.barrier.wait();
                if v > 1 {
                    busy = 1;
                }
                if busy == 0 {
                    break;
                }
                v /= 2;
                t.barrier.wait();
            }
        }
    });
    assert_all(&errors, 2, DIVERGES);
    assert_eq!(tile_loads(&k.body), [("busy".to_string(), false)]);
    // An array atomics use is never loaded uniformly.
    let (k, errors) = checked(quote! {
        d, |t: TiledIndex<1>| {
            tile_static! { let count: u32; }
            atomic_fetch_add(&count, 1);
            t.barrier.wait();
            if count > 3 {
                t.barrier.wait();
            }
        }
    });
    assert_all(&errors, 1, DIVERGES);
    assert_eq!(tile_loads(&k.body), [("count".to_string(), false)]);
}

#[test]
fn a_call_that_passes_the_tiled_index_must_be_made_uniformly() {
    let errors = check_errors(quote! {
        d, |t: TiledIndex<1>| {
            // Accepted: every work item, uniform arguments.
            mirror(&a, &t, 64);
            if a[t.global] > 0 {
                mirror(&a, &t, 64);
            }
            mirror(&a, &t, t.local[0]);
        }
    });
    // The third call, made by every work item with a varying argument, is
    // left to the callee's summary (checked at compile time).
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].contains(CALL_DIVERGES), "{}", errors[0]);
}

#[test]
fn calls_passing_the_tiled_index_and_varying_arguments_are_left_to_the_callee() {
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            mirror(&a, &t, 64);
            mirror(&a, &t, t.local[0]);
            let k = t.global[0] * 2;
            sum_into(&t, 3, k, &a);
        }
    });
    let calls: Vec<(String, u64)> = varying_arg_calls(&k.body, true)
        .into_iter()
        .map(|(p, _, mask)| (quote!(#p).to_string(), mask))
        .collect();
    // The varying arguments' positions, a bit each.
    assert_eq!(
        calls,
        [
            ("mirror".to_string(), 0b100),
            ("sum_into".to_string(), 0b100)
        ]
    );
    assert!(varying_arg_calls(&k.body, false).is_empty());
    // The expansion checks each callee's summary at compile time.
    let checks = super::super::expand::varying_arg_checks(&k.body, true).to_string();
    assert!(
        checks.contains("mirror :: __amp_barrier_params ()")
            && checks.contains("sum_into :: __amp_barrier_params ()")
            && checks.contains(CALL_ARGS_VARY),
        "{checks}"
    );
}

#[test]
fn a_function_summarises_the_parameters_its_barriers_depend_on() {
    // `rounds` (position 1) decides how often it waits; `scale` (3) is
    // only arithmetic; `n` (4) is passed on to `inner` at its position 2,
    // whose summary decides; the view (2) and the tiled index (0) bind.
    let f = function(quote! {
        fn steps(t: &TiledIndex<1>, rounds: i32, v: &ArrayView<'_, f32, 1>, scale: f32, n: i32) {
            for _ in 0..rounds {
                t.barrier.wait();
            }
            v[t.global] = v[t.global] * scale;
            inner(t, 1, n);
        }
    });
    let params: Vec<(usize, u32)> = [1usize, 3, 4]
        .into_iter()
        .zip(f.params.iter().map(|(id, _, _)| *id))
        .collect();
    let (own, passed) = barrier_params(&f.body, &params);
    assert_eq!(own, 0b10);
    let passed: Vec<(usize, String, u64)> = passed
        .into_iter()
        .map(|(pos, p, mask)| (pos, quote!(#p).to_string(), mask))
        .collect();
    assert_eq!(passed, [(4, "inner".to_string(), 0b100)]);
}

#[test]
fn a_kernel_function_that_takes_the_tiled_index_is_checked_as_tiled() {
    // Its parameters are taken as uniform (its callers check them); its
    // own index is not.
    let errors = kernel_function_errors(quote! {
        fn steps(t: &TiledIndex<1>, rounds: i32) {
            for _ in 0..rounds {
                t.barrier.wait();
            }
            if t.local[0] == 0 {
                t.barrier.wait();
            }
        }
    });
    assert_all(&errors, 1, DIVERGES);
}

#[test]
fn calls_whose_results_guard_barriers_are_checked_against_summaries() {
    // tests/ui/kernel_barrier_divergent_call_result.rs: the check takes
    // `twice(3)` and `bump(&h, 0)` as uniform (their arguments are), and
    // the barriers depend on that verdict.
    let k = kernel(quote! {
        d, |t: TiledIndex<1>| {
            if twice(3) > 4 {
                t.barrier.wait();
            }
            if bump(&h, 0) < 8 {
                t.barrier.wait();
            }
            // Not guarding a barrier: not listed.
            let w = twice(5);
            // Varying arguments: the result varies anyway (and is refused
            // by the check itself where it guards a barrier).
            let v = twice(t.local[0]);
            o[t.global] = w + v;
        }
    });
    let names = |calls: Vec<(syn::ExprPath, proc_macro2::Span)>| -> Vec<String> {
        calls.iter().map(|(p, _)| quote!(#p).to_string()).collect()
    };
    assert_eq!(
        names(assumed_uniform_calls(&k.body, true)),
        ["twice", "bump"]
    );
    // Untiled kernels have no barriers.
    assert!(assumed_uniform_calls(&k.body, false).is_empty());
    // The expansion checks each callee's summary at compile time.
    let checks = super::super::expand::uniform_call_checks(&k.body, true).to_string();
    assert!(checks.contains("twice :: __amp_varies ()"), "{checks}");
    assert!(checks.contains("bump :: __amp_varies ()"), "{checks}");
    assert!(
        checks.contains("the result of `bump` decides whether work items reach a barrier here"),
        "{checks}"
    );
    // The summaries `#[kernel]` writes: `bump` uses an atomic (its result
    // varies given the same arguments), `twice` does not; `calls` varies
    // where its callee does.
    let summary = |item| {
        let f = function(item);
        let s = super::super::sites::sites(&f.body);
        let calls: Vec<String> = s.calls.iter().map(|p| quote!(#p).to_string()).collect();
        (s.varies, calls)
    };
    assert_eq!(
        summary(quote! {
            fn bump(hist: &ArrayView<'_, u32, 1>, bin: i32) -> u32 {
                atomic_fetch_add(&hist[[bin]], 1)
            }
        }),
        (true, vec![])
    );
    assert_eq!(
        summary(quote! {
            fn twice(x: u32) -> u32 { x * 2 }
        }),
        (false, vec![])
    );
    assert_eq!(
        summary(quote! {
            fn calls(x: u32) -> u32 { twice(x) + 1 }
        }),
        (false, vec!["twice".to_string()])
    );
    let out = super::super::kernel_function(
        proc_macro2::TokenStream::new(),
        quote! {
            fn calls(x: u32) -> u32 { twice(x) + 1 }
        },
    );
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    let out = out.to_string();
    assert!(
        out.contains("fn __amp_varies () -> bool { false || twice :: __amp_varies () }"),
        "{out}"
    );
}

#[test]
fn break_and_continue_must_be_inside_a_loop() {
    let errors = check_errors(quote! {
        d, |i: Index<1>| {
            if i[0] == 0 {
                break;
            }
            for _ in 0..4 {
                if i[0] == 1 {
                    continue;
                }
            }
            while n > 0 {
                break;
            }
            continue;
        }
    });
    assert_all(
        &errors,
        2,
        "`break` and `continue` must be inside a loop of the kernel",
    );
}

#[test]
fn untiled_kernels_are_not_checked_for_uniformity() {
    // (Untiled kernels have no barriers; the check only runs for tiled
    // ones, and their control flow may depend on the index freely.)
    let errors = check_errors(quote! {
        d, |i: Index<1>| {
            if i[0] == 0 {
                return;
            }
            for _ in 0..i[0] {
                o[i] += 1;
            }
        }
    });
    assert_eq!(errors, Vec::<String>::new());
}
