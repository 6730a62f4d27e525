//! Which npm entry a build is, from its cargo features (`buildInfo()` of the bindings).

/// Every cargo feature that names an entry, with whether this build has it (Cargo.toml order).
pub const FEATURES: [(&str, bool); 7] = [
    ("sse", cfg!(feature = "sse")),
    ("json", cfg!(feature = "json")),
    ("tags", cfg!(feature = "tags")),
    ("router", cfg!(feature = "router")),
    ("payload", cfg!(feature = "payload")),
    ("planning", cfg!(feature = "planning")),
    ("client", cfg!(feature = "client")),
];

/// How many entry features this build has.
pub const ENABLED_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < FEATURES.len() {
        n += FEATURES[i].1 as usize;
        i += 1;
    }
    n
};

/// The entry features this build has, in Cargo.toml order (worked out at compile time).
pub const ENABLED: [&str; ENABLED_COUNT] = {
    let mut out = [""; ENABLED_COUNT];
    let (mut i, mut j) = (0, 0);
    while i < FEATURES.len() {
        if FEATURES[i].1 {
            out[j] = FEATURES[i].0;
            j += 1;
        }
        i += 1;
    }
    out
};

/// The npm entry of this build: a build of exactly one entry's feature is that entry
/// (`streamroute/<feature>`); the router (which brings sse, json and tags), and any other
/// set, is the main entry.
pub const ENTRY: &str = {
    // By the index in FEATURES of the one feature on.
    const NAMES: [&str; 7] = [
        "streamroute/sse",
        "streamroute/json",
        "streamroute/tags",
        "streamroute",
        "streamroute/payload",
        "streamroute/planning",
        "streamroute/client",
    ];
    let mut i = 0;
    while i < FEATURES.len() && !FEATURES[i].1 {
        i += 1;
    }
    if ENABLED_COUNT == 1 {
        NAMES[i]
    } else {
        "streamroute"
    }
};

#[cfg(test)]
mod tests {
    #[test]
    fn the_default_build_is_the_main_entry_with_every_feature() {
        assert_eq!(super::ENTRY, "streamroute");
        assert_eq!(super::ENABLED, ["sse", "json", "tags", "router", "payload", "planning", "client"]);
    }
}
