//! Stage tests: a kernel's text in, one stage's result out, as naga's
//! `tests/in` -> `tests/out`.
//!
//! Each case is `tests/stages/<stage>/<case>.ir` (a kernel in the text form
//! of [`crate::text`]), and the expected result is `<case>.out` next to it:
//!
//! | stage | what `<case>.out` holds |
//! |---|---|
//! | `typeck` | the kernel after type reconstruction (literals typed, the front end's lowerings done), then the type of every local |
//! | `lower` | the kernel after the front end's lowerings alone (float methods WGSL lacks, `Index` captures' components, `a.extent`) |
//! | `fold` | the typed kernel after constant folding alone |
//! | `unroll` | the typed kernel after unrolling alone (which folds each copy) |
//! | `scalarize` | the typed kernel after scalar replacement of local arrays alone |
//! | `fences` | the typed kernel after the storage-fence relaxation alone |
//! | `optimize` | the typed kernel after every pass, as the WGSL writer gets it |
//! | `wgsl` | the WGSL that [`crate::lower_to_wgsl`] returns for [`crate::Target::default()`] |
//! | `resources` | the bytes [`crate::measure`] finds |
//!
//! A stage that fails gives `error: <the error>` as its result. Run with
//! `AMP_BLESS=1` to write the results as the new `.out` files (then read
//! them: they are the golden files).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::ir::*;
use crate::passes::{self, Fresh};
use crate::typeck::{self, Types};

/// Every local's type, in id order, with its name, as comment lines.
fn types_text(k: &Kernel, types: &Types) -> String {
    let mut names: BTreeMap<LocalId, &str> = BTreeMap::new();
    passes::visit::walk_stmts(&k.body, &mut |s| match &s.kind {
        StmtKind::Let { local, name, .. }
        | StmtKind::For {
            var: local, name, ..
        }
        | StmtKind::TileStatic { local, name, .. } => {
            names.insert(*local, name);
        }
        _ => {}
    });
    let ordered: BTreeMap<LocalId, &Type> = types.locals.iter().map(|(l, t)| (*l, t)).collect();
    let mut out = String::from("\n// types\n");
    for (l, t) in ordered {
        let _ = writeln!(
            out,
            "// %{} {}: {t}",
            l.0,
            names.get(&l).copied().unwrap_or("?")
        );
    }
    out
}

fn error(e: &crate::Error) -> String {
    format!("error: {e}\n")
}

/// The kernel after `pass`, run on the typed kernel.
fn after(mut k: Kernel, pass: impl FnOnce(&mut Kernel, &mut Types) -> crate::Result<()>) -> String {
    let mut types = match typeck::check(&mut k) {
        Ok(t) => t,
        Err(e) => return error(&e),
    };
    match pass(&mut k, &mut types) {
        Ok(()) => k.to_string(),
        Err(e) => error(&e),
    }
}

fn stage_typeck(mut k: Kernel) -> String {
    match typeck::check(&mut k) {
        Ok(types) => format!("{k}{}", types_text(&k, &types)),
        Err(e) => error(&e),
    }
}

fn stage_lower(mut k: Kernel) -> String {
    passes::lower::block(&mut k.body, &[]);
    passes::lower::geometry_captures(&mut k.body, &k.captures);
    k.to_string()
}

fn stage_fold(k: Kernel) -> String {
    after(k, |k, _| {
        passes::fold::block(&mut k.body);
        Ok(())
    })
}

fn stage_unroll(k: Kernel) -> String {
    after(k, |k, types| {
        let mut next = Fresh::after(&k.body, types);
        let mut budget = passes::unroll::TOTAL_BUDGET;
        passes::unroll::block(&mut k.body, types, &mut next, &mut budget)
    })
}

fn stage_scalarize(k: Kernel) -> String {
    after(k, |k, types| {
        let mut next = Fresh::after(&k.body, types);
        passes::scalarize::block(&mut k.body, types, &mut next);
        Ok(())
    })
}

fn stage_fences(k: Kernel) -> String {
    after(k, |k, _| {
        passes::fences::relax(&mut k.body);
        Ok(())
    })
}

