use streamroute::{parse_strict, JsonValue};

#[test]
fn smoke() {
    let docs = [
        r#"{"a":[1,-2.5e3,true,false,null,"x\u00e9\ud83d\ude00\n"],"b":{}}"#,
        r#"  [ ]  "#,
        r#""\ud800x""#,
        "0",
    ];
    for d in docs {
        let v = parse_strict(d.as_bytes()).unwrap();
        let ours: serde_json::Value = serde_json::from_str(&v.to_json()).unwrap();
        let theirs: Result<serde_json::Value, _> = serde_json::from_str(d);
        if let Ok(t) = theirs { assert_eq!(ours, t, "{d}"); }
    }
    for bad in ["", "{", "[1,]", "01", "1.", "{\"a\" 1}", "\"\x01\"", "[1] x", "tru", "\"\\x\""] {
        assert!(parse_strict(bad.as_bytes()).is_err(), "{bad}");
    }
    let deep = "[".repeat(100_000);
    assert_eq!(parse_strict(deep.as_bytes()).unwrap_err().code(), "json_too_deep");
    assert_eq!(parse_strict(b"12345678901234567890123").unwrap(), JsonValue::Number("12345678901234567890123".into()));
}
