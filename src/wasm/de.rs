//! The one reader of options and argument objects: [`FlatOptions`] reads an object's declared
//! fields by name, each as a [`Read`] type, with serde's messages (`unknown option "key"`,
//! `invalid type: a string, expected f64`, `missing field`) but no serde code and no number
//! formatted. Every read goes through a `catch` import, so a throwing getter or Proxy trap is
//! an `invalid_input` error, never a JS exception unwinding through wasm frames.

use crate::{Error, ErrorKind};
use js_sys::{Array, Object, Reflect};
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

/// A type read from a JS value (never `undefined`; `null` only where a field is required or
/// an array element: it is then the wrong type).
pub(crate) trait Read: Sized {
    /// `v` as `Self`, else what is wrong with it.
    fn read(v: Js) -> Result<Self, DeError>;
}

/// Reads `value` as `T` (a whole argument, such as `TagEventWriter.deltas`' array); the
/// error is a message for the caller to wrap.
pub(crate) fn from_js<T: Read>(value: JsValue) -> Result<T, DeError> {
    T::read(Js(value))
}

impl Read for bool {
    fn read(v: Js) -> Result<bool, DeError> {
        v.0.as_bool().ok_or_else(|| v.invalid_type("a boolean"))
    }
}

impl Read for f64 {
    fn read(v: Js) -> Result<f64, DeError> {
        v.0.as_f64().ok_or_else(|| v.invalid_type("f64"))
    }
}

impl Read for String {
    fn read(v: Js) -> Result<String, DeError> {
        v.0.as_string().ok_or_else(|| v.invalid_type("a string"))
    }
}

impl<T: Read> Read for Vec<T> {
    fn read(v: Js) -> Result<Vec<T>, DeError> {
        let mut items = v.items()?;
        let mut out = Vec::new();
        while let Some(item) = items.next_item()? {
            out.push(T::read(item)?);
        }
        Ok(out)
    }
}

/// A value as it is, for the caller to read (a JSON value it encodes whole).
impl Read for JsValue {
    fn read(v: Js) -> Result<JsValue, DeError> {
        Ok(v.0)
    }
}

/// An options or argument object, its fields read in declaration order (the first error is
/// the first field's): [`get`](Self::get) for options, [`read`](Self::read) for arguments.
pub(crate) struct FlatOptions(Option<FlatObject>);

/// The object of [`FlatOptions`], its struct's fields and their JS strings.
struct FlatObject {
    object: Object,
    fields: &'static [&'static str],
    keys: Rc<[JsValue]>,
}

