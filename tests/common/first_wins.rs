//! serde_json's `Value` read with streamroute's duplicate-key rule (a repeated key keeps its
//! first value; serde_json's own map keeps the last), for the differential checks against
//! serde_json: `tests/json_strict.rs` and `fuzz/fuzz_targets/json_tokenizer.rs` include it.

use serde_json::Value;

/// serde_json's `Value` with streamroute's duplicate-key rule: a repeated key keeps its
/// first value (serde_json's own map keeps the last).
pub struct FirstWins(pub Value);

impl<'de> serde::Deserialize<'de> for FirstWins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FirstWinsVisitor).map(FirstWins)
    }
}

struct FirstWinsVisitor;

impl<'de> serde::de::Visitor<'de> for FirstWinsVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(FirstWins(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(k) = map.next_key::<String>()? {
            // With `arbitrary_precision` a number arrives as a one-member map.
            if k == "$serde_json::private::Number" {
                let text: String = map.next_value()?;
                return Ok(Value::Number(serde_json::from_str(&text).map_err(serde::de::Error::custom)?));
            }
            let FirstWins(v) = map.next_value()?;
            out.entry(k).or_insert(v);
        }
        Ok(Value::Object(out))
    }
}
