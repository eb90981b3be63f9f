//! Functions compiled for a processor feature checked at run time ([`dispatch!`]): the
//! baseline x86-64 the project builds for has no `popcnt` and stores 16 bytes at a time, and a
//! few hot loops (counting listed moves, writing the observation's planes) gain from more.

/// `dispatch!("feature", fn name(args) -> ret)` defines, in the calling module, `name`, which
/// runs `super::name` compiled with `feature` where the processor has it (checked at each call:
/// a cached flag) and as it is elsewhere. The same function both ways, so both paths answer
/// alike; the one `unsafe` call is guarded by the check.
macro_rules! dispatch {
    ($feature:tt, $(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        $(#[$doc])*
        pub(super) fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = $feature)]
                fn fast($($arg: $ty),*) $(-> $ret)? {
                    super::$name($($arg),*)
                }
                if std::arch::is_x86_feature_detected!($feature) {
                    // SAFETY: the processor has the feature (just checked).
                    return unsafe { fast($($arg),*) };
                }
            }
            super::$name($($arg),*)
        }
    };
}

pub(crate) use dispatch;