impl FlatOptions {
    /// `value` as the options struct `name` whose JS keys are `fields` (absent, `undefined` or
    /// `null`: every field absent); another key is `unknown option "key"`.
    #[inline(never)]
    pub(crate) fn new(value: Option<JsValue>, name: &str, fields: &'static [&'static str]) -> Result<FlatOptions, JsValue> {
        let value = match value {
            Some(v) if !v.is_undefined() && !v.is_null() => v,
            _ => return Ok(FlatOptions(None)),
        };
        let o = Self::object(Js(value), name, fields).map_err(DeError::options)?;
        if let Some(flat) = &o.0 {
            only_keys(&flat.object, fields).map_err(DeError::options)?;
        }
        Ok(o)
    }

    /// `value` as the argument object `name` with the fields `fields`, other keys ignored
    /// (absent, `undefined` or `null`: every field absent).
    pub(crate) fn record(value: JsValue, name: &str, fields: &'static [&'static str]) -> Result<FlatOptions, DeError> {
        if value.is_undefined() || value.is_null() {
            return Ok(FlatOptions(None));
        }
        Self::object(Js(value), name, fields)
    }

    /// `v` as the struct `name` with the fields `fields`, other keys ignored: a value that is
    /// not an object (`null` too) is `invalid type: …, expected struct Name`.
    #[inline(never)]
    pub(crate) fn object(v: Js, name: &str, fields: &'static [&'static str]) -> Result<FlatOptions, DeError> {
        let Some(o) = v.object() else {
            return Err(v.invalid_type(&cat(&["struct ", name])));
        };
        Ok(FlatOptions(Some(FlatObject { object: o.clone(), fields, keys: field_keys(fields) })))
    }

    /// `v` as the struct `name` of two required fields (other keys ignored): both are read,
    /// in order, before a missing one is `missing field`.
    pub(crate) fn both<A: Read, B: Read>(v: Js, name: &str, fields: &'static [&'static str; 2]) -> Result<(A, B), DeError> {
        let o = Self::object(v, name, fields)?;
        let (a, b) = (o.need(fields[0])?, o.need(fields[1])?);
        Ok((a.ok_or_else(|| Self::missing(fields[0]))?, b.ok_or_else(|| Self::missing(fields[1]))?))
    }

    /// An options field (its error thrown as an options error naming the option: `invalid
    /// options: key: invalid type: …`).
    pub(crate) fn get<T: Read>(&self, key: &str) -> Result<Option<T>, JsValue> {
        match self.present(key) {
            Ok(Some(v)) => T::read(v).map(Some).map_err(|e| field_error(e, key)),
            Ok(None) => Ok(None),
            Err(e) => Err(field_error(e, key)),
        }
    }

    /// The field's value, `None` when absent, `undefined` or `null` (the non-generic half of
    /// [`get`](Self::get)).
    #[inline(never)]
    fn present(&self, key: &str) -> Result<Option<Js>, DeError> {
        self.field(key).map(|f| f.filter(|v| !v.0.is_null()))
    }

    /// An optional field of an argument object: `None` when absent, `undefined` or `null`.
    pub(crate) fn read<T: Read>(&self, key: &str) -> Result<Option<T>, DeError> {
        self.field(key).and_then(|f| f.filter(|v| !v.0.is_null()).map(T::read).transpose())
    }

    /// A required field: `None` when absent or `undefined` (for [`missing`](Self::missing)
    /// once every field is read); `null` is the wrong type.
    fn need<T: Read>(&self, key: &str) -> Result<Option<T>, DeError> {
        self.field(key).and_then(|f| f.map(T::read).transpose())
    }

    /// An optional field that is a string or a number (`expected` names what it may be).
    pub(crate) fn read_string_or_number(&self, key: &str, expected: &str) -> Result<Option<Result<String, f64>>, DeError> {
        self.field(key).and_then(|f| {
            f.filter(|v| !v.0.is_null())
                .map(|v| match (v.0.as_string(), v.0.as_f64()) {
                    (Some(s), _) => Ok(Ok(s)),
                    (None, Some(x)) => Ok(Err(x)),
                    _ => Err(v.invalid_type(expected)),
                })
                .transpose()
        })
    }

    /// A missing required field.
    pub(crate) fn missing(key: &str) -> DeError {
        DeError(cat(&["missing field `", key, "`"]), Fault::Value)
    }

    /// The field's value, `None` when it is absent or `undefined`. `key` is one of the
    /// struct's fields, whose JS strings are made once.
    #[inline(never)]
    fn field(&self, key: &str) -> Result<Option<Js>, DeError> {
        let Some(flat) = &self.0 else { return Ok(None) };
        let at = flat.fields.iter().position(|f| *f == key);
        let Some(js_key) = at.and_then(|i| flat.keys.get(i)) else { return Ok(None) };
        let value = get(&flat.object, js_key, key)?;
        Ok((!value.is_undefined()).then_some(Js(value)))
    }
}

