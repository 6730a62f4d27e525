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
    let codes = CODES.as_chunks::<2>().0;
    codes.binary_search(&code).is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_unique() {
        let (codes, rest) = super::CODES.as_chunks::<2>();
        assert!(rest.is_empty());
        assert_eq!(codes.len(), 183);
        assert!(codes.windows(2).all(|w| w[0] < w[1]));
        assert!(codes.iter().flatten().all(u8::is_ascii_lowercase));
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
