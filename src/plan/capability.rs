//! The versioned requirement → capability registry.
//!
//! A rule maps one requirement reference (`analysis.total`, `outputs.chart`, `group_by`,
//! `time`, `constraints`, …) to clauses that must all be met; a clause is met by a step whose
//! tool has any of its capabilities (many-to-many), optionally with conditions on the step
//! (`grouping`: it groups by something; `group_by_columns`: it groups by the required columns;
//! `before_plot`: it comes before the first plot step; `unless_typed`: skipped when the time
//! column is already typed). Capability names go through the alias table first; a pattern
//! `*_plot` / `plot_*` matches by suffix / prefix. Rules of the minimal core set
//! ([`CORE_REFERENCES`]) missing from a loaded map fall back to the built-in ones, with a warning.
//!
//! JSON form (every rule may also be a plain array of capabilities, one any-of clause):
//! ```json
//! { "version": "1",
//!   "requirements": { "analysis.total": ["aggregate"],
//!                     "time": [{"any_of": ["parse_datetime"], "unless_typed": true},
//!                              {"any_of": ["time_series_plot", "time_series_features"]}] },
//!   "aliases": { "time_series": "time_series_plot" },
//!   "plot": ["plot", "*_plot"] }
//! ```

use super::requirements::string_list;
use crate::hash::Map;
use crate::json::JsonValue;
use crate::{Error, ErrorKind, Result};

/// One clause of a rule: any of `any_of`, on a step that meets the conditions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Clause {
    /// Capabilities (or `*_x` / `x_*` patterns), any of which meets the clause.
    pub any_of: Vec<String>,
    /// The step must group by something (a non-empty `group_by` / `by` param).
    pub grouping: bool,
    /// The steps must together group by every required `group_by` column.
    pub group_by_columns: bool,
    /// The step must come before the first plot step.
    pub before_plot: bool,
    /// Skipped when `time.typed` is true.
    pub unless_typed: bool,
}

/// A requirement reference and its clauses (all must be met).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// `analysis.total`, `outputs.chart`, `group_by`, `time`, `metrics`, `constraints`, ….
    pub reference: String,
    /// The clauses, all required.
    pub clauses: Vec<Clause>,
}

/// The requirement references whose rules always exist (the built-in ones fill gaps).
pub const CORE_REFERENCES: &[&str] = &["analysis.total", "outputs.chart", "outputs.table", "group_by", "time"];

/// The built-in mapping of the design, as JSON.
pub const DEFAULT_CAPABILITY_MAP: &str = r#"{
  "version": "1",
  "requirements": {
    "analysis.total": ["aggregate"],
    "analysis.compare": [{"any_of": ["aggregate", "segment"], "grouping": true}],
    "analysis.trend": ["time_series_plot", "time_series_features"],
    "analysis.distribution": ["distribution_plot", "distribution_stats"],
    "analysis.anomaly": ["anomaly_detection"],
    "analysis.correlation": ["correlation", "scatter_plot"],
    "analysis.ranking": ["rank", "aggregate"],
    "analysis.forecast": ["forecast"],
    "analysis.summary": ["summary_stats", "aggregate"],
    "outputs.chart": ["plot", "*_plot"],
    "outputs.table": ["aggregate", "summary_stats"],
    "outputs.text": ["summary_stats", "narrative"],
    "group_by": [{"any_of": ["aggregate", "segment"], "group_by_columns": true, "before_plot": true}],
    "time": [{"any_of": ["parse_datetime"], "unless_typed": true},
             {"any_of": ["time_series_plot", "time_series_features"]}],
    "constraints": ["filter"]
  },
  "aliases": {
    "time_series": "time_series_plot",
    "timeseries": "time_series_plot",
    "line_chart": "time_series_plot",
    "chart": "plot",
    "summarize": "summary_stats",
    "describe": "summary_stats",
    "anomaly": "anomaly_detection",
    "outliers": "anomaly_detection",
    "histogram": "distribution_plot",
    "datetime": "parse_datetime",
    "groupby": "aggregate",
    "segmentation": "segment"
  },
  "plot": ["plot", "*_plot"]
}"#;

/// The registry: versioned rules, aliases and the plot capabilities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapabilityMap {
    version: String,
    rules: Vec<Rule>,
    aliases: Vec<(String, String)>,
    /// alias → position in `aliases`.
    alias_index: Map<Box<str>, usize>,
    plot: Vec<String>,
    warnings: Vec<String>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

fn capability_list(v: &JsonValue, at: &str) -> Result<Vec<String>> {
    let list = string_list(v).ok_or_else(|| bad(format!("{at} must be an array of capability names")))?;
    Ok(list.iter().map(|c| c.trim().to_ascii_lowercase()).filter(|c| !c.is_empty()).collect())
}

