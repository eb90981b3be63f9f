//! DEFCON (§8.1): region closures for coups and realignments.

use crate::map::Region;

/// §8.1.5: at DEFCON 4 no coups or realignments in Europe; at 3 also Asia; at 2 also the
/// Middle East. Free coups from events ignore this (§6.3.5).
pub fn closes(defcon: u8, region: Region) -> bool {
    match region {
        Region::Europe => defcon <= 4,
        Region::Asia => defcon <= 3,
        Region::MiddleEast => defcon <= 2,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(5, Region::Europe, false)]
    #[case(4, Region::Europe, true)]
    #[case(4, Region::Asia, false)]
    #[case(3, Region::Asia, true)]
    #[case(3, Region::MiddleEast, false)]
    #[case(2, Region::MiddleEast, true)]
    #[case(2, Region::CentralAmerica, false)]
    #[case(2, Region::SouthAmerica, false)]
    #[case(2, Region::Africa, false)]
    fn region_closures(#[case] defcon: u8, #[case] r: Region, #[case] closed: bool) {
        assert_eq!(closes(defcon, r), closed);
    }
}
