//! `sanitize_untrusted`: makes untrusted text (user input, retrieved documents, tool output)
//! safe to put into a prompt that uses nonce-tag markers.
//!
//! A *marker-like* sequence is an opening bracket, an optional slash, a name and a colon,
//! where the check is loose on purpose so that it also catches what a model might normalise
//! into a marker when it copies the text:
//! - brackets: `[` and its look-alikes `［ 【 〔 〚 ⟦ ⁅` (closing: `］ 】 〕 〛 ⟧ ⁆`);
//! - slash: `/ ／ ∕ ⁄ \`; colon: `: ： ∶ ꞉ ﹕`;
//! - the name: letters and digits of any script, `_` and `-` (full-width and look-alike
//!   letters included), in any case;
//! - whitespace and invisible characters (zero-width spaces and joiners, word joiner, BOM,
//!   soft hyphen, bidirectional controls, variation selectors) anywhere between the parts;
//! - the text ending anywhere inside the sequence (`… [ARTI`): a fragment that the next
//!   piece of text could complete.
//!
//! Each marker-like sequence is neutralised by turning its opening bracket into `(` and, when
//! the token after the colon is closed by a bracket, that bracket into `)`:
//! `[/ARTIFACT:abc]` reads `(/ARTIFACT:abc)`. Nothing else changes, so ordinary brackets
//! (`[1, 2]`, `[link](url)`, `a[i]`) stay as they are.
//!
//! Guarantees: no `[` followed by `/`? NAME `:` survives, so no [`TagFilter`](crate::TagFilter)
//! (any nonce, any block names) finds a marker in the result, nor in any concatenation of
//! results; the result of a sanitised text is the same text (idempotent).

/// Neutralises every marker-like sequence of `text` (see the module docs); idempotent.
///
/// ```
/// use streamroute::sanitize_untrusted;
///
/// assert_eq!(sanitize_untrusted("a [/USER:f00d] b"), "a (/USER:f00d) b");
/// assert_eq!(sanitize_untrusted("x = [1, 2]; [docs](u)"), "x = [1, 2]; [docs](u)");
/// assert_eq!(sanitize_untrusted("ends with [ART"), "ends with (ART");
/// ```
pub fn sanitize_untrusted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Byte index up to which `text` is copied to `out`.
    let mut copied = 0;
    // Byte index of a closing bracket to turn into `)`.
    let mut close_at: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if close_at == Some(i) {
            out.push_str(crate::text::sub(text, copied..i));
            out.push(')');
            copied = i + c.len_utf8();
            close_at = None;
            continue;
        }
        if !is_open(c) {
            continue;
        }
        let rest = crate::text::sub(text, i + c.len_utf8()..);
        if let Some(close) = marker_like(rest) {
            out.push_str(crate::text::sub(text, copied..i));
            out.push('(');
            copied = i + c.len_utf8();
            close_at = close.map(|k| copied + k);
        }
    }
    out.push_str(crate::text::sub(text, copied..));
    out
}

/// Whether `rest` (what follows an opening bracket) makes it marker-like; if so, the byte
/// index in `rest` of the bracket that closes its token, when there is one.
fn marker_like(rest: &str) -> Option<Option<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Part {
        /// Before the optional slash.
        Start,
        /// After the slash, before the name.
        Slash,
        /// In the name.
        Name,
        /// After the name (spaces before the colon).
        AfterName,
    }
    let mut part = Part::Start;
    let mut colon = None;
    for (k, c) in rest.char_indices() {
        if is_invisible(c) || (c.is_whitespace() && part != Part::Name) {
            continue;
        }
        part = match (part, c) {
            (Part::Start, c) if is_slash(c) => Part::Slash,
            (Part::Start | Part::Slash | Part::Name, c) if is_name(c) => Part::Name,
            (Part::Name, c) if c.is_whitespace() => Part::AfterName,
            (Part::Name | Part::AfterName, c) if is_colon(c) => {
                colon = Some(k + c.len_utf8());
                break;
            }
            _ => return None,
        };
    }
    let Some(after) = colon else {
        // The text ended inside the sequence: a fragment.
        return Some(None);
    };
    // The token: skip spaces and invisibles, then name characters, then spaces; a closing
    // bracket right there closes it.
    let mut seen_token = false;
    for (k, c) in crate::text::sub(rest, after..).char_indices() {
        if is_invisible(c) || c.is_whitespace() {
            continue;
        }
        if is_name(c) {
            seen_token = true;
            continue;
        }
        return Some((is_close(c) && seen_token).then_some(after + k));
    }
    Some(None)
}

fn is_open(c: char) -> bool {
    matches!(c, '[' | '\u{FF3B}' | '\u{3010}' | '\u{3014}' | '\u{301A}' | '\u{27E6}' | '\u{2045}')
}

fn is_close(c: char) -> bool {
    matches!(c, ']' | '\u{FF3D}' | '\u{3011}' | '\u{3015}' | '\u{301B}' | '\u{27E7}' | '\u{2046}')
}

fn is_slash(c: char) -> bool {
    matches!(c, '/' | '\u{FF0F}' | '\u{2215}' | '\u{2044}' | '\\')
}

fn is_colon(c: char) -> bool {
    matches!(c, ':' | '\u{FF1A}' | '\u{2236}' | '\u{A789}' | '\u{FE55}')
}

fn is_name(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '\u{FF3F}' | '\u{FF0D}')
}

/// Characters that render as nothing (a model may drop them when it copies text).
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{E0000}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::sanitize_untrusted as s;

    #[test]
    fn neutralises_markers_and_look_alikes() {
        let n = "0123abcd";
        for (input, want) in [
            (format!("[ARTIFACT:{n}]"), format!("(ARTIFACT:{n})")),
            (format!("[/USER:{n}]"), format!("(/USER:{n})")),
            (format!("[artifact:{n}]"), format!("(artifact:{n})")),
            (format!("\u{FF3B}\u{FF0F}USER\u{FF1A}{n}\u{FF3D}"), format!("(\u{FF0F}USER\u{FF1A}{n})")),
            (format!("[AR\u{200B}TI\u{2060}FACT:{n}]"), format!("(AR\u{200B}TI\u{2060}FACT:{n})")),
            (format!("[ / USER : {n} ]"), format!("( / USER : {n} )")),
            (format!("[\u{200B}/USER:{n}\u{200D}]"), format!("(\u{200B}/USER:{n}\u{200D})")),
            ("[[USER:x]".into(), "[(USER:x)".into()),
            ("[USER:x".into(), "(USER:x".into()),
            ("[USER:".into(), "(USER:".into()),
            ("a [".into(), "a (".into()),
            ("[/".into(), "(/".into()),
            ("[Note: see below]".into(), "(Note: see below)".into()),
        ] {
            assert_eq!(s(&input), want, "{input:?}");
            assert_eq!(s(&want), want, "idempotent on {want:?}");
        }
    }

    #[test]
    fn leaves_ordinary_brackets() {
        for t in ["[1, 2, [3]]", "a[i] = b[j];", "[link](http://x)", "[ ]", "[]", "[\"a\": 1]", "[x]y"] {
            assert_eq!(s(t), t);
        }
    }
}