fn clause(v: &JsonValue, at: &str) -> Result<Clause> {
    match v {
        JsonValue::Array(_) => Ok(Clause { any_of: capability_list(v, at)?, ..Clause::default() }),
        JsonValue::Object(members) => {
            let mut c = Clause::default();
            for (k, v) in members {
                let flag = |v: &JsonValue| match v {
                    JsonValue::Bool(b) => Ok(*b),
                    _ => Err(bad(format!("{at}.{k} must be a boolean"))),
                };
                match k.as_str() {
                    "any_of" => c.any_of = capability_list(v, &format!("{at}.any_of"))?,
                    "grouping" => c.grouping = flag(v)?,
                    "group_by_columns" => c.group_by_columns = flag(v)?,
                    "before_plot" => c.before_plot = flag(v)?,
                    "unless_typed" => c.unless_typed = flag(v)?,
                    _ => return Err(bad(format!("{at}: unknown clause key \"{k}\""))),
                }
            }
            if c.any_of.is_empty() {
                return Err(bad(format!("{at}.any_of must list at least one capability")));
            }
            Ok(c)
        }
        _ => Err(bad(format!("{at} must be an array of capabilities or a clause object"))),
    }
}

fn rule(reference: &str, v: &JsonValue) -> Result<Rule> {
    let at = format!("requirements[\"{reference}\"]");
    let clauses = match v {
        JsonValue::Array(items) if items.iter().all(|i| matches!(i, JsonValue::String(_))) => {
            vec![clause(v, &at)?]
        }
        JsonValue::Array(items) => {
            let mut clauses = Vec::with_capacity(items.len());
            for (i, c) in items.iter().enumerate() {
                clauses.push(clause(c, &format!("{at}[{i}]"))?);
            }
            clauses
        }
        JsonValue::Object(_) => vec![clause(v, &at)?],
        _ => return Err(bad(format!("{at} must be an array or a clause object"))),
    };
    if clauses.is_empty() || clauses.iter().any(|c| c.any_of.is_empty()) {
        return Err(bad(format!("{at} must name at least one capability")));
    }
    Ok(Rule { reference: reference.to_string(), clauses })
}

/// `*_plot` matches by suffix, `plot_*` by prefix, anything else exactly.
fn pattern_matches(pattern: &str, cap: &str) -> bool {
    if let Some(suffix) = pattern.strip_prefix('*') {
        cap.ends_with(suffix) && cap.len() > suffix.len()
    } else if let Some(prefix) = pattern.strip_suffix('*') {
        cap.starts_with(prefix) && cap.len() > prefix.len()
    } else {
        pattern == cap
    }
}

impl Default for CapabilityMap {
    fn default() -> Self {
        let v = crate::parse_strict(DEFAULT_CAPABILITY_MAP.as_bytes()).unwrap_or(JsonValue::Null);
        // The built-in map is a constant that the tests parse: this cannot fail.
        CapabilityMap::read(&v, false).unwrap_or(CapabilityMap {
            version: "1".into(),
            rules: vec![],
            aliases: vec![],
            alias_index: Map::default(),
            plot: vec!["plot".into(), "*_plot".into()],
            warnings: vec![],
        })
    }
}

impl CapabilityMap {
    /// Loads a map from its JSON form. Core rules it lacks come from the built-in map.
    ///
    /// # Errors
    /// `invalid_input` when `version` is missing or a rule, alias or key is malformed.
    pub fn from_json(value: &JsonValue) -> Result<CapabilityMap> {
        CapabilityMap::read(value, true)
    }

    fn read(value: &JsonValue, fill_core: bool) -> Result<CapabilityMap> {
        let JsonValue::Object(members) = value else {
            return Err(bad("a capability map must be a JSON object"));
        };
        let mut map = CapabilityMap {
            version: String::new(),
            rules: vec![],
            aliases: vec![],
            alias_index: Map::default(),
            plot: vec!["plot".into(), "*_plot".into()],
            warnings: vec![],
        };
        let mut rule_index: Map<&str, usize> = Map::default();
        let mut has_version = false;
        for (k, v) in members {
            match k.as_str() {
                "version" => {
                    map.version = match v {
                        JsonValue::String(s) if !s.trim().is_empty() => s.trim().to_string(),
                        JsonValue::Number(n) => n.clone(),
                        _ => return Err(bad("version must be a non-empty string or a number")),
                    };
                    has_version = true;
                }
                "requirements" => {
                    let JsonValue::Object(rules) = v else {
                        return Err(bad("requirements must be an object of rules"));
                    };
                    for (r, v) in rules {
                        let r = r.trim();
                        let rule = rule(r, v)?;
                        // A repeated reference: the last one wins, in the first one's place.
                        match rule_index.get(r) {
                            Some(&i) => map.rules[i] = rule,
                            None => {
                                rule_index.insert(r, map.rules.len());
                                map.rules.push(rule);
                            }
                        }
                    }
                }
                "aliases" => {
                    let JsonValue::Object(pairs) = v else {
                        return Err(bad("aliases must be an object { alias: capability }"));
                    };
                    for (a, c) in pairs {
                        let c = c.as_str().ok_or_else(|| bad(format!("aliases[\"{a}\"] must be a string")))?;
                        let a = a.trim().to_ascii_lowercase();
                        let c = c.trim().to_ascii_lowercase();
                        match map.alias_index.get(a.as_str()) {
                            Some(&i) => map.aliases[i].1 = c,
                            None => {
                                map.alias_index.insert(a.as_str().into(), map.aliases.len());
                                map.aliases.push((a, c));
                            }
                        }
                    }
                }
                "plot" => map.plot = capability_list(v, "plot")?,
                _ => return Err(bad(format!("capability map: unknown key \"{k}\""))),
            }
        }
        if !has_version {
            return Err(bad("a capability map must carry a version"));
        }
        if fill_core {
            let builtin = CapabilityMap::default();
            for r in CORE_REFERENCES {
                if !rule_index.contains_key(*r) {
                    if let Some(rule) = builtin.rule(r) {
                        map.rules.push(rule.clone());
                        map.warnings.push(format!("no rule for core requirement {r}: using the built-in one"));
                    }
                }
            }
        }
        Ok(map)
    }

