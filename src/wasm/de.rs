//! Options and small argument objects from JS values, with serde.
//!
//! The bindings' own deserializer instead of serde-wasm-bindgen's: it reads only what they
//! take (booleans, numbers, strings, arrays, plain objects, `null`/`undefined` as absent),
//! and its error messages never format a number, so no float formatter is linked for them
//! (with core's float parser gone too, ~20 KB less `.wasm`). Results go to JS as JSON text
//! (`host::json_parse`) or as objects built directly (`super::plain_object`), not through a
//! serde serializer.
//!
//! Every read of the caller's object goes through a `catch` import (`Reflect.get`,
//! `Object.keys`, `Object.entries`, `Array.isArray`): a getter or Proxy trap that throws
//! becomes an `invalid_input` error here instead of a JS exception unwinding through wasm
//! frames. Options objects are read strictly ([`options_from_js`]): a key that is not an
//! option is an `invalid_input` error naming it, at any depth.

use js_sys::{Array, Object, Reflect};
use serde::de::{self, Deserialize, DeserializeOwned, DeserializeSeed, Expected, IntoDeserializer, Unexpected, Visitor};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn own_keys(o: &Object) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn own_entries(o: &Object) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array(v: &JsValue) -> Result<bool, JsValue>;
}

/// Deserialises `value` into `T`; the error is a message for the caller to wrap.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, DeError> {
    T::deserialize(JsDe(value, false))
}

/// [`from_js`] for an options object: every key of it (and of the objects in it that are
/// read as structs) must be a field of its struct, else `unknown option "key"`.
pub(crate) fn options_from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, DeError> {
    T::deserialize(JsDe(value, true))
}

/// An options object of booleans, numbers and strings read field by field, without serde:
/// the checks and messages of [`options_from_js`] (`unknown option "key"`, `invalid type: a
/// string, expected f64`, `expected struct Name` for a value that is not an object, `null` or
/// `undefined` as absent), with one reader's code in the `.wasm` instead of a serde visitor per
/// options struct. A field must be read in declaration order for the first error to be the
/// one serde reports.
pub(crate) struct FlatOptions(Option<FlatObject>);

/// The object of [`FlatOptions`], its struct's fields and their JS strings.
struct FlatObject {
    object: Object,
    fields: &'static [&'static str],
    keys: Rc<[JsValue]>,
}

