//! Bit sets over small indices (cards 1–110, countries 0–83), held in a `u128`.

/// The indices of the set bits of `m`, in ascending order.
pub fn set_bits(m: u128) -> SetBits {
    SetBits { lo: m as u64, hi: (m >> 64) as u64 }
}

/// The iterator of [`set_bits`]: the two 64-bit halves are walked one after the other, since
/// 128-bit shifts and counts take several instructions each (this runs for every listed move).
#[derive(Clone, Copy, Debug)]
pub struct SetBits {
    lo: u64,
    hi: u64,
}

impl Iterator for SetBits {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.lo != 0 {
            let i = self.lo.trailing_zeros() as u8;
            self.lo &= self.lo - 1;
            Some(i)
        } else if self.hi != 0 {
            let i = self.hi.trailing_zeros() as u8 + 64;
            self.hi &= self.hi - 1;
            Some(i)
        } else {
            None
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.lo.count_ones() + self.hi.count_ones()) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for SetBits {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_bits_lists_both_halves_in_order() {
        let m: u128 = 1 | 1 << 5 | 1 << 63 | 1 << 64 | 1 << 100 | 1 << 127;
        assert_eq!(set_bits(m).collect::<Vec<_>>(), vec![0, 5, 63, 64, 100, 127]);
        assert_eq!(set_bits(m).len(), 6);
        assert_eq!(set_bits(0).next(), None);
        assert_eq!(set_bits(u128::MAX).count(), 128);
    }
}
