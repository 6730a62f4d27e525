//! The ISO 639-1 language codes (the two-letter codes of the standard's current list).

/// Every ISO 639-1 code, sorted, two bytes each. One byte string rather than an array of
/// `&str`: in wasm32 each `&str` is an 8-byte pointer and length, four times the code itself.
const CODES: &[u8] = concat!(
    "aaabaeafakamanarasavayazbabebgbibmbnbobrbscacechcocrcscucvcydadedvdzeeeleneoeset",
    "eufafffifjfofrfygagdglgngugvhahehihohrhthuhyhziaidieigiiikioisitiujajvkakgkikjkk",
    "klkmknkokrkskukvkwkylalblglilnloltlulvmgmhmimkmlmnmrmsmtmynanbndnengnlnnnonrnvny",
    "ocojomorospapiplpsptqurmrnrorurwsascsdsesgsiskslsmsnsosqsrssstsusvswtatetgthtitk",
    "tltntotrtstttwtyugukuruzvevivowawoxhyiyozazhzu",
)
.as_bytes();

/// Whether `code` is an ISO 639-1 code (lowercase, as the standard writes them).
pub(crate) fn is_iso639_1(code: &str) -> bool {
    let Ok(code) = <[u8; 2]>::try_from(code.as_bytes()) else {
        return false;
    };
    // A binary search over the two-byte codes.
    let (mut lo, mut hi) = (0, CODES.len() / 2);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match CODES.get(2 * mid..2 * mid + 2).map(|c| c.cmp(&code[..])) {
            Some(std::cmp::Ordering::Less) => lo = mid + 1,
            Some(std::cmp::Ordering::Greater) => hi = mid,
            Some(std::cmp::Ordering::Equal) => return true,
            None => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_unique() {
        assert_eq!(super::CODES.len() % 2, 0);
        let codes: Vec<&[u8]> = super::CODES.chunks_exact(2).collect();
        assert_eq!(codes.len(), 183);
        assert!(codes.windows(2).all(|w| w[0] < w[1]));
        assert!(super::CODES.iter().all(u8::is_ascii_lowercase));
    }

    #[test]
    fn lookups() {
        for code in ["aa", "en", "zu", "de", "pt"] {
            assert!(super::is_iso639_1(code), "{code}");
        }
        for code in ["", "e", "eng", "EN", "a\u{e9}", "zz", "ab ", "\u{e9}"] {
            assert!(!super::is_iso639_1(code), "{code:?}");
        }
    }
}