impl FlatOptions {
    /// `value` as the options struct `name` whose JS keys are `fields` (absent, `undefined` or
    /// `null`: every field absent).
    #[inline(never)]
    pub(crate) fn new(value: Option<JsValue>, name: &str, fields: &'static [&'static str]) -> Result<FlatOptions, JsValue> {
        let value = match value {
            Some(v) if !v.is_undefined() && !v.is_null() => v,
            _ => return Ok(FlatOptions(None)),
        };
        let de = JsDe(value, true);
        let Some(o) = de.object() else {
            return Err(super::options_error(de.invalid_type(&format!("struct {name}").as_str())));
        };
        only_keys(o, fields).map_err(super::options_error)?;
        Ok(FlatOptions(Some(FlatObject { object: o.clone(), fields, keys: field_keys(fields) })))
    }

    /// `value` as the argument object `name` with the fields `fields`, other keys ignored
    /// (absent, `undefined` or `null`: every field absent). Its fields are read with the
    /// `read_` methods, whose errors the caller words.
    pub(crate) fn record(value: JsValue, name: &str, fields: &'static [&'static str]) -> Result<FlatOptions, DeError> {
        if value.is_undefined() || value.is_null() {
            return Ok(FlatOptions(None));
        }
        let de = JsDe(value, false);
        let Some(o) = de.object() else {
            return Err(de.invalid_type(&format!("struct {name}").as_str()));
        };
        Ok(FlatOptions(Some(FlatObject { object: o.clone(), fields, keys: field_keys(fields) })))
    }

    /// A string field of a [`record`](Self::record).
    pub(crate) fn read_string(&self, key: &str) -> Result<Option<String>, DeError> {
        self.field(key).and_then(|f| f.map(JsDe::string).transpose())
    }

    /// A number field of a [`record`](Self::record).
    pub(crate) fn read_number(&self, key: &str) -> Result<Option<f64>, DeError> {
        self.field(key).and_then(|f| f.map(|de| de.0.as_f64().ok_or_else(|| de.invalid_type(&"f64"))).transpose())
    }

    /// A field of a [`record`](Self::record) that is a string or a number (`expected`
    /// names what it may be).
    pub(crate) fn read_string_or_number(&self, key: &str, expected: &str) -> Result<Option<Result<String, f64>>, DeError> {
        self.field(key).and_then(|f| {
            f.map(|de| match (de.0.as_string(), de.0.as_f64()) {
                (Some(s), _) => Ok(Ok(s)),
                (None, Some(x)) => Ok(Err(x)),
                _ => Err(de.invalid_type(&expected)),
            })
            .transpose()
        })
    }

    /// A missing required field of a [`record`](Self::record).
    pub(crate) fn missing(key: &'static str) -> DeError {
        de::Error::missing_field(key)
    }

    /// The field's value, `None` when it is absent, `undefined` or `null`. `key` is one of the
    /// struct's fields, whose JS strings are made once (as for serde's reads).
    #[inline(never)]
    fn field(&self, key: &str) -> Result<Option<JsDe>, DeError> {
        let Some(flat) = &self.0 else { return Ok(None) };
        let at = flat.fields.iter().position(|f| *f == key);
        let Some(js_key) = at.and_then(|i| flat.keys.get(i)) else { return Ok(None) };
        let value = get(&flat.object, js_key, &|| format!("\"{key}\""))?;
        let de = JsDe(value, true);
        Ok((!de.nullish()).then_some(de))
    }

    /// A boolean field (its error thrown as [`super::options`] throws it).
    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        let read = self.field(key).and_then(|f| f.map(|de| de.0.as_bool().ok_or_else(|| de.invalid_type(&"a boolean"))).transpose());
        read.map_err(super::options_error)
    }

    /// A string field (its error thrown as [`super::options`] throws it).
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        self.read_string(key).map_err(super::options_error)
    }

    /// An array-of-strings field (its error thrown as [`super::options`] throws it).
    pub(crate) fn strings(&self, key: &str) -> Result<Option<Vec<String>>, JsValue> {
        let read = self.field(key).and_then(|f| {
            f.map(|de| {
                let mut items = de.seq_items(&"a sequence")?;
                let mut out = Vec::new();
                while let Some(item) = items.next_item()? {
                    out.push(item.string()?);
                }
                Ok(out)
            })
            .transpose()
        });
        read.map_err(super::options_error)
    }

    /// A number field (its error thrown as [`super::options`] throws it).
    pub(crate) fn number(&self, key: &str) -> Result<Option<f64>, JsValue> {
        self.read_number(key).map_err(super::options_error)
    }
}

/// A JS object of strings as `(key, value)` pairs sorted by key: what a `BTreeMap` gave,
/// without a B-tree's code in the `.wasm`.
#[derive(Default)]
pub(crate) struct StringPairs(pub(crate) Vec<(String, String)>);

impl<'de> Deserialize<'de> for StringPairs {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = StringPairs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<StringPairs, A::Error> {
                let mut v: Vec<(String, String)> = Vec::new();
                while let Some((k, x)) = m.next_entry::<String, String>()? {
                    match v.binary_search_by(|(key, _)| key.as_str().cmp(&k)) {
                        Ok(i) => v[i].1 = x,
                        Err(i) => v.insert(i, (k, x)),
                    }
                }
                Ok(StringPairs(v))
            }
        }
        d.deserialize_map(Pairs)
    }
}

/// What went wrong, as text; `input` when the value could not be read at all (a getter or
/// trap threw, an unknown option key, nesting too deep), not merely had a wrong value.
#[derive(Debug)]
pub(crate) struct DeError(String, bool);

impl DeError {
    fn input(message: String) -> Self {
        DeError(message, true)
    }

