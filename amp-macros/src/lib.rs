//! Procedural macros of amp-rs.