fn stage_optimize(k: Kernel) -> String {
    after(k, passes::optimize)
}

fn stage_legalize(k: Kernel) -> String {
    after(k, |k, types| {
        passes::optimize(k, types)?;
        passes::legalize(k, types)
    })
}

fn stage_wgsl(k: Kernel) -> String {
    match crate::lower_to_wgsl(k, &crate::Target::default()) {
        Ok(source) => source,
        Err(e) => error(&e),
    }
}

fn stage_resources(k: Kernel) -> String {
    match crate::measure(k) {
        Ok(r) => format!(
            "local_bytes: {}\ntile_static_bytes: {}\n",
            r.local_bytes, r.tile_static_bytes
        ),
        Err(e) => error(&e),
    }
}

/// The directory of a stage's cases.
fn stage_dir(stage: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/stages")
        .join(stage)
}

/// Runs `stage` on every case of its directory and compares (or, with
/// `AMP_BLESS=1`, writes) the results.
fn run(stage: &str, f: fn(Kernel) -> String) {
    let dir = stage_dir(stage);
    let bless = std::env::var("AMP_BLESS").is_ok_and(|v| v == "1");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 4,
        "{stage}: {} cases, fewer than 4",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_stem().and_then(|s| s.to_str()).expect("a name");
        let text = std::fs::read_to_string(case).expect("the case");
        let file = format!("{stage}/{name}.ir");
        let kernel = crate::parse_kernel_in(&text, &file).unwrap_or_else(|e| panic!("{file}:{e}"));
        let got = f(kernel);
        let out = case.with_extension("out");
        if bless {
            std::fs::write(&out, &got).expect("the .out file written");
            continue;
        }
        let want = std::fs::read_to_string(&out).unwrap_or_default();
        if got != want {
            failures.push(format!(
                "{stage}/{name}: the result differs from {name}.out\n--- expected\n{want}\n--- got\n{got}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(run with AMP_BLESS=1 to accept the new results, then review them)",
        failures.join("\n")
    );
}

#[test]
fn typeck() {
    run("typeck", stage_typeck);
}

#[test]
fn lower() {
    run("lower", stage_lower);
}

#[test]
fn fold() {
    run("fold", stage_fold);
}

#[test]
fn unroll() {
    run("unroll", stage_unroll);
}

#[test]
fn scalarize() {
    run("scalarize", stage_scalarize);
}

#[test]
fn fences() {
    run("fences", stage_fences);
}

#[test]
fn optimize() {
    run("optimize", stage_optimize);
}

#[test]
fn legalize() {
    run("legalize", stage_legalize);
}

#[test]
fn wgsl() {
    run("wgsl", stage_wgsl);
}

#[test]
fn resources() {
    run("resources", stage_resources);
}

/// The leading `//` lines of a case (what it checks) and the rest.
fn split_header(text: &str) -> (String, String) {
    let mut header = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next_if(|l| l.trim_start().starts_with("//")) {
        header.push_str(l);
        header.push('\n');
    }
    let rest: String = lines.map(|l| format!("{l}\n")).collect();
    (header, rest)
}

/// Every case is in the printer's form after its header comment (so that
/// a case reads as the results do); `AMP_BLESS=1` rewrites the cases in
/// that form.
#[test]
fn cases_are_in_printed_form() {
    let bless = std::env::var("AMP_BLESS").is_ok_and(|v| v == "1");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stages");
    for stage in std::fs::read_dir(&root).expect("tests/stages") {
        let stage = stage.expect("a stage").path();
        if !stage.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&stage).expect("a stage directory") {
            let case = case.expect("a case").path();
            if case.extension().is_none_or(|x| x != "ir") {
                continue;
            }
            let text = std::fs::read_to_string(&case).expect("the case");
            let (header, body) = split_header(&text);
            let printed = crate::parse_kernel(&body)
                .unwrap_or_else(|e| panic!("{}:{e}", case.display()))
                .to_string();
            if bless {
                if printed != body {
                    std::fs::write(&case, format!("{header}{printed}")).expect("the case written");
                }
            } else {
                assert_eq!(printed, body, "{}", case.display());
            }
        }
    }
}
