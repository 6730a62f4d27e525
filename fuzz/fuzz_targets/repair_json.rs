//! `repair_json` / `repair_json_with_log` on arbitrary text (the bytes, lossily decoded).
//!
//! Never a panic, and the invariants of tests/repair.rs on every input: the output is strict
//! compact JSON; repairing it again changes nothing and logs nothing; the log is in input
//! order at character boundaries; it is empty exactly when the input is strict JSON, and then
//! the output is the input's value. The only errors are `json_unrepairable` (for input that
//! is not JSON) and `json_too_deep`. Time is linear by construction (see src/repair); run
//! with `-timeout=` and large `-max_len=` to check that no input is slow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{parse_strict, repair_json, repair_json_with_log};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let strict = parse_strict(text.as_bytes());
    match repair_json_with_log(&text) {
        Ok((json, repairs)) => {
            assert_eq!(repair_json(&text).as_deref(), Ok(json.as_str()));
            let value = parse_strict(json.as_bytes()).expect("the output is strict JSON");
            // The text keeps a repeated key as written; the value keeps the first (README).
            if value.to_json() != json {
                assert!(value.to_json().len() < json.len(), "the output is compact");
            }
            assert_eq!(repair_json_with_log(&json).expect("repairable"), (json.clone(), vec![]));
            for pair in repairs.windows(2) {
                assert!(pair[0].offset <= pair[1].offset, "{repairs:?}");
            }
            for r in &repairs {
                assert!(r.offset <= text.len() && text.is_char_boundary(r.offset), "{r:?}");
            }
            match &strict {
                Ok(v) => {
                    assert!(repairs.is_empty(), "valid JSON logged {repairs:?}");
                    assert_eq!(parse_strict(json.as_bytes()).as_ref(), Ok(v), "valid JSON changed value");
                }
                Err(_) => assert!(!repairs.is_empty(), "invalid JSON repaired without a log"),
            }
        }
        Err(e) => {
            assert!(matches!(e.code(), "json_unrepairable" | "json_too_deep"), "{e}");
            assert_eq!(repair_json(&text), Err(e.clone()));
            if e.code() == "json_unrepairable" {
                assert!(strict.is_err(), "valid JSON called unrepairable");
            }
        }
    }
});
