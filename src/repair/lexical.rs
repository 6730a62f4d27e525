//! The small lexical decisions of the repairer, as pure functions: which characters are
//! quotes and which quote closes which, special whitespace, keywords, and how a number-like
//! token is turned into valid JSON.

use super::RepairKind;
use std::borrow::Cow;

/// What closes a string, chosen by its opening quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    /// `"`: only `"` closes it.
    Double,
    /// `'`: only `'` closes it (so `"` and `’` inside are content).
    Single,
    /// `“ ” „ ‟`: any double-quote-like character closes it.
    DoubleLike,
    /// `‘ ’ ‚ ‛`, backtick, acute accent: any single-quote-like character closes it.
    SingleLike,
}

impl Quote {
    /// The quote class a character opens, if it is a quote.
    pub(super) fn of(c: char) -> Option<Quote> {
        match c {
            '"' => Some(Quote::Double),
            '\'' => Some(Quote::Single),
            '\u{201c}'..='\u{201f}' => Some(Quote::DoubleLike),
            '\u{2018}'..='\u{201b}' | '`' | '\u{b4}' => Some(Quote::SingleLike),
            _ => None,
        }
    }

    /// Whether `c` closes a string opened with this class.
    pub(super) fn closes(self, c: char) -> bool {
        match self {
            Quote::Double => c == '"',
            Quote::Single => c == '\'',
            Quote::DoubleLike => matches!(c, '"' | '\u{201c}'..='\u{201f}'),
            Quote::SingleLike => matches!(c, '\'' | '\u{2018}'..='\u{201b}' | '`' | '\u{b4}'),
        }
    }
}

/// Whitespace that is not JSON whitespace but reads as a space or as nothing (no-break and
/// typographic spaces, the Mongolian vowel separator, the zero-width space, the ideographic
/// space, a byte order mark).
pub(super) fn is_special_space(c: char) -> bool {
    matches!(c, '\u{a0}' | '\u{180e}' | '\u{2000}'..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
}

/// A character that may start an identifier (a keyword, a function name, an unquoted word).
pub(super) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

/// A character that may continue an identifier. Dots are allowed so that `JSON.parse(` and
/// `window.cb(` read as one function name.
pub(super) fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}

/// A keyword and the JSON it stands for, with the repair kind when it is not JSON's own.
pub(super) fn keyword(word: &str) -> Option<(&'static str, Option<RepairKind>)> {
    Some(match word {
        "true" => ("true", None),
        "false" => ("false", None),
        "null" => ("null", None),
        "True" => ("true", Some(RepairKind::PythonLiteral)),
        "False" => ("false", Some(RepairKind::PythonLiteral)),
        "None" => ("null", Some(RepairKind::PythonLiteral)),
        "undefined" | "NaN" | "Infinity" => ("null", Some(RepairKind::JsLiteral)),
        _ => return None,
    })
}

/// The MongoDB shell's type constructors (`ObjectId("…")`): at the top level a call of one
/// of these is a `mongo_wrapper` repair, any other call a `jsonp` one.
pub(super) fn is_mongo_type(name: &str) -> bool {
    matches!(
        name,
        "ObjectId"
            | "ISODate"
            | "Date"
            | "NumberLong"
            | "NumberInt"
            | "NumberDecimal"
            | "NumberDouble"
            | "Timestamp"
            | "BinData"
            | "UUID"
            | "HexData"
            | "DBRef"
            | "MinKey"
            | "MaxKey"
            | "RegExp"
    )
}

/// The literal a word cut off by the end of the input was going to be (`tr` → `true`).
pub(super) fn truncated_literal(word: &str) -> Option<&'static str> {
    ["true", "false", "null"].into_iter().find(|lit| lit.len() > word.len() && lit.starts_with(word))
}

/// What a number-like token (`[0-9A-Za-z_.+-]+` starting with a digit, sign or dot) is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NumberToken<'a> {
    /// Valid JSON number text, written as it is.
    Valid,
    /// Repaired number text and the repair kind (`number`, or `truncated` at the end).
    Fixed(Cow<'a, str>, RepairKind),
    /// A number JSON cannot hold as a number (`0789`, `0x1F`): kept as a string, kind `number`.
    Text,
    /// `NaN`, `Infinity` with a sign: `null`, kind `js_literal`.
    Null,
    /// Not a number at all (`1.2.3`, `12px`, a UUID): read as an unquoted string instead.
    NotANumber,
}

