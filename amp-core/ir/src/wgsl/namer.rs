//! The namer: every local and capture gets a WGSL name derived from its
//! Rust name that is neither a WGSL keyword, reserved word or predeclared
//! identifier nor taken already.

use std::collections::HashSet;

/// Names a generated name must avoid besides WGSL's keywords, reserved
/// words and predeclared identifiers (naga's lists, `naga::keywords::wgsl`)
/// and the `amp_` prefix of the writer's own names: the entry point, the
/// parameter block's type, and a word the WGSL drafts reserve that naga's
/// list leaves out.
const OWN_NAMES: &[&str] = &["main", "AmpParams", "binding_array"];

/// Whether `name` is a keyword, a reserved word, a predeclared identifier
/// or one of the writer's own names.
fn is_taken_by_wgsl(name: &str) -> bool {
    naga::keywords::wgsl::RESERVED.contains(&name)
        || naga::keywords::wgsl::BUILTIN_IDENTIFIERS.contains(&name)
        || OWN_NAMES.contains(&name)
}

/// Gives each entity a unique WGSL name derived from its Rust name.
#[derive(Debug, Default)]
pub(crate) struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// A unique, non-reserved WGSL identifier based on `base`.
    pub(crate) fn name(&mut self, base: &str) -> String {
        let mut stem: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if stem.is_empty() || stem.starts_with(|c: char| c.is_ascii_digit()) {
            stem.insert(0, 'v');
        }
        // `__` prefixes are reserved in WGSL; our own names use `amp_`.
        while stem.starts_with("__") {
            stem.remove(0);
        }
        if stem == "_" {
            stem = "v_".to_string();
        }
        if is_taken_by_wgsl(&stem) || stem.starts_with("amp_") {
            stem.push('_');
        }
        let mut name = stem.clone();
        let mut n = 1;
        while !self.taken.insert(name.clone()) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        name
    }

    /// Reserves an internal name (`amp_*`), which user names never take.
    pub(crate) fn internal(&mut self, name: &str) -> String {
        self.taken.insert(name.to_string());
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_namer_avoids_reserved_words_and_collisions() {
        let mut n = Namer::default();
        assert_eq!(n.name("sum"), "sum");
        assert_eq!(n.name("sum"), "sum_1");
        assert_eq!(n.name("loop"), "loop_");
        assert_eq!(n.name("loop"), "loop__1");
        assert_eq!(n.name("__x"), "_x");
        assert_eq!(n.name("select"), "select_");
        assert_eq!(n.name("main"), "main_");
        assert_eq!(n.name("amp_p"), "amp_p_");
        assert_eq!(n.name("_"), "v_");
        assert_eq!(n.name("1a"), "v1a");
        let naga_words = naga::keywords::wgsl::RESERVED
            .iter()
            .chain(naga::keywords::wgsl::BUILTIN_IDENTIFIERS);
        for word in naga_words.chain(OWN_NAMES) {
            let name = n.name(word);
            assert!(!is_taken_by_wgsl(&name), "{word} -> {name}");
            assert_ne!(&name, word);
        }
    }
}
