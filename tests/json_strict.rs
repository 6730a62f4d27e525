//! Strict-mode (RFC 8259) conformance of the shared JSON tokenizer and of the whole-document
//! tokenizer (`parse_strict_document`), which must agree with it on every document.
//!
//! - A table of `y_` documents (must be accepted) and `n_` documents (must be rejected),
//!   written for this project in the spirit of the JSONTestSuite categories. Every document
//!   runs whole, byte by byte and at random splits (`common::assert_chunk_invariant`) through
//!   `parse_strict_chunks`, must agree with `parse_strict` (whole input) and with the public
//!   streaming parser `PartialJson`, and is checked against serde_json: accepted values equal
//!   serde_json's, rejected documents are rejected by serde_json too.
//! - Escape decoding at every chunk boundary, surrogate pairs, lone surrogates → U+FFFD.
//! - A differential test against serde_json on random values (printed compact and pretty,
//!   with random `\uXXXX` escaping and whitespace) and on random byte mutations.
//! - The caps: depth (512 by default; 100 000 open brackets are an error, not a crash) and
//!   the pending-token cap.
//!
//! Documented differences from serde_json (1.0, `from_slice`):
//! - A lone surrogate escape (`"\ud800"`, `"\udc00"`, a high surrogate not followed by a
//!   low one) is accepted and decoded as U+FFFD; serde_json rejects it. RFC 8259 §8.2 says
//!   the behaviour of such strings is unpredictable; JSON text from models does contain them.
//!   The differential checks compare us on a document with serde_json on the same document
//!   with each lone surrogate escape replaced by `\ufffd` ([`lone_surrogates_to_fffd`]).
//! - Nesting: we accept up to 512 levels (`json_too_deep` beyond), serde_json up to 128
//!   ("recursion limit exceeded"). Documents between the two limits are not compared.
//! - A byte order mark (EF BB BF) before the value is rejected, as serde_json does. RFC 8259
//!   §8.1 says implementations MAY ignore one; strict mode does not, because a BOM in a
//!   model's or a server's JSON stream is a framing error worth reporting.

mod common;
#[path = "common/first_wins.rs"]
mod first_wins;

use common::{assert_chunk_invariant, random_split, seed, Rng};
use serde_json::Value;
use streamroute::{parse_strict, parse_strict_chunks, parse_strict_document, Error, JsonValue, PartialJson, PartialJsonOptions};

// ---- The y_ table: must be accepted ---------------------------------------------------------