/// Classifies a number-like token. `at_end`: the token runs to the end of the input, so a
/// missing fraction or exponent digit is a truncation rather than a typo.
pub(super) fn number_token(tok: &str, at_end: bool) -> NumberToken<'_> {
    let b = tok.as_bytes();
    let (sign, body) = match b.first() {
        Some(b'-') => ("-", crate::text::sub(tok, 1..)),
        Some(b'+') => ("", crate::text::sub(tok, 1..)),
        _ => ("", tok),
    };
    let plus = b.first() == Some(&b'+');
    if body == "Infinity" || body == "NaN" {
        return NumberToken::Null;
    }
    if body.is_empty() {
        return if sign == "-" {
            NumberToken::Fixed(Cow::Borrowed("-0"), if at_end { RepairKind::Truncated } else { RepairKind::Number })
        } else {
            NumberToken::NotANumber
        };
    }
    if body == "." {
        // A lone dot: a number with no digits at all (as `jsonrepair` reads it).
        return NumberToken::Fixed(Cow::Owned(format!("{sign}0.0")), RepairKind::Number);
    }
    if body.starts_with("0x") || body.starts_with("0X") {
        // JSON has no hexadecimal numbers; the digits are kept, as a string.
        return if body.len() > 2 && crate::text::sub(body, 2..).bytes().all(|d| d.is_ascii_hexdigit()) {
            NumberToken::Text
        } else {
            NumberToken::NotANumber
        };
    }
    // int? (. frac?)? ([eE] [+-]? exp?)?, all of the body.
    let d = body.as_bytes();
    let digits = |mut i: usize| {
        let s = i;
        while i < d.len() && d[i].is_ascii_digit() {
            i += 1;
        }
        (s, i)
    };
    let (_, int_end) = digits(0);
    let mut i = int_end;
    let mut frac: Option<(usize, usize)> = None;
    if i < d.len() && d[i] == b'.' {
        let r = digits(i + 1);
        frac = Some(r);
        i = r.1;
    }
    let mut exp: Option<(usize, usize, usize)> = None; // (e index, digits start, end)
    if i < d.len() && (d[i] == b'e' || d[i] == b'E') && (int_end > 0 || frac.is_some_and(|f| f.1 > f.0)) {
        let mut j = i + 1;
        if j < d.len() && (d[j] == b'+' || d[j] == b'-') {
            j += 1;
        }
        let r = digits(j);
        exp = Some((i, r.0, r.1));
        i = r.1;
    }
    let frac_digits = frac.map_or(0, |f| f.1 - f.0);
    if i != d.len() || (int_end == 0 && frac_digits == 0) {
        return NumberToken::NotANumber;
    }
    if int_end > 1 && d[0] == b'0' {
        return NumberToken::Text;
    }
    let frac_empty = frac.is_some() && frac_digits == 0;
    let exp_empty = exp.is_some_and(|e| e.1 == e.2);
    if !plus && int_end > 0 && !frac_empty && !exp_empty {
        return NumberToken::Valid;
    }
    // Rebuild: sign, integer part (0 when missing), fraction and exponent completed with 0.
    let mut s = String::with_capacity(tok.len() + 2);
    s.push_str(sign);
    if int_end == 0 {
        s.push('0');
    }
    let frac_end = frac.map_or(int_end, |f| f.1);
    s.push_str(crate::text::sub(body, ..frac_end));
    if frac_empty {
        s.push('0');
    }
    if let Some((e, _, end)) = exp {
        s.push_str(crate::text::sub(body, e..end));
        if exp_empty {
            s.push('0');
        }
    }
    // A number cut short by the end of the input is a truncation; anything else a typo.
    let kind = if at_end && !plus && int_end > 0 && (exp_empty || (frac_empty && exp.is_none())) {
        RepairKind::Truncated
    } else {
        RepairKind::Number
    };
    NumberToken::Fixed(Cow::Owned(s), kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(tok: &str, at_end: bool) -> String {
        match number_token(tok, at_end) {
            NumberToken::Valid => tok.to_string(),
            NumberToken::Fixed(s, kind) => format!("{s} ({kind})"),
            NumberToken::Text => format!("\"{tok}\""),
            NumberToken::Null => "null".into(),
            NumberToken::NotANumber => "not a number".into(),
        }
    }

    #[test]
    fn numbers() {
        for (tok, at_end, want) in [
            ("0", false, "0"),
            ("-0.5e-3", false, "-0.5e-3"),
            ("123456789012345678901234567890", false, "123456789012345678901234567890"),
            ("+1", false, "1 (number)"),
            (".5", false, "0.5 (number)"),
            ("-.5", false, "-0.5 (number)"),
            ("5.", false, "5.0 (number)"),
            ("5.", true, "5.0 (truncated)"),
            ("2e", true, "2e0 (truncated)"),
            ("2e-", true, "2e-0 (truncated)"),
            ("2E+", false, "2E+0 (number)"),
            ("5.e3", false, "5.0e3 (number)"),
            ("-", true, "-0 (truncated)"),
            ("+", false, "not a number"),
            ("0789", false, "\"0789\""),
            ("-01", false, "\"-01\""),
            ("0x1F", false, "\"0x1F\""),
            ("-0xff", false, "\"-0xff\""),
            ("0x", false, "not a number"),
            ("0xFFFFFFFFFFFFFFFFF", false, "\"0xFFFFFFFFFFFFFFFFF\""),
            ("0x1G", false, "not a number"),
            ("-Infinity", false, "null"),
            ("+NaN", false, "null"),
            ("0.0.1", false, "not a number"),
            ("12px", false, "not a number"),
            ("2e3.4", false, "not a number"),
            (".", false, "0.0 (number)"),
            ("-.", false, "-0.0 (number)"),
            ("e5", false, "not a number"),
            (".e5", false, "not a number"),
        ] {
            assert_eq!(fixed(tok, at_end), want, "{tok:?}");
        }
    }

    #[test]
    fn quotes() {
        assert!(Quote::Double.closes('"') && !Quote::Double.closes('\u{201d}'));
        assert!(Quote::DoubleLike.closes('"') && Quote::DoubleLike.closes('\u{201d}'));
        assert!(Quote::SingleLike.closes('\'') && Quote::SingleLike.closes('`'));
        assert!(!Quote::Single.closes('\u{2019}'));
        assert_eq!(truncated_literal("tr"), Some("true"));
        assert_eq!(truncated_literal("true"), None);
        assert_eq!(truncated_literal("x"), None);
    }
}