    /// The error kind: `invalid_input` for a value that could not be read, else `otherwise`.
    pub(crate) fn kind(&self, otherwise: crate::ErrorKind) -> crate::ErrorKind {
        if self.1 { crate::ErrorKind::InvalidInput } else { otherwise }
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What `read` of `what` threw, for a message: the thrown error's `message` when it has one.
fn threw(what: &str, thrown: &JsValue) -> DeError {
    let message = Reflect::get(thrown, &JsValue::from_str("message")).ok().and_then(|m| m.as_string());
    DeError::input(match message {
        Some(m) => format!("reading {what} threw: {m}"),
        None => format!("reading {what} threw"),
    })
}

/// An options object's keys must all be `fields`, else `unknown option "key"`. Apart from the
/// generic deserializer so that its code is in the `.wasm` once, not once per struct.
#[inline(never)]
fn only_keys(o: &Object, fields: &[&str]) -> Result<(), DeError> {
    let keys = own_keys(o).map_err(|e| threw("the options' keys", &e))?;
    match keys.iter().filter_map(|k| k.as_string()).find(|k| !fields.contains(&k.as_str())) {
        Some(key) => Err(DeError::input(format!("unknown option \"{key}\""))),
        None => Ok(()),
    }
}

/// An array's length, read through `Reflect.get` (the array may be a Proxy).
#[inline(never)]
fn array_len(array: &JsValue) -> Result<u32, DeError> {
    let len = get(array, &JsValue::from_str("length"), &|| "an array's length".into())?;
    Ok(len.as_f64().map_or(0, |n| n.clamp(0.0, f64::from(u32::MAX)) as u32))
}

/// `Reflect.get(object, key)`, a throw as [`threw`].
#[inline(never)]
fn get(object: &JsValue, key: &JsValue, what: &dyn Fn() -> String) -> Result<JsValue, DeError> {
    Reflect::get(object, key).map_err(|e| threw(&what(), &e))
}

impl std::error::Error for DeError {}

/// A value's kind in messages: never its number, so no float is formatted.
fn kind(u: &Unexpected<'_>) -> String {
    match u {
        Unexpected::Bool(b) => format!("boolean `{b}`"),
        Unexpected::Str(s) => format!("string \"{s}\""),
        Unexpected::Unsigned(_) | Unexpected::Signed(_) | Unexpected::Float(_) => "a number".into(),
        Unexpected::Unit | Unexpected::Option => "null".into(),
        Unexpected::Seq => "an array".into(),
        Unexpected::Map => "an object".into(),
        Unexpected::Other(what) => (*what).into(),
        _ => "another kind of value".into(),
    }
}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError(msg.to_string(), false)
    }
    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        DeError(format!("invalid type: {}, expected {exp}", kind(&unexp)), false)
    }
    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        DeError(format!("invalid value: {}, expected {exp}", kind(&unexp)), false)
    }
    fn invalid_length(len: usize, exp: &dyn Expected) -> Self {
        DeError(format!("invalid length {len}, expected {exp}"), false)
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        DeError(format!("unknown variant \"{variant}\", expected one of {}", expected.join(", ")), false)
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        DeError(format!("unknown field \"{field}\", expected one of {}", expected.join(", ")), false)
    }
    fn missing_field(field: &'static str) -> Self {
        DeError(format!("missing field `{field}`"), false)
    }
    fn duplicate_field(field: &'static str) -> Self {
        DeError(format!("duplicate field `{field}`"), false)
    }
}

/// A JS value to read, and whether structs in it are options (unknown keys are errors).
struct JsDe(JsValue, bool);

impl JsDe {
    fn nullish(&self) -> bool {
        self.0.is_null() || self.0.is_undefined()
    }

    fn unexpected(&self) -> Unexpected<'static> {
        if self.nullish() {
            Unexpected::Unit
        } else if let Some(b) = self.0.as_bool() {
            Unexpected::Bool(b)
        } else if self.0.as_f64().is_some() {
            Unexpected::Float(0.0)
        } else if self.0.is_string() {
            Unexpected::Other("a string")
        } else if self.array() {
            Unexpected::Seq
        } else if self.0.is_object() {
            Unexpected::Map
        } else {
            Unexpected::Other("another kind of value")
        }
    }

    fn invalid<'de, V: Visitor<'de>>(&self, v: V) -> Result<V::Value, DeError> {
        Err(self.invalid_type(&v))
    }

    /// The wrong-type error, apart from the generic methods so that its code is in the
    /// `.wasm` once, not once per visitor (as every other non-generic step below).
    #[inline(never)]
    fn invalid_type(&self, expected: &dyn Expected) -> DeError {
        de::Error::invalid_type(self.unexpected(), expected)
    }

    /// The object to read a struct's `fields` from (checking its keys if it is options).
    #[inline(never)]
    fn struct_fields(self, fields: &'static [&'static str], expected: &dyn Expected) -> Result<Fields, DeError> {
        let Some(o) = self.object() else { return Err(self.invalid_type(expected)) };
        if self.1 {
            only_keys(o, fields)?;
        }
        Ok(Fields { object: o.clone(), fields, keys: field_keys(fields), next: 0, value: None, strict: self.1 })
    }

    /// A plain object's entries, read as a map.
    #[inline(never)]
    fn map_entries(self, expected: &dyn Expected) -> Result<Entries, DeError> {
        match self.object() {
            Some(o) => {
                let entries = own_entries(o).map_err(|e| threw("an object's entries", &e))?;
                Ok(Entries { entries, next: 0, value: None, strict: self.1 })
            }
            None => Err(self.invalid_type(expected)),
        }
    }

    /// An array's elements, read as a sequence.
    #[inline(never)]
    fn seq_items(self, expected: &dyn Expected) -> Result<Items, DeError> {
        if !self.array() {
            return Err(self.invalid_type(expected));
        }
        let len = array_len(&self.0)?;
        Ok(Items { array: self.0, len, next: 0, strict: self.1 })
    }

    /// A string, else the wrong-type error.
    fn string(self) -> Result<String, DeError> {
        self.0.as_string().ok_or_else(|| self.invalid_type(&"a string"))
    }

    /// A JS number that is a safe integer.
    fn integer(&self) -> Option<i64> {
        let x = self.0.as_f64()?;
        (x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_991.0).then_some(x as i64)
    }

    /// An array (a revoked Proxy, on which `Array.isArray` throws, is not).
    fn array(&self) -> bool {
        self.0.is_object() && is_array(&self.0).unwrap_or(false)
    }

    /// A plain object (not an array, not a function).
    fn object(&self) -> Option<&Object> {
        (self.0.is_object() && !self.array()).then(|| self.0.unchecked_ref::<Object>())
    }
}

