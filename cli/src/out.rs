//! Standard output that never panics: if the reader goes away (`arbiter log | head`), the
//! command stops quietly instead of crashing on a broken pipe.

use std::io::Write;

pub fn emit(args: std::fmt::Arguments, newline: bool) {
    let mut o = std::io::stdout().lock();
    let r = o.write_fmt(args).and_then(|_| if newline { o.write_all(b"\n") } else { o.flush() });
    if let Err(e) = r {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("arbiter: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// `println!` that handles a closed pipe.
#[macro_export]
macro_rules! say {
    () => { $crate::out::emit(format_args!(""), true) };
    ($($t:tt)*) => { $crate::out::emit(format_args!($($t)*), true) };
}

/// `print!` (no newline, flushed) that handles a closed pipe.
#[macro_export]
macro_rules! say_inline {
    ($($t:tt)*) => { $crate::out::emit(format_args!($($t)*), false) };
}