/// Declares an options struct once (`field: Type = "key"`, each `Option<Type>`) with its reader
/// `Name::from_js(value)`; a `pub struct` is declared to TypeScript too (tsify: the key, of the
/// Rust type's TS type or the one after `as`), a private one in pkg/entry or pkg/types.
macro_rules! options {
    ($(#[doc = $doc:literal])* pub struct $name:ident $(for $core:path)? { $($(#[doc = $fdoc:literal])* $field:ident: $ty:ty = $key:literal $(as $ts:literal)?,)* }) => {
        $(#[doc = $doc])*
        #[derive(tsify::Tsify)]
        pub struct $name {
            $($(#[doc = $fdoc])* #[serde(rename = $key)] #[tsify(optional $(, type = $ts)?)] $field: Option<$ty>,)*
        }
        $crate::wasm::de::options!(@read $name $($field $key)*);
        $crate::wasm::de::options!(@core $name [$($core)?] $($field)*);
    };
    (@core $name:ident [] $($field:ident)*) => {};
    (@core $name:ident [$core:path] $($field:ident)*) => {
        impl $name {
            /// The core's options: each one given, else the core's default.
            fn core(self) -> $core {
                let d = <$core>::default();
                $core { $($field: $crate::wasm::de::Given::or(self.$field, d.$field),)* }
            }
        }
    };
    ($(#[doc = $doc:literal])* struct $name:ident { $($(#[doc = $fdoc:literal])* $field:ident: $ty:ty = $key:literal,)* }) => {
        $(#[doc = $doc])*
        struct $name {
            $($(#[doc = $fdoc])* $field: Option<$ty>,)*
        }
        $crate::wasm::de::options!(@read $name $($field $key)*);
    };
    (@read $name:ident $($field:ident $key:literal)*) => {
        impl $name {
            /// Reads the options object `value`.
            fn from_js(value: Option<wasm_bindgen::JsValue>) -> Result<Self, wasm_bindgen::JsValue> {
                let o = $crate::wasm::de::FlatOptions::new(value, stringify!($name), &[$($key),*])?;
                Ok($name { $($field: o.get($key)?,)* })
            }
        }
    };
}
pub(crate) use options;

/// Declares a struct of two required fields (`field: Type = "key"`, other keys ignored) and its
/// [`Read`]: both are read, in order, before a missing one is `missing field`.
macro_rules! both {
    ($(#[$attr:meta])* $vis:vis struct $name:ident {
        $(#[doc = $da:literal])* $a:ident: $ta:ty = $ka:literal,
        $(#[doc = $db:literal])* $b:ident: $tb:ty = $kb:literal,
    }) => {
        $(#[$attr])*
        $vis struct $name {
            $(#[doc = $da])* $a: $ta,
            $(#[doc = $db])* $b: $tb,
        }

        impl $crate::wasm::de::Read for $name {
            fn read(v: $crate::wasm::de::Js) -> Result<$name, $crate::wasm::de::DeError> {
                let ($a, $b) = $crate::wasm::de::FlatOptions::both(v, stringify!($name), &[$ka, $kb])?;
                Ok($name { $a, $b })
            }
        }
    };
}
pub(crate) use both;

/// A JS object of strings as `(key, value)` pairs sorted by key.
#[derive(Default)]
pub(crate) struct StringPairs(pub(crate) Vec<(String, String)>);

impl Read for StringPairs {
    fn read(v: Js) -> Result<StringPairs, DeError> {
        let mut pairs = Vec::new();
        for (key, value) in v.entries("an object of strings")? {
            pairs.push((key, String::read(value)?));
        }
        // An object's own keys are distinct: sorting is all a map's order needs.
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        crate::sort::sort_by(&mut order, |a, b| pairs[*a].0 < pairs[*b].0);
        Ok(StringPairs(order.iter().map(|&i| std::mem::take(&mut pairs[i])).collect()))
    }
}

/// Any value, read whole as a union of shapes reads it (serde's untagged enums did), nested at
/// most 64 deep: a cyclic value is an error, not a stack overflow.
pub(crate) enum Any {
    /// `null` or `undefined`.
    Null,
    /// A boolean (no shape reads its value yet).
    Bool,
    /// A number.
    Number(f64),
    /// A string.
    Str(String),
    /// An array's elements.
    Seq(Vec<Any>),
    /// A plain object's own enumerable entries.
    Map(Vec<(String, Any)>),
}

/// The deepest nesting of arrays and objects read as [`Any`].
const MAX_ANY_DEPTH: u32 = 64;

impl Read for Any {
    fn read(v: Js) -> Result<Any, DeError> {
        Any::at(v, 0)
    }
}

impl Any {
    /// `v` inside `depth` arrays and objects.
    fn at(v: Js, depth: u32) -> Result<Any, DeError> {
        let container = v.array() || v.object().is_some();
        if container && depth >= MAX_ANY_DEPTH {
            // The number is written out: these messages never format one (ARCHITECTURE.md).
            return Err(DeError::input("nested more than 64 levels deep (a cyclic object?)".into()));
        }
        Ok(if v.nullish() {
            Any::Null
        } else if v.0.as_bool().is_some() {
            Any::Bool
        } else if let Some(x) = v.0.as_f64() {
            Any::Number(x)
        } else if let Some(s) = v.0.as_string() {
            Any::Str(s)
        } else if v.array() {
            let mut items = v.items()?;
            let mut out = Vec::new();
            while let Some(item) = items.next_item()? {
                out.push(Any::at(item, depth + 1)?);
            }
            Any::Seq(out)
        } else if v.object().is_some() {
            let mut out = Vec::new();
            for (key, value) in v.entries("any value")? {
                out.push((key, Any::at(value, depth + 1)?));
            }
            Any::Map(out)
        } else {
            return Err(v.invalid_type("any value"));
        })
    }

    /// The value of `key` in a map.
    pub(crate) fn get(&self, key: &str) -> Option<&Any> {
        match self {
            Any::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// What went wrong, as text, and how it is thrown ([`Fault`]).
#[derive(Debug)]
pub(crate) struct DeError(String, Fault);

/// How a [`DeError`] is thrown.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// A wrong value (`invalid_option` for an option, the caller's code for an argument).
    Value,
    /// A value that could not be read at all (a getter or trap threw, an unknown option key,
    /// nesting too deep): `invalid_input`, never prefixed with the field.
    Input,
    /// A whole number out of its range: "`key` must be …, got x" (`invalid_option` for an
    /// option), never prefixed with `invalid options:`.
    Range,
}

impl DeError {
    fn input(message: String) -> Self {
        DeError(message, Fault::Input)
    }

    /// A wrong value, described by `message`.
    pub(crate) fn new(message: String) -> Self {
        DeError(message, Fault::Value)
    }

    /// A wrong value of the field `key`, named in the message (a value that could not be
    /// read names it already).
    fn of(self, key: &str) -> Self {
        if self.1 == Fault::Input {
            return self;
        }
        let sep = if self.1 == Fault::Range { " " } else { ": " };
        DeError(cat(&[key, sep, &self.0]), self.1)
    }

    /// The error kind: `invalid_input` for a value that could not be read, else `otherwise`.
    pub(crate) fn kind(&self, otherwise: crate::ErrorKind) -> crate::ErrorKind {
        if self.1 == Fault::Input {
            crate::ErrorKind::InvalidInput
        } else {
            otherwise
        }
    }

    /// The error thrown for it as an options error: `invalid options: …` (a range error says
    /// which option and range itself). Not generic: in the `.wasm` once.
    #[inline(never)]
    pub(crate) fn options(self) -> JsValue {
        let kind = self.kind(crate::ErrorKind::InvalidOption);
        let prefix = if self.1 == Fault::Range { "" } else { "invalid options: " };
        throw(kind, &[prefix, &self.0])
    }
}

/// An options field's error, thrown (not generic: once in the `.wasm`).
#[inline(never)]
fn field_error(e: DeError, key: &str) -> JsValue {
    e.of(key).options()
}

/// The error of `kind` whose message is `parts` joined, as thrown.
#[inline(never)]
fn throw(kind: crate::ErrorKind, parts: &[&str]) -> JsValue {
    super::js_error(&crate::Error::new(kind, cat(parts)))
}

/// The pieces of a message, joined (no `format!`: no formatting code for messages).
#[inline(never)]
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut s = String::new();
    for p in parts {
        s.push_str(p);
    }
    s
}

/// The largest whole number a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub(crate) const MAX_SAFE: u64 = (1 << 53) - 1;

/// A whole number from `MIN` to `MAX`: every integer option and argument is read as one. A
/// number that is not is "`key` must be …, got x" (`invalid_option` for an option).
#[derive(Clone, Copy)]
pub(crate) struct Whole<const MIN: u64, const MAX: u64>(pub(crate) u64);

/// A size option: a whole number from 1 to 2^32 - 1.
pub(crate) type Size = Whole<1, { u32::MAX as u64 }>;

/// A count or id: a whole number from 0 to 2^53 - 1.
pub(crate) type Count = Whole<0, MAX_SAFE>;

impl<const MIN: u64, const MAX: u64> Read for Whole<MIN, MAX> {
    fn read(v: Js) -> Result<Self, DeError> {
        whole(f64::read(v)?, MIN, MAX).map(Whole)
    }
}

impl<const MIN: u64, const MAX: u64> Whole<MIN, MAX> {
    /// The number read, or `default` when absent.
    pub(crate) fn or(v: Option<Self>, default: usize) -> usize {
        v.map_or(default, |w| w.0 as usize)
    }
}

/// An option as the core takes it: the value given, else the core's default (`options!`'s
/// `for` clause).
pub(crate) trait Given: Sized {
    type Core;
    fn or(v: Option<Self>, default: Self::Core) -> Self::Core;
}

impl Given for bool {
    type Core = bool;
    fn or(v: Option<bool>, default: bool) -> bool {
        v.unwrap_or(default)
    }
}

impl<const MIN: u64, const MAX: u64> Given for Whole<MIN, MAX> {
    type Core = usize;
    fn or(v: Option<Self>, default: usize) -> usize {
        Whole::or(v, default)
    }
}

/// `x` as a whole number in `min..=max`, else the range error (without the field's name).
#[inline(never)]
pub(crate) fn whole(x: f64, min: u64, max: u64) -> Result<u64, DeError> {
    if x.is_finite() && x.fract() == 0.0 && x >= min as f64 && x <= max as f64 {
        return Ok(x as u64);
    }
    // JS writes the numbers (exactly: none is past 2^53).
    let show = crate::num::show;
    let range = match (min, max) {
        (1, m) if m >= u64::from(u32::MAX) => "a positive integer".into(),
        (0, m) if m >= MAX_SAFE => "a non-negative integer".into(),
        _ => cat(&["an integer from ", &show(min as f64), " to ", &show(max as f64)]),
    };
    Err(DeError(cat(&["must be ", &range, ", got ", &show(x)]), Fault::Range))
}

/// [`whole`] of an argument named `name` that is not an option: the error `kind`.
pub(crate) fn whole_arg(v: Option<f64>, name: &str, min: u64, max: u64, kind: crate::ErrorKind) -> Result<Option<u64>, JsValue> {
    match v {
        None => Ok(None),
        Some(x) => match whole(x, min, max) {
            Ok(n) => Ok(Some(n)),
            Err(e) => Err(throw(kind, &[name, " ", &e.0])),
        },
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
        Some(m) => cat(&["reading ", what, " threw: ", &m]),
        None => cat(&["reading ", what, " threw"]),
    })
}

/// An options object's keys must all be `fields`, else `unknown option "key"`.
#[inline(never)]
fn only_keys(o: &Object, fields: &[&str]) -> Result<(), DeError> {
    let keys = own_keys(o).map_err(|e| threw("the options' keys", &e))?;
    match keys.iter().filter_map(|k| k.as_string()).find(|k| !fields.contains(&k.as_str())) {
        Some(key) => Err(DeError::input(cat(&["unknown option \"", &key, "\""]))),
        None => Ok(()),
    }
}

/// `Reflect.get(object, key)` of the field `name`, a throw as [`threw`].
#[inline(never)]
fn get(object: &JsValue, key: &JsValue, name: &str) -> Result<JsValue, DeError> {
    Reflect::get(object, key).map_err(|e| threw(&cat(&["\"", name, "\""]), &e))
}

/// What kind of value `v` is, for a message (`a string`, `boolean `true``; never its number).
pub(crate) fn kind_of(v: &JsValue) -> String {
    Js(v.clone()).kind()
}

/// A JS value to read.
pub(crate) struct Js(JsValue);

impl Js {
    fn nullish(&self) -> bool {
        self.0.is_null() || self.0.is_undefined()
    }

    /// The value's kind in messages: never its number, so no float is formatted.
    fn kind(&self) -> String {
        if self.nullish() {
            "null".into()
        } else if let Some(b) = self.0.as_bool() {
            (if b { "boolean `true`" } else { "boolean `false`" }).into()
        } else if self.0.as_f64().is_some() {
            "a number".into()
        } else if self.0.is_string() {
            "a string".into()
        } else if self.array() {
            "an array".into()
        } else if self.0.is_object() {
            "an object".into()
        } else {
            "another kind of value".into()
        }
    }

    /// The wrong-type error.
    #[inline(never)]
    fn invalid_type(&self, expected: &str) -> DeError {
        DeError::new(cat(&["invalid type: ", &self.kind(), ", expected ", expected]))
    }

    /// An array's elements, else the wrong-type error (`expected a sequence`).
    #[inline(never)]
    fn items(self) -> Result<Items, DeError> {
        if !self.array() {
            return Err(self.invalid_type("a sequence"));
        }
        let len = Reflect::get(&self.0, &JsValue::from_str("length")).map_err(|e| threw("an array's length", &e))?;
        let len = len.as_f64().map_or(0, |n| n.clamp(0.0, f64::from(u32::MAX)) as u32);
        Ok(Items { array: self.0, len, next: 0 })
    }

    /// A plain object's own enumerable `(key, value)` pairs, else the wrong-type error.
    #[inline(never)]
    fn entries(self, expected: &str) -> Result<Vec<(String, Js)>, DeError> {
        let Some(o) = self.object() else { return Err(self.invalid_type(expected)) };
        let entries = own_entries(o).map_err(|e| threw("an object's entries", &e))?;
        let pair = |p: JsValue| {
            let p: Array = p.unchecked_into();
            (p.get(0).as_string().unwrap_or_default(), Js(p.get(1)))
        };
        Ok(entries.iter().map(pair).collect())
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

/// An array's elements in order, each read through `Reflect.get` (the array may be a Proxy).
struct Items {
    array: JsValue,
    len: u32,
    next: u32,
}

impl Items {
    #[inline(never)]
    fn next_item(&mut self) -> Result<Option<Js>, DeError> {
        if self.next >= self.len {
            return Ok(None);
        }
        let item = Reflect::get(&self.array, &JsValue::from(self.next)).map_err(|e| threw("an array element", &e))?;
        self.next += 1;
        Ok(Some(Js(item)))
    }
}

thread_local! {
    /// Each struct's field names as JS strings, made once (keyed by the field list's address).
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

/// A string argument, or `invalid_input`. (A `&str` parameter would let the glue copy a
/// non-string into wasm memory, which traps and leaves a borrowed object locked.)
pub(crate) fn text_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    js_text(v, what).unwrap_or_else(|| Err(throw(ErrorKind::InvalidInput, &[what, " must be a string"])))
}

/// A JS string as Rust text (`None`: not a string), within the one-shot input cap: checked on
/// its UTF-16 length before the copy into wasm memory, on its UTF-8 length after.
pub(crate) fn js_text(v: &JsValue, what: &str) -> Option<Result<String, JsValue>> {
    if !v.is_string() {
        return None;
    }
    let units = v.unchecked_ref::<js_sys::JsString>().length() as usize;
    let text = crate::budget::check_input(units, what)
        .and_then(|()| room_for_copy(units))
        .and_then(|()| v.as_string().ok_or_else(|| Error::new(ErrorKind::InvalidInput, cat(&[what, " must be a string"]))))
        .and_then(|s| crate::budget::check_input(s.len(), what).map(|()| s));
    Some(text.map_err(|e| super::js_error(&e)))
}

/// [`text_arg`] for an optional parameter: `undefined` and `null` are `None`.
pub(crate) fn opt_text_arg(v: Option<JsValue>, what: &str) -> Result<Option<String>, JsValue> {
    match v {
        Some(v) if !v.is_undefined() && !v.is_null() => text_arg(&v, what).map(Some),
        _ => Ok(None),
    }
}

/// The glue's string copy grows in place up to `3 * units` bytes and traps when memory runs
/// out: that much is reserved and given back first (`memory_limit_exceeded` instead).
fn room_for_copy(units: usize) -> crate::Result<()> {
    let n = units.saturating_mul(3);
    let mut room: Vec<u8> = Vec::new();
    room.try_reserve_exact(n).map_err(|_| crate::budget::out_of_memory(n))
}

/// An options value that is not an object of fields (`TaggedTurn.contract`'s descriptions);
/// `T::default()` when absent.
pub(crate) fn read_options<T: Read + Default>(value: Option<JsValue>) -> Result<T, JsValue> {
    match value {
        Some(v) if !v.is_undefined() && !v.is_null() => from_js(v).map_err(DeError::options),
        _ => Ok(T::default()),
    }
}

/// Options read by hand: a plain copy holding only the `allowed` keys ([`copy_options`]);
/// another key, or a getter that throws, is `invalid_input` naming it.
pub(crate) fn options_copy(options: &JsValue, allowed: &[&str]) -> Result<JsValue, JsValue> {
    copy_options(options, allowed).map_err(DeError::options)
}

/// A plain copy of `options` with the `allowed` keys it has, each read once; another key is
/// `invalid_input`. A value that is not an object is returned as it is.
fn copy_options(options: &JsValue, allowed: &[&str]) -> Result<JsValue, DeError> {
    let Some(o) = options.is_object().then(|| options.unchecked_ref::<Object>()) else {
        return Ok(options.clone());
    };
    only_keys(o, allowed)?;
    let copy = Object::new();
    for key in allowed {
        let k = JsValue::from_str(key);
        let value = get(options, &k, key)?;
        if !value.is_undefined() {
            // A fresh plain object: defining a key cannot fail or run code.
            let _ = Reflect::set(&copy, &k, &value);
        }
    }
    Ok(copy.into())
}

/// `object[key]` of an object without getters that throw (a plain copy made by
/// [`copy_options`], a catalog split, a `ToolIndex`), `None` when `undefined` (or when it throws).
pub(crate) fn prop(copy: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(copy, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined())
}
