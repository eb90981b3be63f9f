//! The one source of randomness is the kernel's (`arbiter_kernel::rng`): seeded and recorded,
//! or scripted for fixtures. Re-exported here for the Twilight Struggle rules.

pub use arbiter_kernel::rng::{Exhausted, Randomness};
