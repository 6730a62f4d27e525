//! The closed list of repair kinds: every repair the repairer logs is one of these, and the
//! table on [`crate::repair_json`] documents each (a test holds the two equal).

/// Declares the kinds once: the enum, `ALL` in table order, and the stable names.
macro_rules! repair_kinds {
    ($($(#[$doc:meta])* $kind:ident => $name:literal,)*) => {
        /// What a repair fixed: one of the kinds of the repair table (README, `repairJson`).
        /// A repair's `kind` is its `as_str` name, the stable string that JS sees too.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
        pub enum RepairKind {
            $($(#[$doc])* #[cfg_attr(target_arch = "wasm32", serde(rename = $name))] $kind,)*
        }

        impl RepairKind {
            /// Every kind, in the order of the documented table.
            pub const ALL: &'static [RepairKind] = &[$(RepairKind::$kind,)*];

            /// The stable name (`"trailing_comma"`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RepairKind::$kind => $name,)*
                }
            }
        }
    };
}

repair_kinds! {
    /// Text that is not JSON before the first value or after the last one.
    Prose => "prose",
    /// A Markdown code fence (or brackets around one).
    Fence => "fence",
    /// A `//`, `/* */` or `#` comment.
    Comment => "comment",
    /// A special space (no-break, typographic, zero-width, byte order mark).
    Whitespace => "whitespace",
    /// A raw control character.
    ControlCharacter => "control_character",
    /// A string in quotes other than `"`.
    Quotes => "quotes",
    /// An unescaped quote inside a string.
    InnerQuote => "inner_quote",
    /// A string that lost its end (or start) quote.
    MissingQuote => "missing_quote",
    /// An escape JSON does not have.
    InvalidEscape => "invalid_escape",
    /// Escaped JSON outside a string.
    Stringified => "stringified",
    /// `"a" + "b"`.
    StringConcatenation => "string_concatenation",
    /// An object key without quotes.
    UnquotedKey => "unquoted_key",
    /// A string value without quotes (or bare text with no JSON in it).
    UnquotedString => "unquoted_string",
    /// `True`, `False`, `None`.
    PythonLiteral => "python_literal",
    /// `undefined`, `NaN`, `Infinity`.
    JsLiteral => "js_literal",
    /// A number JSON does not allow.
    Number => "number",
    /// A regular expression literal.
    Regex => "regex",
    /// A MongoDB constructor or any call in a value.
    MongoWrapper => "mongo_wrapper",
    /// A JSONP call around the document.
    Jsonp => "jsonp",
    /// A missing comma.
    MissingComma => "missing_comma",
    /// A comma before a closing bracket or at the end.
    TrailingComma => "trailing_comma",
    /// A comma with no value before it.
    ExtraComma => "extra_comma",
    /// A missing colon (or `=`, `=>`).
    MissingColon => "missing_colon",
    /// A key with no value.
    MissingValue => "missing_value",
    /// A value with no key.
    MissingKey => "missing_key",
    /// `...` or `…` in a container.
    Ellipsis => "ellipsis",
    /// A container left open inside another.
    MissingBracket => "missing_bracket",
    /// The wrong closing bracket.
    MismatchedBracket => "mismatched_bracket",
    /// A closing bracket that closes nothing.
    UnmatchedBracket => "unmatched_bracket",
    /// A stray `:` or `;`.
    Skipped => "skipped",
    /// The input ended inside a value.
    Truncated => "truncated",
    /// Several top-level values.
    Concatenated => "concatenated",
}

impl RepairKind {
    /// The kind named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<RepairKind> {
        RepairKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

impl std::fmt::Display for RepairKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
