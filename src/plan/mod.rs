//! Planning checks: pure functions over JSON that gate a plan before it runs.
//!
//! The planning pipeline (shared/spec/planning-pipeline.md) extracts requirements, narrows the
//! tool list, adapts a template plan and checks coverage. This module holds its deterministic
//! parts: the requirements schema and its closed labels ([`validate_requirements`]), the
//! versioned requirement → capability map ([`CapabilityMap`]), the tool catalog and its exact
//! embedding / BM25 index ([`ToolIndex`]), narrowing with the design's precedence
//! ([`narrow_tools`]), the coverage check ([`check_coverage`]) and the repair policy
//! ([`classify_repair`], [`auto_time_grain`]).

mod args;
mod bm25;
mod capability;
mod catalog;
mod coverage;
mod index;
mod narrow;
mod repair;
mod requirements;

pub use args::{apply_report, attach_embeddings, ranked, string_list};
pub use capability::{CapabilityMap, Clause, Rule, CORE_REFERENCES, DEFAULT_CAPABILITY_MAP};
pub use catalog::{parse_catalog, Tool, MAX_TOOLS};
pub use coverage::{apply_removals, check_coverage, CoverageReport, Plan, Step, StepCheck, MAX_STEPS};
pub use index::{
    dot, l2_normalize, EmbeddingModel, Hit, Method, Mode, Query, Retrieval, ToolIndex, MAX_DIM, MAX_EMBEDDING_FLOATS, RRF_K,
};
pub use narrow::{
    narrow_ranked, narrow_tools, retrieval_queries, NarrowOptions, Narrowed, NarrowedTool, Reason, DEFAULT_CAP,
    DEFAULT_SAFETY_SET,
};
pub use repair::{auto_time_grain, classify_repair, RepairClass, SEMANTIC_PARAMS};
pub use requirements::{
    reextraction_message, validate_requirements, InvalidRequirements, RequirementIssue, RequirementLabels, Requirements,
    TimeRequirement,
};
