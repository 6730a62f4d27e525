//! JSON number text to `f64` and back, the one place the crate converts floats.
//!
//! Natively this is core's correctly rounded parser and shortest round-trip formatter. In the
//! wasm build both come from the JS host instead (`Number(text)` and `String(x)`, through
//! `crate::wasm::host`): they give the same values, and core's float code (the formatter, the
//! parser and its table of powers of five) stays out of the `.wasm` (bench/README.md,
//! "Measurements behind design choices").
//! Only the text of a formatted number can differ between the two (`1e21` from JS,
//! `1000000000000000000000` from Rust); what it reads back as is the same.

/// The value of `text` when it is JSON number text (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
/// else `None`. Out-of-range text reads as an infinity, as in both hosts.
pub(crate) fn parse_f64(text: &str) -> Option<f64> {
    is_json_number(text.as_bytes()).then(|| host::parse(text))
}

/// `x` as JSON number text; `None` for NaN and the infinities, which JSON cannot write.
pub(crate) fn f64_text(x: f64) -> Option<String> {
    x.is_finite().then(|| host::format(x))
}

/// Any `f64` for a message: its number text, or `NaN`, `Infinity`, `-Infinity` as JS writes them.
pub(crate) fn show(x: f64) -> String {
    f64_text(x).unwrap_or_else(|| {
        if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    })
}

fn is_json_number(b: &[u8]) -> bool {
    let digits = |i: usize| b[i.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    pub(super) fn parse(text: &str) -> f64 {
        // JSON number text is always in the grammar core's parser reads.
        text.parse().unwrap_or(f64::NAN)
    }
    pub(super) fn format(x: f64) -> String {
        format!("{x}")
    }
}

#[cfg(target_arch = "wasm32")]
mod host {
    pub(super) fn parse(text: &str) -> f64 {
        crate::wasm::host::host_number(text)
    }
    pub(super) fn format(x: f64) -> String {
        crate::wasm::host::host_number_text(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json_number_text_only() {
        for (t, want) in
            [("0", Some(0.0)), ("-0.5", Some(-0.5)), ("1e3", Some(1000.0)), ("2.5E-1", Some(0.25)), ("-12.75e+1", Some(-127.5))]
        {
            assert_eq!(parse_f64(t), want, "{t}");
        }
        assert_eq!(parse_f64("1e400"), Some(f64::INFINITY));
        for t in ["", "-", "01", "1.", ".5", "+1", "1e", "1e+", "inf", "NaN", "0x10", " 1", "1 ", "1.5.2", "--1"] {
            assert_eq!(parse_f64(t), None, "{t:?}");
        }
    }

    #[test]
    fn formats_finite_numbers_only() {
        assert_eq!(f64_text(0.25).as_deref(), Some("0.25"));
        assert_eq!(f64_text(3.0).as_deref(), Some("3"));
        assert_eq!(f64_text(f64::NAN), None);
        assert_eq!(f64_text(f64::NEG_INFINITY), None);
        assert_eq!(
            [show(1.5), show(f64::NAN), show(f64::INFINITY), show(f64::NEG_INFINITY)],
            ["1.5", "NaN", "Infinity", "-Infinity"]
        );
    }
}