    /// The map's version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Warnings from loading (core rules filled in from the built-in map).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The rules, in the order loaded.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rule for a requirement reference, if the map has one.
    pub fn rule(&self, reference: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.reference == reference)
    }

    /// The canonical capability name: lowercased, aliases followed (at most 8 hops).
    pub fn canonical(&self, capability: &str) -> String {
        let mut c = capability.trim().to_ascii_lowercase();
        for _ in 0..8 {
            match self.alias_index.get(c.as_str()).and_then(|&i| self.aliases.get(i)) {
                Some((_, to)) if *to != c => c = to.clone(),
                _ => break,
            }
        }
        c
    }

    /// Whether a canonical capability matches any of `patterns` (patterns canonicalised too).
    pub fn matches(&self, patterns: &[String], capability: &str) -> bool {
        patterns.iter().any(|p| {
            let p = if p.contains('*') { p.clone() } else { self.canonical(p) };
            pattern_matches(&p, capability)
        })
    }

    /// Whether a canonical capability is a plot capability.
    pub fn is_plot(&self, capability: &str) -> bool {
        self.matches(&self.plot, capability)
    }

    /// The JSON form (loadable by [`CapabilityMap::from_json`]).
    pub fn to_json_value(&self) -> JsonValue {
        let strings = JsonValue::strings::<String>;
        let rules = self
            .rules
            .iter()
            .map(|r| {
                let clauses = r
                    .clauses
                    .iter()
                    .map(|c| {
                        let mut m = vec![("any_of".to_string(), strings(&c.any_of))];
                        for (k, on) in [
                            ("grouping", c.grouping),
                            ("group_by_columns", c.group_by_columns),
                            ("before_plot", c.before_plot),
                            ("unless_typed", c.unless_typed),
                        ] {
                            if on {
                                m.push((k.into(), JsonValue::Bool(true)));
                            }
                        }
                        JsonValue::Object(m)
                    })
                    .collect();
                (r.reference.clone(), JsonValue::Array(clauses))
            })
            .collect();
        let aliases = self.aliases.iter().map(|(a, c)| (a.clone(), JsonValue::String(c.clone()))).collect();
        JsonValue::Object(vec![
            ("version".into(), JsonValue::String(self.version.clone())),
            ("requirements".into(), JsonValue::Object(rules)),
            ("aliases".into(), JsonValue::Object(aliases)),
            ("plot".into(), strings(&self.plot)),
        ])
    }

    /// What CI should flag: labels of `labels` (references `analysis.<l>`, `outputs.<l>`) with
    /// no rule, and capabilities of `tools` that no rule, alias or plot pattern mentions.
    pub fn audit(&self, labels: &super::RequirementLabels, tools: &[super::Tool]) -> (Vec<String>, Vec<String>) {
        let mut unmapped = Vec::new();
        for (kind, list) in [("analysis", &labels.analysis), ("outputs", &labels.outputs)] {
            for l in list {
                let r = format!("{kind}.{l}");
                if self.rule(&r).is_none() {
                    unmapped.push(r);
                }
            }
        }
        let mut unknown: Vec<String> = Vec::new();
        for t in tools {
            for c in &t.capabilities {
                let c = self.canonical(c);
                let used = self.is_plot(&c) || self.rules.iter().any(|r| r.clauses.iter().any(|cl| self.matches(&cl.any_of, &c)));
                if !used && !unknown.contains(&c) {
                    unknown.push(c);
                }
            }
        }
        (unmapped, unknown)
    }
}
