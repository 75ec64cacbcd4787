//! Stage tests of the kernel compiler (filled in by the next commit).
