use amp_core::prelude::*;

#[kernel]
fn checked_div(a: i32, b: i32) -> Option<i32> {
    if b == 0 { None } else { Some(a / b) }
}

fn main() {
    let _ = checked_div(1, 2);
}