impl<'de> de::Deserializer<'de> for JsDe {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        if self.nullish() {
            v.visit_unit()
        } else if let Some(b) = self.0.as_bool() {
            v.visit_bool(b)
        } else if let Some(x) = self.0.as_f64() {
            v.visit_f64(x)
        } else if let Some(s) = self.0.as_string() {
            v.visit_string(s)
        } else if self.array() {
            let _depth = AnyDepth::enter()?;
            self.deserialize_seq(v)
        } else if self.object().is_some() {
            let _depth = AnyDepth::enter()?;
            self.deserialize_map(v)
        } else {
            self.invalid(v)
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.0.as_bool() {
            Some(b) => v.visit_bool(b),
            None => self.invalid(v),
        }
    }

    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.0.as_f64() {
            Some(x) => v.visit_f64(x),
            None => self.invalid(v),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(v)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.integer() {
            Some(i) => v.visit_i64(i),
            None => self.invalid(v),
        }
    }

    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.integer() {
            Some(i) if i >= 0 => v.visit_u64(i as u64),
            _ => self.invalid(v),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(v)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(v)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_i64(v)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_u64(v)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_u64(v)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_u64(v)
    }

    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        match self.0.as_string() {
            Some(s) => v.visit_string(s),
            None => self.invalid(v),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_string(v)
    }

    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_string(v)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_string(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        if self.nullish() {
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        if self.nullish() {
            v.visit_unit()
        } else {
            self.invalid(v)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, DeError> {
        self.deserialize_unit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, DeError> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        let items = self.seq_items(&v)?;
        v.visit_seq(items)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _name: &'static str, _len: usize, v: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        let entries = self.map_entries(&v)?;
        v.visit_map(entries)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        let fields = self.struct_fields(fields, &v)?;
        v.visit_map(fields)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DeError> {
        // Unit variants by name: the only enums the bindings read this way.
        match self.0.as_string() {
            Some(s) => v.visit_enum(s.into_deserializer()),
            None => self.invalid(v),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DeError> {
        v.visit_unit()
    }
}

/// An array's elements in order.
struct Items {
    array: JsValue,
    len: u32,
    next: u32,
    strict: bool,
}

impl<'de> de::SeqAccess<'de> for Items {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DeError> {
        match self.next_item()? {
            Some(item) => seed.deserialize(item).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len.saturating_sub(self.next).min(4096) as usize)
    }
}

impl Items {
    #[inline(never)]
    fn next_item(&mut self) -> Result<Option<JsDe>, DeError> {
        if self.next >= self.len {
            return Ok(None);
        }
        let item = get(&self.array, &JsValue::from(self.next), &|| "an array element".into())?;
        self.next += 1;
        Ok(Some(JsDe(item, self.strict)))
    }
}

/// A plain object's own enumerable `[key, value]` pairs (a map such as `descriptions`).
struct Entries {
    entries: Array,
    next: u32,
    value: Option<JsValue>,
    strict: bool,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DeError> {
        match self.next_key() {
            Some(key) => seed.deserialize(key).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        seed.deserialize(take_value(&mut self.value, self.strict))
    }
}

impl Entries {
    /// The next entry's key (its value kept for `next_value_seed`).
    #[inline(never)]
    fn next_key(&mut self) -> Option<JsDe> {
        if self.next >= self.entries.length() {
            return None;
        }
        let pair: Array = self.entries.get(self.next).unchecked_into();
        self.next += 1;
        self.value = Some(pair.get(1));
        Some(JsDe(pair.get(0), self.strict))
    }
}

/// The value `next_key_seed` kept, to read (`undefined` if there is none).
#[inline(never)]
fn take_value(value: &mut Option<JsValue>, strict: bool) -> JsDe {
    JsDe(value.take().unwrap_or(JsValue::UNDEFINED), strict)
}

/// The deepest nesting of arrays and objects read through `deserialize_any`.
const MAX_ANY_DEPTH: u32 = 64;

thread_local! {
    /// How many arrays and objects `deserialize_any` is inside (an untagged enum reads its
    /// value that way). Typed reads end with their types; this one would recurse through a
    /// cyclic object until the wasm stack overflowed.
    static ANY_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One level of `deserialize_any` nesting, given back when dropped.
struct AnyDepth;

impl AnyDepth {
    fn enter() -> Result<AnyDepth, DeError> {
        let depth = ANY_DEPTH.with(|d| d.get());
        if depth >= MAX_ANY_DEPTH {
            // The number is written out: these messages never format one (ARCHITECTURE.md).
            return Err(DeError::input("nested more than 64 levels deep (a cyclic object?)".into()));
        }
        ANY_DEPTH.with(|d| d.set(depth + 1));
        Ok(AnyDepth)
    }
}

impl Drop for AnyDepth {
    fn drop(&mut self) {
        ANY_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

thread_local! {
    /// Each struct's field names as JS strings, made on its first read (keyed by the address
    /// of serde's field list): per-call arguments such as `SseEncoder.encode`'s message then
    /// cost no string conversions.
    static FIELD_KEYS: RefCell<Vec<(usize, Rc<[JsValue]>)>> = const { RefCell::new(Vec::new()) };
}

fn field_keys(fields: &'static [&'static str]) -> Rc<[JsValue]> {
    let id = fields.as_ptr() as usize;
    FIELD_KEYS.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some((_, keys)) = cache.iter().find(|(at, keys)| *at == id && keys.len() == fields.len()) {
            return keys.clone();
        }
        let keys: Rc<[JsValue]> = fields.iter().map(|f| JsValue::from_str(f)).collect();
        cache.push((id, keys.clone()));
        keys
    })
}

/// A struct's declared fields read off an object by name (a field that is `undefined` counts
/// as absent; other keys are looked at only to reject them, in options).
struct Fields {
    object: Object,
    fields: &'static [&'static str],
    keys: Rc<[JsValue]>,
    next: usize,
    value: Option<JsValue>,
    strict: bool,
}

impl<'de> de::MapAccess<'de> for Fields {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DeError> {
        match self.next_field()? {
            Some(field) => {
                let key: de::value::StrDeserializer<'_, DeError> = field.into_deserializer();
                seed.deserialize(key).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        seed.deserialize(take_value(&mut self.value, self.strict))
    }
}

impl Fields {
    /// The next field the object has (not `undefined`), its value kept for `next_value_seed`.
    #[inline(never)]
    fn next_field(&mut self) -> Result<Option<&'static str>, DeError> {
        while let (Some(&field), Some(key)) = (self.fields.get(self.next), self.keys.get(self.next)) {
            self.next += 1;
            let value = get(&self.object, key, &|| format!("\"{field}\""))?;
            if !value.is_undefined() {
                self.value = Some(value);
                return Ok(Some(field));
            }
        }
        Ok(None)
    }
}

/// Options read by hand (not through serde): a plain copy of `options` holding only the
/// `allowed` keys it has, read once each. A key not in `allowed`, or a getter or Proxy trap
/// that throws, is an `invalid_input` error naming it; a value that is not an object is
/// returned as it is (the caller says what it must be).
pub(crate) fn options_copy(options: &JsValue, allowed: &[&str]) -> Result<JsValue, DeError> {
    let Some(o) = options.is_object().then(|| options.unchecked_ref::<Object>()) else {
        return Ok(options.clone());
    };
    only_keys(o, allowed)?;
    let copy = Object::new();
    for key in allowed {
        let k = JsValue::from_str(key);
        let value = get(options, &k, &|| format!("\"{key}\""))?;
        if !value.is_undefined() {
            // A fresh plain object: defining a key cannot fail or run code.
            let _ = Reflect::set(&copy, &k, &value);
        }
    }
    Ok(copy.into())
}
