//! Bit sets over small indices (cards 1–110, countries 0–83), held in a `u128`.

/// The indices of the set bits of `m`, in ascending order.
pub fn set_bits(mut m: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as u8;
            m &= m - 1;
            Some(i)
        }
    })
}