/// Documents RFC 8259 accepts (serde_json too, lone surrogates aside; see the header).
#[rustfmt::skip]
const Y: &[(&str, &[u8])] = &[
    // Arrays.
    ("y_array_empty", b"[]"),
    ("y_array_empty_with_space", b"[ ]"),
    ("y_array_empty_with_all_whitespace", b" [ \t\r\n] "),
    ("y_array_one_number", b"[1]"),
    ("y_array_one_string", br#"["x"]"#),
    ("y_array_one_empty_string", br#"[""]"#),
    ("y_array_true", b"[true]"),
    ("y_array_false", b"[false]"),
    ("y_array_null", b"[null]"),
    ("y_array_three_nulls", b"[null,null,null]"),
    ("y_array_heterogeneous", br#"[null, 1, "1", {}, [], true]"#),
    ("y_array_nested_empty", b"[[[]]]"),
    ("y_array_nested_numbers", b"[[1],[2,[3,[4]]]]"),
    ("y_array_of_objects", br#"[{},{"a":1},{"b":[]}]"#),
    ("y_array_space_before_comma", b"[1 ,2]"),
    ("y_array_space_after_comma", b"[1, 2]"),
    ("y_array_newlines", b"[\n1\n,\n2\n]"),
    ("y_array_crlf", b"[\r\n1\r\n]"),
    ("y_array_tabs", b"[\t1\t,\t2\t]"),
    ("y_array_ending_with_newline", b"[\"a\"]\n"),
    ("y_array_leading_whitespace", b"   [1]"),
    ("y_array_empty_strings", br#"["","",""]"#),
    ("y_array_closing_after_string_with_bracket", br#"["]"]"#),
    ("y_array_string_with_comma", br#"["a,b", "c"]"#),
    // Objects.
    ("y_object_empty", b"{}"),
    ("y_object_empty_with_space", b"{ }"),
    ("y_object_empty_with_all_whitespace", b"{\t\r\n }"),
    ("y_object_basic", br#"{"a":"b"}"#),
    ("y_object_spaces_everywhere", br#" { "a" : "b" , "c" : 1 } "#),
    ("y_object_three_members", br#"{"a":1,"b":2,"c":3}"#),
    ("y_object_duplicate_key", br#"{"a":1,"a":2}"#),
    ("y_object_duplicate_key_and_value", br#"{"a":"b","a":"b"}"#),
    ("y_object_duplicate_key_interleaved", br#"{"a":1,"b":2,"a":3}"#),
    ("y_object_empty_key", br#"{"":0}"#),
    ("y_object_escaped_key", br#"{"\"\\\/\b\f\n\r\t":1}"#),
    ("y_object_unicode_escaped_key", br#"{"\u00e9t\u00E9":1}"#),
    ("y_object_nul_escaped_key", br#"{"\u0000":1}"#),
    ("y_object_surrogate_pair_key", br#"{"\ud83d\ude00":"smile"}"#),
    ("y_object_nested", br#"{"a":{"b":{"c":{}}}}"#),
    ("y_object_array_value", br#"{"a":[1,2,{"b":null}]}"#),
    ("y_object_utf8_key", "{\"cl\u{e9}\":\"\u{e9}\"}".as_bytes()),
    ("y_object_emoji_key", "{\"\u{1F511}\":[\"\u{1F5DD}\"]}".as_bytes()),
    ("y_object_newlines", b"{\n\"a\"\n:\n1\n}"),
    ("y_object_string_with_brackets", br#"{"a":"}{][,:"}"#),
    ("y_object_key_with_colon_and_comma", br#"{"a:b,c":"d,e:f"}"#),
    ("y_object_long_key", br#"{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":1}"#),
    ("y_object_members_of_every_type", br#"{"s":"x","n":-1.5e3,"t":true,"f":false,"z":null,"a":[],"o":{}}"#),
    ("y_object_key_looks_like_number", br#"{"1":1,"-2.5":2}"#),
    // Numbers.
    ("y_number_zero", b"0"),
    ("y_number_minus_zero", b"-0"),
    ("y_number_int", b"123"),
    ("y_number_negative_int", b"-123"),
    ("y_number_one_digit", b"9"),
    ("y_number_minus_one", b"-1"),
    ("y_number_zero_fraction", b"0.0"),
    ("y_number_fraction", b"1.5"),
    ("y_number_negative_fraction", b"-1.5"),
    ("y_number_minus_zero_fraction", b"-0.0"),
    ("y_number_zero_point_digits", b"0.000001"),
    ("y_number_exponent", b"1e2"),
    ("y_number_capital_exponent", b"1E2"),
    ("y_number_exponent_plus", b"1e+2"),
    ("y_number_capital_exponent_plus", b"1E+2"),
    ("y_number_exponent_minus", b"1e-2"),
    ("y_number_capital_exponent_minus", b"1E-2"),
    ("y_number_fraction_exponent", b"1.5e3"),
    ("y_number_negative_fraction_exponent", b"-1.25E-3"),
    ("y_number_zero_exponent", b"0e0"),
    ("y_number_zero_capital_exponent_plus", b"0E+0"),
    ("y_number_minus_zero_exponent", b"-0e-0"),
    ("y_number_minus_zero_fraction_exponent", b"-0.0e-0"),
    ("y_number_exponent_leading_zeros", b"1e007"),
    ("y_number_huge_exponent", b"1e999999"),
    ("y_number_huge_negative_exponent", b"1e-999999"),
    ("y_number_huge_exponent_digits", b"0.4e0066999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"),
    ("y_number_real_underflow", b"123e-10000000"),
    ("y_number_trailing_fraction_zeros", b"1.000"),
    ("y_number_big_int", b"123456789012345678901234567890"),
    ("y_number_big_negative_int", b"-123456789012345678901234567890"),
    ("y_number_long_fraction", b"0.000000000000000000000000000000000000000000000000000000000000000001"),
    ("y_number_past_max_safe_int", b"9007199254740993"),
    ("y_number_u64_max", b"18446744073709551615"),
    ("y_number_i64_min", b"-9223372036854775808"),
    ("y_number_past_u64", b"18446744073709551616"),
    ("y_number_pi", b"3.141592653589793238462643383279502884197169399375105820974944"),
    ("y_number_in_array", b"[1,-2,3.5,-0,0e1]"),
    ("y_number_surrounded_by_whitespace", b"  42  "),
    ("y_number_then_newline", b"7\n"),
    ("y_number_then_crlf", b"7\r\n"),
    ("y_number_in_object", br#"{"n":-0.5e-5}"#),
    ("y_number_before_close_bracket", b"[0]"),
    ("y_number_before_close_brace", br#"{"a":10}"#),
    ("y_number_double_close_to_zero", b"[-0.000000000000000000000000000000000000000000000000000000000000000000000000000001]"),
    ("y_number_after_space_in_array", b"[ 4]"),
    // Strings.
    ("y_string_empty", br#""""#),
    ("y_string_simple", br#""abc""#),
    ("y_string_space", br#"" ""#),
    ("y_string_escape_quote", br#""\"""#),
    ("y_string_escape_backslash", br#""\\""#),
    ("y_string_escape_slash", br#""\/""#),
    ("y_string_escape_b", br#""\b""#),
    ("y_string_escape_f", br#""\f""#),
    ("y_string_escape_n", br#""\n""#),
    ("y_string_escape_r", br#""\r""#),
    ("y_string_escape_t", br#""\t""#),
    ("y_string_all_escapes", br#""\"\\\/\b\f\n\r\t""#),
    ("y_string_escapes_between_text", br#""a\"b\\c\/d\be\ff\ng\rh\ti""#),
    ("y_string_double_escaped_backslash", br#""\\\\""#),
    ("y_string_escaped_backslash_then_u", br#""\\u0041""#),
    ("y_string_u_nul", br#""\u0000""#),
    ("y_string_u_unit_separator", br#""\u001f""#),
    ("y_string_u_space", br#""\u0020""#),
    ("y_string_u_quote", br#""\u0022""#),
    ("y_string_u_backslash", br#""\u005c""#),
    ("y_string_u_del", br#""\u007F""#),
    ("y_string_u_lowercase_hex", br#""\u00e9""#),
    ("y_string_u_uppercase_hex", br#""\u00E9""#),
    ("y_string_u_mixed_case_hex", br#""\uAbCd""#),
    ("y_string_u_two_byte_max", br#""\u07ff""#),
    ("y_string_u_three_byte_min", br#""\u0800""#),
    ("y_string_u_noncharacter_fffe", br#""\uFFFE""#),
    ("y_string_u_noncharacter_ffff", br#""\uffff""#),
    ("y_string_u_noncharacter_fdd0", br#""\uFDD0""#),
    ("y_string_u_replacement", br#""\uFFFD""#),
    ("y_string_u_line_separator", br#""\u2028\u2029""#),
    ("y_string_u_several", br#""\u0041\u0042\u0043""#),
    ("y_string_surrogate_pair", br#""\ud83d\ude00""#),
    ("y_string_surrogate_pair_uppercase", br#""\uD834\uDD1E""#),
    ("y_string_surrogate_pair_min", br#""\uD800\uDC00""#),
    ("y_string_surrogate_pair_max", br#""\uDBFF\uDFFF""#),
    ("y_string_two_surrogate_pairs", br#""\ud83d\ude00\ud83d\ude01""#),
    ("y_string_surrogate_pair_between_text", br#""a\ud83d\ude00b""#),
    ("y_string_utf8_two_bytes", "\"\u{e9}\"".as_bytes()),
    ("y_string_utf8_three_bytes", "\"\u{20ac}\"".as_bytes()),
    ("y_string_utf8_four_bytes", "\"\u{1F600}\"".as_bytes()),
    ("y_string_utf8_max_code_point", b"\"\xF4\x8F\xBF\xBF\""),
    ("y_string_utf8_min_four_bytes", b"\"\xF0\x90\x80\x80\""),
    ("y_string_utf8_noncharacter", b"\"\xEF\xBF\xBF\""),
    ("y_string_utf8_before_surrogates", b"\"\xED\x9F\xBF\""),
    ("y_string_utf8_after_surrogates", b"\"\xEE\x80\x80\""),
    ("y_string_utf8_bom_inside", b"\"\xEF\xBB\xBF\""),
    ("y_string_utf8_line_separators", "\"\u{2028}\u{2029}\"".as_bytes()),
    ("y_string_utf8_nbsp", "\"\u{a0}\"".as_bytes()),
    ("y_string_utf8_mixed_widths", "\"a\u{e9}\u{4e16}\u{1F30D}z\"".as_bytes()),
    ("y_string_unescaped_del", b"\"\x7f\""),
    ("y_string_comment_inside", br#""/* not a comment */ // nor this""#),
    ("y_string_single_quote", br#""'""#),
    ("y_string_structural_chars", br#""[]{},:""#),
    ("y_string_escape_then_utf8", "\"\\n\u{20ac}\"".as_bytes()),
    ("y_string_utf8_then_escape", "\"\u{20ac}\\n\"".as_bytes()),
    ("y_string_nul_between_text", br#""a\u0000b""#),
    ("y_string_with_del_in_key", b"{\"\x7f\":\"\x7f\"}"),
    // Lone surrogate escapes: accepted, each becomes U+FFFD (expected values below).
    ("y_string_lone_high_surrogate", br#""\ud800""#),
    ("y_string_lone_low_surrogate", br#""\udc00""#),
    ("y_string_lone_high_then_text", br#""\ud800abc""#),
    ("y_string_lone_high_then_escape", br#""\ud800\n""#),
    ("y_string_lone_high_then_bmp_escape", br#""\ud800\u0041""#),
    ("y_string_lone_high_then_pair", br#""\ud800\ud83d\ude00""#),
    ("y_string_lone_low_then_high", br#""\udc00\ud800""#),
    ("y_string_two_high_surrogates", br#""\uD800\uD800""#),
    ("y_string_two_low_surrogates", br#""\udfff\udc00""#),
    ("y_string_reversed_pair", br#""\ude00\ud83d""#),
    ("y_string_lone_high_then_escaped_quote", br#""\uD800\"""#),
    ("y_string_lone_high_then_escaped_backslash", br#""\ud800\\""#),
    ("y_string_lone_high_then_utf8", "\"\\ud800\u{e9}\"".as_bytes()),
    ("y_object_lone_surrogate_key", br#"{"\ud800":1}"#),
    // Literals.
    ("y_literal_true", b"true"),
    ("y_literal_false", b"false"),
    ("y_literal_null", b"null"),
    ("y_literal_true_with_whitespace", b" true "),
    ("y_literal_all_in_array", b"[true,false,null]"),
    ("y_literal_all_in_object", br#"{"t":true,"f":false,"n":null}"#),
    ("y_literal_nested", b"[[true],[[false]],{\"x\":[null]}]"),
    // Top-level values and structure.
    ("y_structure_top_string", br#""x""#),
    ("y_structure_top_int", b"1"),
    ("y_structure_top_null_after_newline", b"\nnull"),
    ("y_structure_whitespace_around", b"\t\n\r 1 \r\n\t"),
    ("y_structure_whitespace_only_jsons", b" \n[ \n{ \n\"a\" \n: \n[ \n] \n} \n] \n"),
    ("y_structure_twenty_nested_arrays", b"[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]"),
    ("y_structure_ten_nested_objects", br#"{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{}}}}}}}}}}}"#),
    ("y_structure_alternating_nesting", br#"[{"a":[{"b":[{"c":[]}]}]}]"#),
    ("y_structure_string_then_whitespace", b"\"a\" \n"),
    ("y_structure_object_then_whitespace", b"{} \t"),
    ("y_structure_true_in_array_ws", b"[ true ]"),
    ("y_structure_everything", br#"{"name":"caf\u00e9","tags":["a","b"],"n":[0,-0,1e-3,2E+4],"ok":true,"none":null,"nested":{"deep":[[[{}]]]}}"#),
];

/// The decoding of the lone-surrogate cases, where serde_json cannot be the reference:
/// (case name, the string value or, for an object, its only key).
#[rustfmt::skip]
const LONE_SURROGATES: &[(&str, &str)] = &[
    ("y_string_lone_high_surrogate", "\u{FFFD}"),
    ("y_string_lone_low_surrogate", "\u{FFFD}"),
    ("y_string_lone_high_then_text", "\u{FFFD}abc"),
    ("y_string_lone_high_then_escape", "\u{FFFD}\n"),
    ("y_string_lone_high_then_bmp_escape", "\u{FFFD}A"),
    ("y_string_lone_high_then_pair", "\u{FFFD}\u{1F600}"),
    ("y_string_lone_low_then_high", "\u{FFFD}\u{FFFD}"),
    ("y_string_two_high_surrogates", "\u{FFFD}\u{FFFD}"),
    ("y_string_two_low_surrogates", "\u{FFFD}\u{FFFD}"),
    ("y_string_reversed_pair", "\u{FFFD}\u{FFFD}"),
    ("y_string_lone_high_then_escaped_quote", "\u{FFFD}\""),
    ("y_string_lone_high_then_escaped_backslash", "\u{FFFD}\\"),
    ("y_string_lone_high_then_utf8", "\u{FFFD}\u{e9}"),
    ("y_object_lone_surrogate_key", "\u{FFFD}"),
];

// ---- The n_ table: must be rejected ---------------------------------------------------------

/// Documents RFC 8259 rejects (serde_json too). All give `json_invalid`.
#[rustfmt::skip]
const N: &[(&str, &[u8])] = &[
    // Empty input and whitespace.
    ("n_structure_empty", b""),
    ("n_structure_only_space", b" "),
    ("n_structure_only_whitespace", b" \t\r\n"),
    ("n_whitespace_form_feed_before", b"\x0c[]"),
    ("n_whitespace_form_feed_in_array", b"[\x0c]"),
    ("n_whitespace_vertical_tab", b"[\x0b1]"),
    ("n_whitespace_nbsp_before", b"\xC2\xA0[]"),
    ("n_whitespace_nbsp_in_array", b"[\xC2\xA01]"),
    ("n_whitespace_ideographic_space", b"[\xE3\x80\x801]"),
    ("n_whitespace_line_separator", b"[1\xE2\x80\xA8]"),
    ("n_whitespace_zero_width_space", b"\xE2\x80\x8B1"),
    ("n_whitespace_nul_in_array", b"[\x00]"),
    ("n_whitespace_nul_after_value", b"1\x00"),
    ("n_whitespace_form_feed_after", b"[]\x0c"),
    // Byte order marks.
    ("n_structure_utf8_bom_alone", b"\xEF\xBB\xBF"),
    ("n_structure_utf8_bom_before_value", b"\xEF\xBB\xBF{}"),
    ("n_structure_utf8_bom_after_value", b"1\xEF\xBB\xBF"),
    ("n_structure_utf16_be_bom", b"\xFE\xFF\x00[\x00]"),
    ("n_structure_utf16_le_text", b"[\x00]\x00"),
    // Trailing garbage and extra values.
    ("n_structure_trailing_letter", b"[1]x"),
    ("n_structure_two_arrays", b"[1][2]"),
    ("n_structure_two_numbers", b"1 2"),
    ("n_structure_two_strings", br#""a" "b""#),
    ("n_structure_doubled_quotes", br#""""""#),
    ("n_structure_comma_after_value", b"1,"),
    ("n_structure_comma_after_array", b"[],"),
    ("n_structure_object_then_garbage", br#"{"a":1}x"#),
    ("n_structure_close_after_value", b"1]"),
    ("n_structure_extra_array_close", b"[]]"),
    ("n_structure_extra_object_close", b"{}}"),
    ("n_structure_line_comment_after", b"[1]//x"),
    ("n_structure_block_comment_before", b"/*x*/[1]"),
    ("n_structure_hash_comment", b"# x\n1"),
    // Unclosed and mismatched.
    ("n_structure_unclosed_array", b"[1"),
    ("n_structure_unclosed_array_after_comma", b"[1,"),
    ("n_structure_unclosed_empty_array", b"["),
    ("n_structure_unclosed_nested_array", b"[[]"),
    ("n_structure_unclosed_object", b"{"),
    ("n_structure_unclosed_object_after_key", br#"{"a""#),
    ("n_structure_unclosed_object_after_colon", br#"{"a":"#),
    ("n_structure_unclosed_object_after_value", br#"{"a":1"#),
    ("n_structure_unclosed_object_after_comma", br#"{"a":1,"#),
    ("n_structure_unopened_array", b"]"),
    ("n_structure_unopened_object", b"}"),
    ("n_structure_array_closed_by_brace", b"[}"),
    ("n_structure_object_closed_by_bracket", b"{]"),
    ("n_structure_crossed_closers", br#"[{]}"#),
    ("n_structure_crossed_closers_nested", br#"{"a":[}]"#),
    ("n_structure_angle_brackets", b"<null>"),
    ("n_structure_lone_colon", b":"),
    ("n_structure_lone_comma", b","),
    ("n_structure_unicode_identifier", "\u{e5}".as_bytes()),
    ("n_structure_single_open_quote", b"\""),
    ("n_structure_equals_sign", b"="),
    // Arrays.
    ("n_array_leading_comma", b"[,1]"),
    ("n_array_trailing_comma", b"[1,]"),
    ("n_array_double_comma", b"[1,,2]"),
    ("n_array_only_comma", b"[,]"),
    ("n_array_missing_comma", b"[1 2]"),
    ("n_array_missing_comma_strings", br#"["a" "b"]"#),
    ("n_array_colon_separator", b"[1:2]"),
    ("n_array_key_value", br#"["a":1]"#),
    ("n_array_trailing_comma_whitespace", b"[1 , ]"),
    ("n_array_unclosed_trailing_comma", b"[\"a\","),
    ("n_array_comma_after_close", b"[1],"),
    ("n_array_semicolon", b"[1;2]"),
    // Objects.
    ("n_object_trailing_comma", br#"{"a":1,}"#),
    ("n_object_leading_comma", br#"{,"a":1}"#),
    ("n_object_double_comma", br#"{"a":1,,"b":2}"#),
    ("n_object_missing_colon", br#"{"a" 1}"#),
    ("n_object_double_colon", br#"{"a"::1}"#),
    ("n_object_missing_value", br#"{"a":}"#),
    ("n_object_missing_key", br#"{:1}"#),
    ("n_object_unquoted_key", b"{a:1}"),
    ("n_object_single_quoted_key", b"{'a':1}"),
    ("n_object_number_key", b"{1:1}"),
    ("n_object_null_key", b"{null:1}"),
    ("n_object_true_key", b"{true:1}"),
    ("n_object_array_key", b"{[]:1}"),
    ("n_object_object_key", b"{{}:1}"),
    ("n_object_comma_instead_of_colon", br#"{"a",1}"#),
    ("n_object_missing_comma", br#"{"a":1 "b":2}"#),
    ("n_object_key_without_value", br#"{"a"}"#),
    ("n_object_key_without_value_then_member", br#"{"a","b":1}"#),
    ("n_object_semicolon_separator", br#"{"a":1;"b":2}"#),
    ("n_object_equals_instead_of_colon", br#"{"a"=1}"#),
    ("n_object_comment_inside", br#"{"a":1/**/}"#),
    ("n_object_trailing_comma_whitespace", b"{\"a\":1 , }"),
    ("n_object_two_values", br#"{"a":1 2}"#),
    ("n_object_colon_after_value", br#"{"a":1:2}"#),
    // Numbers.
    ("n_number_plus", b"+1"),
    ("n_number_plus_zero", b"+0"),
    ("n_number_leading_zero", b"01"),
    ("n_number_negative_leading_zero", b"-01"),
    ("n_number_double_zero", b"00"),
    ("n_number_negative_double_zero", b"-00"),
    ("n_number_leading_zeros", b"007"),
    ("n_number_leading_zero_in_array", b"[012]"),
    ("n_number_minus_only", b"-"),
    ("n_number_minus_in_array", b"[-]"),
    ("n_number_minus_space", b"- 1"),
    ("n_number_double_minus", b"--1"),
    ("n_number_dot_start", b".5"),
    ("n_number_negative_dot_start", b"-.5"),
    ("n_number_dot_end", b"1."),
    ("n_number_dot_end_in_array", b"[1.]"),
    ("n_number_dot_then_exponent", b"1.e1"),
    ("n_number_zero_dot_then_exponent", b"0.e1"),
    ("n_number_exponent_without_digits", b"1e"),
    ("n_number_capital_exponent_without_digits", b"1E"),
    ("n_number_exponent_plus_without_digits", b"1e+"),
    ("n_number_exponent_minus_without_digits", b"1E-"),
    ("n_number_exponent_minus_in_array", b"[1e-]"),
    ("n_number_exponent_double_sign", b"1e++1"),
    ("n_number_exponent_fraction", b"1e1.5"),
    ("n_number_double_exponent", b"1e1e1"),
    ("n_number_two_dots", b"1.2.3"),
    ("n_number_exponent_only", b"e1"),
    ("n_number_capital_exponent_only", b"E1"),
    ("n_number_minus_exponent", b"-e1"),
    ("n_number_hex", b"0x1F"),
    ("n_number_nan", b"NaN"),
    ("n_number_negative_nan", b"-NaN"),
    ("n_number_infinity", b"Infinity"),
    ("n_number_negative_infinity", b"-Infinity"),
    ("n_number_inf", b"[inf]"),
    ("n_number_trailing_letter", b"1a"),
    ("n_number_fraction_trailing_letter", b"[1.5x]"),
    ("n_number_comma_decimal", b"1,5"),
    ("n_number_underscore", b"1_000"),
    ("n_number_space_inside", b"1 000"),
    ("n_number_fullwidth_digit", "\u{FF11}".as_bytes()),
    ("n_number_superscript_digit", "[\u{b2}]".as_bytes()),
    ("n_number_dot_start_in_object", br#"{"a":.1}"#),
    ("n_number_plus_in_array", b"[+1]"),
    ("n_number_minus_then_dot", b"-."),
    ("n_number_unclosed_exponent_in_object", br#"{"a":2e}"#),
    // Strings.
    ("n_string_unterminated", br#""abc"#),
    ("n_string_unterminated_in_array", br#"["abc]"#),
    ("n_string_single_quotes", b"'abc'"),
    ("n_string_unquoted", b"abc"),
    ("n_string_raw_nul", b"\"\x00\""),
    ("n_string_raw_newline", b"\"a\nb\""),
    ("n_string_raw_tab", b"\"\t\""),
    ("n_string_raw_carriage_return", b"\"\r\""),
    ("n_string_raw_unit_separator", b"\"\x1f\""),
    ("n_string_raw_form_feed", b"\"\x0c\""),
    ("n_string_raw_control_in_key", b"{\"a\x01\":1}"),
    ("n_string_escape_x", br#""\x41""#),
    ("n_string_escape_a", br#""\a""#),
    ("n_string_escape_zero", br#""\0""#),
    ("n_string_escape_single_quote", br#""\'""#),
    ("n_string_escape_space", br#""\ ""#),
    ("n_string_escape_capital_u", br#""\U0041""#),
    ("n_string_escape_capital_n", br#""\N""#),
    ("n_string_escape_utf8", "\"\\\u{e9}\"".as_bytes()),
    ("n_string_escape_newline", b"\"\\\n\""),
    ("n_string_escape_in_key", br#"{"\q":1}"#),
    ("n_string_escaped_quote_unterminated", br#""\""#),
    ("n_string_backslash_at_end", br#""\"#),
    ("n_string_u_empty", br#""\u""#),
    ("n_string_u_one_digit", br#""\u1""#),
    ("n_string_u_two_digits", br#""\u12""#),
    ("n_string_u_three_digits", br#""\u123""#),
    ("n_string_u_non_hex", br#""\u00G0""#),
    ("n_string_u_plus_sign", br#""\u+123""#),
    ("n_string_u_space", br#""\u 123""#),
    ("n_string_u_unterminated", br#""\u00"#),
    ("n_string_u_utf8_digit", "\"\\u00\u{e9}0\"".as_bytes()),
    ("n_string_high_surrogate_then_short_u", br#""\ud800\u12""#),
    ("n_string_high_surrogate_then_bad_escape", br#""\ud800\x""#),
    ("n_string_high_surrogate_then_non_hex", br#""\ud800\uZZZZ""#),
    ("n_string_high_surrogate_unterminated", br#""\ud800"#),
    ("n_string_high_surrogate_backslash_unterminated", br#""\ud800\"#),
    ("n_string_invalid_utf8_continuation", b"\"\x80\""),
    ("n_string_invalid_utf8_continuations", b"\"\x80\xBF\""),
    ("n_string_invalid_utf8_overlong_two", b"\"\xC0\xAF\""),
    ("n_string_invalid_utf8_overlong_two_c1", b"\"\xC1\xBF\""),
    ("n_string_invalid_utf8_overlong_three", b"\"\xE0\x80\xAF\""),
    ("n_string_invalid_utf8_overlong_four", b"\"\xF0\x80\x80\xAF\""),
    ("n_string_invalid_utf8_surrogate_high", b"\"\xED\xA0\x80\""),
    ("n_string_invalid_utf8_surrogate_low", b"\"\xED\xB0\x80\""),
    ("n_string_invalid_utf8_cesu8_pair", b"\"\xED\xA0\xBD\xED\xB8\x80\""),
    ("n_string_invalid_utf8_above_max", b"\"\xF4\x90\x80\x80\""),
    ("n_string_invalid_utf8_f5", b"\"\xF5\x80\x80\x80\""),
    ("n_string_invalid_utf8_ff", b"\"\xFF\""),
    ("n_string_invalid_utf8_fe", b"\"\xFE\""),
    ("n_string_invalid_utf8_truncated_two", b"\"\xC3\""),
    ("n_string_invalid_utf8_truncated_three", b"\"\xE2\x82\""),
    ("n_string_invalid_utf8_truncated_four", b"\"\xF0\x9F\x98\""),
    ("n_string_invalid_utf8_truncated_then_text", b"\"\xE2\x82a\""),
    ("n_string_invalid_utf8_truncated_then_escape", b"\"\xE2\\n\""),
    ("n_string_invalid_utf8_truncated_at_eof", b"\"\xE2\x82"),
    ("n_string_invalid_utf8_latin1", b"\"caf\xE9\""),
    ("n_string_invalid_utf8_after_valid", b"\"abc\xC3\x28\""),
    ("n_string_invalid_utf8_in_key", b"{\"\xFF\":1}"),
    ("n_string_invalid_utf8_truncated_in_key", b"{\"\xC3\":1}"),
    ("n_string_invalid_utf8_outside_string", b"\xFF"),
    ("n_string_curly_quotes", "\u{201C}a\u{201D}".as_bytes()),
    // Literals.
    ("n_literal_tru", b"tru"),
    ("n_literal_nul", b"nul"),
    ("n_literal_fals", b"fals"),
    ("n_literal_t", b"t"),
    ("n_literal_capital_true", b"True"),
    ("n_literal_all_caps_false", b"FALSE"),
    ("n_literal_all_caps_null", b"NULL"),
    ("n_literal_mixed_case", b"trUe"),
    ("n_literal_truee", b"truee"),
    ("n_literal_nulll", b"nulll"),
    ("n_literal_true_false", b"truefalse"),
    ("n_literal_space_inside", b"t rue"),
    ("n_literal_partial_in_array", b"[tru]"),
    ("n_literal_partial_in_object", br#"{"a":nul}"#),
    ("n_literal_then_garbage_in_array", b"[null x]"),
    ("n_literal_undefined", b"undefined"),
    ("n_literal_nil", b"nil"),
    ("n_literal_none", b"None"),
];

/// Exact error offsets (and codes) for a handful of documents.
#[rustfmt::skip]
const OFFSETS: &[(&[u8], &str, u64)] = &[
    (b"", "json_invalid", 0),
    (b"   ", "json_invalid", 3),
    (b"[1,]", "json_invalid", 3),
    (b"[1 2]", "json_invalid", 3),
    (br#"{"a" 1}"#, "json_invalid", 5),
    (br#"{"a":1,}"#, "json_invalid", 7),
    (b"[1] x", "json_invalid", 4),
    (b"01", "json_invalid", 0),
    (b"[1.]", "json_invalid", 1),
    (b"-", "json_invalid", 0),
    (b"tru", "json_invalid", 3),
    (b"nulx", "json_invalid", 3),
    (br#""\x""#, "json_invalid", 2),
    (br#""\u00G0""#, "json_invalid", 5),
    (b"\"\x01\"", "json_invalid", 1),
    (b"\"\xC0\xAF\"", "json_invalid", 1),
    (b"\"abc\xC3\x28\"", "json_invalid", 4),
    (b"\"ab\xE2\x82(\"", "json_invalid", 3),
    // A sequence cut short by the closing quote is reported at the quote.
    (b"\"ab\xE2\x82\"", "json_invalid", 5),
    (b"\"ab\xE2\x82", "json_invalid", 5),
    (b"\xEF\xBB\xBF{}", "json_invalid", 0),
    (b"[\x0c]", "json_invalid", 1),
    (b"[[[]]", "json_invalid", 5),
];

// ---- Helpers --------------------------------------------------------------------------------

/// Our value as a serde_json value: object members inserted in order (a repeated key keeps
/// its first position and takes the last value, as serde_json's own parser does), number
/// text through serde_json's number parser (which normalizes `E` and exponent signs).
fn to_serde(v: &JsonValue) -> Value {
    match v {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::Number(n) => {
            let parsed: Value = serde_json::from_str(n).expect("number text is valid JSON");
            assert!(parsed.is_number(), "{n:?} is not a number");
            parsed
        }
        JsonValue::String(s) => Value::String(s.clone()),
        JsonValue::Array(items) => Value::Array(items.iter().map(to_serde).collect()),
        JsonValue::Object(members) => {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k.clone(), to_serde(v));
            }
            Value::Object(map)
        }
    }
}

fn hex4(doc: &[u8], at: usize) -> Option<u16> {
    let digits = doc.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(text, 16).ok()
}

/// `doc` with every lone surrogate escape inside a string replaced by `\ufffd`: what serde_json
/// must say about the result is what we say about `doc` (see the header).
fn lone_surrogates_to_fffd(doc: &[u8]) -> Vec<u8> {
    let is_high = |u: u16| (0xD800..0xDC00).contains(&u);
    let is_low = |u: u16| (0xDC00..0xE000).contains(&u);
    let unit = |at: usize| {
        if doc.get(at) == Some(&b'\\') && doc.get(at + 1) == Some(&b'u') {
            hex4(doc, at + 2)
        } else {
            None
        }
    };
    let mut out = Vec::with_capacity(doc.len());
    let (mut i, mut in_string) = (0, false);
    while i < doc.len() {
        let b = doc[i];
        if !in_string {
            in_string = b == b'"';
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' => match unit(i) {
                Some(u) if is_high(u) && unit(i + 6).is_some_and(is_low) => {
                    out.extend_from_slice(&doc[i..i + 12]);
                    i += 12;
                }
                Some(u) if is_high(u) || is_low(u) => {
                    out.extend_from_slice(b"\\ufffd");
                    i += 6;
                }
                Some(_) => {
                    out.extend_from_slice(&doc[i..i + 6]);
                    i += 6;
                }
                None => {
                    out.extend_from_slice(&doc[i..(i + 2).min(doc.len())]);
                    i += 2;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

fn serde_parse(doc: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<first_wins::FirstWins>(&lone_surrogates_to_fffd(doc)).map(|v| v.0)
}

/// Runs `doc` through `parse_strict_chunks` under every chunking, and checks that
/// `parse_strict` and the whole-document tokenizer agree. Returns the result.
fn run_strict(name: &str, doc: &[u8]) -> Result<JsonValue, Error> {
    let got = assert_chunk_invariant(name, doc, parse_strict_chunks);
    assert_eq!(parse_strict(doc), got, "{name}: parse_strict and parse_strict_chunks differ");
    assert_eq!(parse_strict_document(doc), got, "{name}: parse_strict_document and parse_strict_chunks differ");
    got
}

type CodeAt = (&'static str, Option<u64>);

fn code_at(r: Result<JsonValue, Error>) -> Result<JsonValue, CodeAt> {
    r.map_err(|e| (e.code(), e.offset()))
}

/// `PartialJson` (strict, default caps) fed `chunks`: the value or the error's code and offset.
fn run_partial(chunks: &[&[u8]]) -> Result<JsonValue, CodeAt> {
    let mut p = PartialJson::new(PartialJsonOptions::default());
    let mut events = Vec::new();
    for chunk in chunks {
        if let Err(e) = p.feed(chunk, &mut events) {
            return Err((e.code(), e.offset()));
        }
    }
    code_at(p.finish(&mut events))
}

fn string_of(v: &JsonValue) -> Option<&str> {
    match v {
        JsonValue::String(s) => Some(s),
        JsonValue::Object(m) if m.len() == 1 => Some(&m[0].0),
        _ => None,
    }
}

// ---- The conformance table ------------------------------------------------------------------

#[test]
fn table_is_large_and_names_are_unique() {
    assert!(Y.len() >= 150, "only {} y_ documents", Y.len());
    assert!(N.len() >= 150, "only {} n_ documents", N.len());
    let mut names: Vec<&str> = Y.iter().chain(N).map(|(n, _)| *n).collect();
    assert!(Y.iter().all(|(n, _)| n.starts_with("y_")));
    assert!(N.iter().all(|(n, _)| n.starts_with("n_")));
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "a case name is repeated");
    let docs: std::collections::HashSet<&[u8]> = Y.iter().chain(N).map(|(_, d)| *d).collect();
    assert_eq!(docs.len(), Y.len() + N.len(), "a document is repeated");
    for (name, _) in LONE_SURROGATES {
        assert!(Y.iter().any(|(n, _)| n == name), "{name} is not in the y_ table");
    }
}

#[test]
fn y_documents_are_accepted_and_match_serde_json() {
    for &(name, doc) in Y {
        let ours = match run_strict(name, doc) {
            Ok(v) => v,
            Err(e) => panic!("{name}: rejected {:?}: {e}", String::from_utf8_lossy(doc)),
        };
        if let Some(&(_, want)) = LONE_SURROGATES.iter().find(|(n, _)| *n == name) {
            // serde_json rejects these; the expected decoding is spelled out.
            assert!(serde_json::from_slice::<Value>(doc).is_err(), "{name}: serde_json accepts it now");
            assert_eq!(string_of(&ours), Some(want), "{name}");
        }
        let theirs = serde_parse(doc).unwrap_or_else(|e| panic!("{name}: serde_json rejects it: {e}"));
        assert_eq!(to_serde(&ours), theirs, "{name}");
    }
}

#[test]
fn numbers_keep_their_text() {
    for &(name, doc) in Y.iter().filter(|(n, _)| n.starts_with("y_number_")) {
        let text = std::str::from_utf8(doc).unwrap().trim_matches([' ', '\t', '\r', '\n']);
        if text.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) {
            assert_eq!(parse_strict(doc).unwrap(), JsonValue::Number(text.into()), "{name}");
        }
    }
}

#[test]
fn n_documents_are_rejected_like_serde_json() {
    for &(name, doc) in N {
        match run_strict(name, doc) {
            Ok(v) => panic!("{name}: accepted {:?} as {v:?}", String::from_utf8_lossy(doc)),
            Err(e) => {
                assert_eq!(e.code(), "json_invalid", "{name}: {e}");
                let at = e.offset().unwrap_or_else(|| panic!("{name}: no offset: {e}"));
                assert!(at <= doc.len() as u64, "{name}: offset {at} past the end");
            }
        }
        assert!(serde_parse(doc).is_err(), "{name}: serde_json accepts {:?}", String::from_utf8_lossy(doc));
    }
}

#[test]
fn error_offsets_are_exact() {
    for &(doc, code, at) in OFFSETS {
        let name = format!("offset {:?}", String::from_utf8_lossy(doc));
        let e = run_strict(&name, doc).expect_err(&name);
        assert_eq!((e.code(), e.offset()), (code, Some(at)), "{name}: {e}");
    }
}

#[test]
fn partial_json_agrees_on_the_table() {
    for &(name, doc) in Y.iter().chain(N) {
        let want = code_at(parse_strict(doc));
        let got = assert_chunk_invariant(name, doc, run_partial);
        assert_eq!(got, want, "{name}: PartialJson and parse_strict differ");
    }
}

// ---- Escapes at every chunk boundary --------------------------------------------------------

/// (JSON string literal, decoded text): every escape, pairs, lone surrogates, raw UTF-8.
#[rustfmt::skip]
const ESCAPES: &[(&str, &str)] = &[
    (r#""\" \\ \/ \b \f \n \r \t""#, "\" \\ / \u{8} \u{c} \n \r \t"),
    (r#""\"\\\/\b\f\n\r\t\u0000\u001F\u007f""#, "\"\\/\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}"),
    (r#""\u0041\u00e9\u00E9\u07FF\u0800\u20ac\uFFFF\uFFFD""#, "A\u{e9}\u{e9}\u{7ff}\u{800}\u{20ac}\u{ffff}\u{fffd}"),
    (r#""\ud83d\ude00\uD83C\uDF0D\udbff\udfff\uD800\uDC00""#, "\u{1F600}\u{1F30D}\u{10FFFF}\u{10000}"),
    (r#""x\ud800y\udc00z\ud800\u0041\ud800\ud83d\ude00\ude00\ud83d""#, "x\u{FFFD}y\u{FFFD}z\u{FFFD}A\u{FFFD}\u{1F600}\u{FFFD}\u{FFFD}"),
    (r#""\ud800\n\ud800\"\ud800\\\ud800\/\udbff""#, "\u{FFFD}\n\u{FFFD}\"\u{FFFD}\\\u{FFFD}/\u{FFFD}"),
    ("\"caf\u{e9} \\u00e9 \u{1F600} \\ud83d\\ude00 \u{4e16}\\n\u{10FFFF}\"", "caf\u{e9} \u{e9} \u{1F600} \u{1F600} \u{4e16}\n\u{10FFFF}"),
    (r#""\\u0041 \\\\ \\\" \\n""#, "\\u0041 \\\\ \\\" \\n"),
];

#[test]
fn escapes_decode_at_every_split() {
    for &(literal, want) in ESCAPES {
        // As a value, as a key, and inside an array among other values.
        let docs = [literal.to_string(), format!("{{{literal}:{literal}}}"), format!("[1,{literal},\"\\n\",{literal},2]")];
        for doc in &docs {
            let bytes = doc.as_bytes();
            let check = |v: &JsonValue| match v {
                JsonValue::String(s) => assert_eq!(s, want, "{doc}"),
                JsonValue::Object(m) => {
                    assert_eq!(m.len(), 1);
                    assert_eq!(m[0].0, want, "key of {doc}");
                    assert_eq!(m[0].1, JsonValue::String(want.into()), "{doc}");
                }
                JsonValue::Array(items) => {
                    assert_eq!(items[1], JsonValue::String(want.into()), "{doc}");
                    assert_eq!(items[3], JsonValue::String(want.into()), "{doc}");
                }
                other => panic!("{other:?}"),
            };
            let whole = assert_chunk_invariant(doc, bytes, parse_strict_chunks).unwrap();
            check(&whole);
            // Every split point (the helper covers only short inputs), and every pair of
            // split points for the plain literal.
            for p in 0..=bytes.len() {
                let v = parse_strict_chunks(&[&bytes[..p], &bytes[p..]]).unwrap();
                assert_eq!(v, whole, "{doc} split at {p}");
            }
            if doc.as_str() == literal {
                for p in 0..=bytes.len() {
                    for q in p..=bytes.len() {
                        let v = parse_strict_chunks(&[&bytes[..p], &bytes[p..q], &bytes[q..]]).unwrap();
                        assert_eq!(v, whole, "{doc} split at {p} and {q}");
                    }
                }
            }
        }
    }
}

#[test]
fn long_strings_with_escapes_decode_at_every_split() {
    // Long runs of plain text around escapes, so a split falls in a run and near an escape.
    let mut literal = String::from("\"");
    let mut want = String::new();
    for (k, &(lit, dec)) in ESCAPES.iter().enumerate() {
        let pad = "abc\u{e9}\u{1F600}".repeat(k + 1);
        literal.push_str(&pad);
        literal.push_str(&lit[1..lit.len() - 1]);
        want.push_str(&pad);
        want.push_str(dec);
    }
    literal.push('"');
    let bytes = literal.as_bytes();
    assert!(bytes.len() > 300);
    let want = JsonValue::String(want);
    assert_eq!(assert_chunk_invariant("long escapes", bytes, parse_strict_chunks), Ok(want.clone()));
    for p in 0..=bytes.len() {
        assert_eq!(parse_strict_chunks(&[&bytes[..p], &bytes[p..]]).as_ref(), Ok(&want), "split at {p}");
    }
    for width in 2..=9 {
        let chunks: Vec<&[u8]> = bytes.chunks(width).collect();
        assert_eq!(parse_strict_chunks(&chunks).as_ref(), Ok(&want), "pieces of {width}");
    }
}

// ---- Differential: random values and mutations against serde_json --------------------------

const CHAR_POOL: &[char] = &[
    'a',
    'b',
    'z',
    'A',
    'Z',
    '0',
    '9',
    ' ',
    '"',
    '\\',
    '/',
    '\'',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '\u{0}',
    '\u{8}',
    '\u{9}',
    '\u{a}',
    '\u{c}',
    '\u{d}',
    '\u{1f}',
    '\u{7f}',
    '\u{80}',
    '\u{a0}',
    '\u{e9}',
    '\u{7ff}',
    '\u{800}',
    '\u{20ac}',
    '\u{2028}',
    '\u{feff}',
    '\u{fffd}',
    '\u{ffff}',
    '\u{10000}',
    '\u{1F600}',
    '\u{10FFFF}',
];

const NUMBER_POOL: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "42",
    "0.5",
    "-0.25",
    "1e10",
    "1E-7",
    "2.5e+3",
    "-9.75E2",
    "123456789012345678901234567890",
    "-0.000001",
    "18446744073709551616",
    "1e400",
    "0e0",
];

fn random_string(rng: &mut Rng) -> String {
    let len = rng.below(12);
    (0..len).map(|_| CHAR_POOL[rng.below(CHAR_POOL.len())]).collect()
}

fn random_number(rng: &mut Rng) -> Value {
    let text = match rng.below(3) {
        0 => NUMBER_POOL[rng.below(NUMBER_POOL.len())].to_string(),
        1 => (rng.next_u64() as i64 >> rng.below(60)).to_string(),
        _ => format!("{}.{}e{}", rng.below(1000), rng.below(1000), rng.below(40) as i64 - 20),
    };
    serde_json::from_str(&text).unwrap()
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth >= 5 || rng.below(3) == 0;
    match rng.below(if leaf { 4 } else { 6 }) {
        0 => [Value::Null, Value::Bool(true), Value::Bool(false)][rng.below(3)].clone(),
        1 | 2 => Value::String(random_string(rng)),
        3 => random_number(rng),
        4 => Value::Array((0..rng.below(5)).map(|_| random_value(rng, depth + 1)).collect()),
        _ => Value::Object((0..rng.below(5)).map(|_| (random_string(rng), random_value(rng, depth + 1))).collect()),
    }
}

/// Re-spells serde_json's output: inside strings, random non-ASCII characters become
/// `\uXXXX` (pairs for astral ones) and random ASCII ones `\u00XX` or `\/`; outside strings,
/// random JSON whitespace follows structural characters. The value stays the same.
fn respell(text: &str, rng: &mut Rng) -> Vec<u8> {
    let mut out = String::with_capacity(text.len() * 2);
    let mut chars = text.chars();
    let mut in_string = false;
    let hex = |u: u32, rng: &mut Rng| {
        let s = format!("\\u{u:04x}");
        if rng.below(2) == 0 {
            s.to_uppercase().replace("\\U", "\\u")
        } else {
            s
        }
    };
    while let Some(c) = chars.next() {
        if !in_string {
            out.push(c);
            in_string = c == '"';
            if matches!(c, '[' | ']' | '{' | '}' | ',' | ':') && rng.below(4) == 0 {
                for _ in 0..rng.below(3) + 1 {
                    out.push([' ', '\t', '\n', '\r'][rng.below(4)]);
                }
            }
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => {
                out.push(c);
                let e = chars.next().unwrap();
                out.push(e);
                if e == 'u' {
                    out.extend(chars.by_ref().take(4));
                }
            }
            '/' if rng.below(3) == 0 => out.push_str("\\/"),
            c if c.is_ascii() && rng.below(8) == 0 => out.push_str(&hex(c as u32, rng)),
            c if !c.is_ascii() && rng.below(2) == 0 => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&hex(u32::from(*u), rng));
                }
            }
            c => out.push(c),
        }
    }
    out.into_bytes()
}

fn random_chunks<'a>(doc: &'a [u8], rng: &mut Rng) -> Vec<&'a [u8]> {
    let max_piece = [1, 2, 3, 7, 16, 64][rng.below(6)];
    random_split(doc, rng, max_piece)
}

#[test]
fn random_values_round_trip_through_serde_json_text() {
    let seed = seed() ^ 0x5157_4A53;
    let mut rng = Rng::new(seed);
    for round in 0..3000 {
        let value = random_value(&mut rng, 0);
        let text = if rng.below(2) == 0 {
            serde_json::to_string(&value).unwrap()
        } else {
            serde_json::to_string_pretty(&value).unwrap()
        };
        let doc = respell(&text, &mut rng);
        let chunks = random_chunks(&doc, &mut rng);
        let ours = parse_strict_chunks(&chunks).unwrap_or_else(|e| {
            panic!("round {round} (STREAMROUTE_SEED={}): rejected {:?}: {e}", common::seed(), String::from_utf8_lossy(&doc))
        });
        assert_eq!(
            to_serde(&ours),
            value,
            "round {round} (STREAMROUTE_SEED={}): {}",
            common::seed(),
            String::from_utf8_lossy(&doc)
        );
        assert_eq!(parse_strict(&doc).as_ref(), Ok(&ours));
        // What we print, serde_json reads back as the same value.
        assert_eq!(serde_json::from_str::<Value>(&ours.to_json()).unwrap(), value);
    }
}

/// Bytes that matter to the grammar, for insertions and replacements.
const INTERESTING: &[u8] = b"{}[],:\"\\ \t\n\r\x0c0123456789-+.eEtrufalsn/u\x00\x01\x1f\x7f\x80\xbf\xc3\xe2\xed\xf0\xf4\xff";

fn mutate(doc: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut d = doc.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(d.len() + 1);
        let byte = if rng.below(4) == 0 { rng.below(256) as u8 } else { INTERESTING[rng.below(INTERESTING.len())] };
        match rng.below(6) {
            0 if at < d.len() => d[at] = byte,
            1 => d.insert(at, byte),
            2 if at < d.len() => {
                d.remove(at);
            }
            3 => d.truncate(at),
            4 if at < d.len() => {
                let end = (at + 1 + rng.below(8)).min(d.len());
                let piece = d[at..end].to_vec();
                let to = rng.below(d.len() + 1);
                d.splice(to..to, piece);
            }
            _ => {
                let escapes: [&[u8]; 6] = [b"\\ud800", b"\\udc00", b"\\ud83d\\ude00", b"\\u00", b"\\", b"\\uDFFF"];
                let e = escapes[rng.below(escapes.len())];
                d.splice(at..at, e.iter().copied());
            }
        }
    }
    d
}

#[test]
fn mutations_are_accepted_exactly_when_serde_json_accepts_them() {
    let seed = seed() ^ 0x4D55_5441;
    let mut rng = Rng::new(seed);
    let mut sources: Vec<Vec<u8>> = Y.iter().map(|(_, d)| d.to_vec()).collect();
    for _ in 0..200 {
        let v = random_value(&mut rng, 0);
        sources.push(respell(&serde_json::to_string(&v).unwrap(), &mut rng));
    }
    let (mut accepted, mut rejected) = (0, 0);
    for round in 0..100_000 {
        let source = &sources[rng.below(sources.len())];
        let doc = mutate(source, &mut rng);
        let ours = parse_strict(&doc);
        let chunks = random_chunks(&doc, &mut rng);
        assert_eq!(
            parse_strict_chunks(&chunks),
            ours,
            "round {round}: chunking changed the result of {:?}",
            String::from_utf8_lossy(&doc)
        );
        assert_eq!(
            parse_strict_document(&doc),
            ours,
            "round {round}: the whole-document tokenizer differs on {:?}",
            String::from_utf8_lossy(&doc)
        );
        let theirs = serde_parse(&doc);
        let ctx = || {
            format!(
                "round {round} (STREAMROUTE_SEED={}) doc {:?} ours {ours:?} serde_json {theirs:?}",
                common::seed(),
                String::from_utf8_lossy(&doc)
            )
        };
        match (&ours, &theirs) {
            (Ok(o), Ok(t)) => {
                assert_eq!(&to_serde(o), t, "{}", ctx());
                accepted += 1;
            }
            (Err(e), Err(_)) => {
                assert!(matches!(e.code(), "json_invalid" | "json_too_deep"), "{}", ctx());
                rejected += 1;
            }
            _ => panic!("disagreement: {}", ctx()),
        }
    }
    eprintln!("mutations: accepted {accepted}, rejected {rejected}");
    assert!(accepted > 1000 && rejected > 1000, "accepted {accepted}, rejected {rejected}");
}

// ---- Caps -----------------------------------------------------------------------------------

fn nested(open: &str, close: &str, levels: usize, inner: &str) -> Vec<u8> {
    let mut s = open.repeat(levels);
    s.push_str(inner);
    s.push_str(&close.repeat(levels));
    s.into_bytes()
}

fn random_chunks_of(doc: &[u8]) -> Vec<&[u8]> {
    let mut rng = Rng::new(seed() ^ doc.len() as u64);
    random_split(doc, &mut rng, 4096)
}

#[test]
fn one_hundred_thousand_open_brackets_are_an_error_not_a_crash() {
    let cases: [(&str, Vec<u8>, u64); 5] = [
        ("[", "[".repeat(100_000).into_bytes(), 512),
        ("{\"a\":", "{\"a\":".repeat(100_000).into_bytes(), 512 * 5),
        ("[ closed", nested("[", "]", 100_000, ""), 512),
        ("{\"a\": closed", nested("{\"a\":", "}", 100_000, "1"), 512 * 5),
        ("[{\"\":", "[{\"\":".repeat(50_000).into_bytes(), 512 / 2 * 5),
    ];
    for (name, doc, at) in &cases {
        for chunks in [vec![&doc[..]], doc.chunks(1).collect(), random_chunks_of(doc)] {
            let e = parse_strict_chunks(&chunks).unwrap_err();
            assert_eq!((e.code(), e.offset()), ("json_too_deep", Some(*at)), "{name}: {e}");
        }
        let e = parse_strict(doc).unwrap_err();
        assert_eq!((e.code(), e.offset()), ("json_too_deep", Some(*at)), "{name}");
        let p = run_partial(&random_chunks_of(doc));
        assert_eq!(p, Err(("json_too_deep", Some(*at))), "{name}: PartialJson");
    }
}

#[test]
fn exactly_512_levels_are_accepted_and_513_rejected() {
    for (open, close, inner, width) in [("[", "]", "", 1u64), ("{\"a\":", "}", "0", 5), ("[", "]", "{}", 1)] {
        let inner_levels = u64::from(inner.starts_with('{') || inner.starts_with('['));
        let ok_levels = 512 - inner_levels as usize;
        let ok = nested(open, close, ok_levels, inner);
        let v = parse_strict(&ok).unwrap_or_else(|e| panic!("{open}x{ok_levels}: {e}"));
        assert_eq!(parse_strict_chunks(&random_chunks_of(&ok)).as_ref(), Ok(&v));
        assert_eq!(run_partial(&random_chunks_of(&ok)), Ok(v));

        let deep = nested(open, close, ok_levels + 1, inner);
        // The 513th opening bracket comes after 512 others.
        let at = width * 512;
        for r in [parse_strict(&deep), parse_strict_chunks(&random_chunks_of(&deep))] {
            let e = r.unwrap_err();
            assert_eq!((e.code(), e.offset()), ("json_too_deep", Some(at)), "{open}x{}", ok_levels + 1);
        }
        assert_eq!(run_partial(&random_chunks_of(&deep)), Err(("json_too_deep", Some(at))));
    }
}

#[test]
fn a_smaller_depth_cap_is_a_typed_error() {
    let opts = PartialJsonOptions { max_depth: 8, ..PartialJsonOptions::default() };
    let run = |doc: &[u8]| {
        assert_chunk_invariant("depth 8", doc, |chunks| {
            let mut p = PartialJson::new(opts);
            let mut events = Vec::new();
            for c in chunks {
                if let Err(e) = p.feed(c, &mut events) {
                    return Err((e.code(), e.offset()));
                }
            }
            code_at(p.finish(&mut events))
        })
    };
    assert!(run(&nested("[", "]", 8, "")).is_ok());
    assert_eq!(run(&nested("[", "]", 9, "")), Err(("json_too_deep", Some(8))));
    assert_eq!(run(&nested("{\"k\":", "}", 9, "1")), Err(("json_too_deep", Some(8 * 5))));
}

#[test]
fn a_pending_token_longer_than_its_cap_is_a_typed_error() {
    // PartialJson caps a pending key or number at its byte budget (at most 1 MiB).
    let opts = PartialJsonOptions { max_buffer_bytes: 64, ..PartialJsonOptions::default() };
    let run = |name: &str, doc: &[u8]| {
        assert_chunk_invariant(name, doc, |chunks| {
            let mut p = PartialJson::new(opts);
            let mut events = Vec::new();
            for c in chunks {
                if let Err(e) = p.feed(c, &mut events) {
                    return Err((e.code(), e.offset()));
                }
            }
            code_at(p.finish(&mut events))
        })
    };
    let digits = |n: usize| "7".repeat(n);
    // A short number fits (its tree charge is 32 + its length); the 65th digit of a long one
    // (offset 64) crosses the pending-token cap, before any tree charge.
    assert!(run("20 digits", digits(20).as_bytes()).is_ok());
    assert_eq!(run("65 digits", digits(65).as_bytes()), Err(("buffer_limit_exceeded", Some(64))));
    assert_eq!(run("1000 digits", digits(1000).as_bytes()), Err(("buffer_limit_exceeded", Some(64))));
    // In an array the number starts at offset 1.
    let doc = format!("[{}]", digits(100));
    assert_eq!(run("number in array", doc.as_bytes()), Err(("buffer_limit_exceeded", Some(65))));
    // A long key is reported at its opening quote.
    let doc = format!("{{\"{}\":1}}", "k".repeat(100));
    assert_eq!(run("long key", doc.as_bytes()), Err(("buffer_limit_exceeded", Some(1))));

    // The default cap: 1 MiB of digits fit in a pending number, one more does not.
    let mib = 1 << 20;
    let doc = format!("[{}]", digits(mib));
    assert!(run_partial(&random_chunks_of(doc.as_bytes())).is_ok());
    let doc = format!("[{}]", digits(mib + 1));
    let chunks = random_chunks_of(doc.as_bytes());
    assert_eq!(run_partial(&chunks), Err(("buffer_limit_exceeded", Some(1 + mib as u64))));
    // parse_strict holds the whole input anyway: it has no token cap.
    assert!(parse_strict(doc.as_bytes()).is_ok());
}
