//! BM25 (k1 = 1.2, b = 0.75) over each tool's name, description and capabilities: the
//! fallback when there is no query vector or it comes from another model.
//!
//! Tokens are lowercase ASCII letter/digit runs (underscores split names), a small stop-word
//! list is dropped and a light plural rule applied (`totals` → `total`, `categories` →
//! `category`), the same for documents and queries.

use crate::hash::Map;

const K1: f64 = 1.2;
const B: f64 = 0.75;

const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "get", "give", "how", "i", "in", "is", "it",
    "me", "my", "of", "on", "or", "our", "over", "per", "please", "show", "that", "the", "their", "this", "to", "we", "what",
    "which", "with",
];

/// Appends the tokens of `text` to `out`.
pub(crate) fn tokenize(text: &str, out: &mut Vec<String>) {
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let mut w = word.to_ascii_lowercase();
        if STOP.contains(&w.as_str()) {
            continue;
        }
        if w.len() > 4 && w.ends_with("ies") {
            w.truncate(w.len() - 3);
            w.push('y');
        } else if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
            w.pop();
        }
        out.push(w);
    }
}

/// The inverted index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bm25 {
    /// term → its position in `postings`.
    terms: Map<Box<str>, usize>,
    /// Per term: (document, term frequency), documents ascending.
    postings: Vec<Vec<(u32, u32)>>,
    /// Token count per document.
    lengths: Vec<u32>,
    avg_len: f64,
}

impl Bm25 {
    pub(crate) fn new(docs: impl Iterator<Item = String>) -> Bm25 {
        let mut index = Bm25::default();
        let mut tokens = Vec::new();
        for (d, text) in docs.enumerate() {
            tokens.clear();
            tokenize(&text, &mut tokens);
            index.lengths.push(tokens.len() as u32);
            // Term counts in first-seen order (postings stay in document order).
            let mut slot: Map<&str, usize> = Map::default();
            let mut counts: Vec<(&str, u32)> = Vec::new();
            for t in &tokens {
                match slot.get(t.as_str()) {
                    Some(&i) => {
                        if let Some(c) = counts.get_mut(i) {
                            c.1 += 1;
                        }
                    }
                    None => {
                        slot.insert(t, counts.len());
                        counts.push((t, 1));
                    }
                }
            }
            for (t, n) in counts {
                let at = match index.terms.get(t) {
                    Some(&at) => at,
                    None => {
                        index.terms.insert(t.into(), index.postings.len());
                        index.postings.push(Vec::new());
                        index.postings.len() - 1
                    }
                };
                if let Some(list) = index.postings.get_mut(at) {
                    list.push((d as u32, n));
                }
            }
        }
        let total: u64 = index.lengths.iter().map(|&l| u64::from(l)).sum();
        index.avg_len = if index.lengths.is_empty() { 1.0 } else { (total as f64 / index.lengths.len() as f64).max(1.0) };
        index
    }

    /// BM25 score of every document for `query` (0 where no term matches).
    pub(crate) fn scores(&self, query: &str) -> Vec<f64> {
        let n = self.lengths.len();
        let mut scores = vec![0.0; n];
        let mut terms = Vec::new();
        tokenize(query, &mut terms);
        let mut terms: Vec<&str> = terms.iter().map(String::as_str).collect();
        crate::sort::sort_by(&mut terms, |a, b| a < b);
        terms.dedup();
        for t in terms {
            let Some(list) = self.terms.get(t).and_then(|&at| self.postings.get(at)) else { continue };
            let df = list.len() as f64;
            let idf = ((n as f64 - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(d, tf) in list {
                let tf = f64::from(tf);
                let len = f64::from(self.lengths.get(d as usize).copied().unwrap_or(0));
                let norm = K1 * (1.0 - B + B * len / self.avg_len);
                if let Some(s) = scores.get_mut(d as usize) {
                    *s += idf * tf * (K1 + 1.0) / (tf + norm);
                }
            }
        }
        scores
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_the_formula_over_repeated_and_shared_terms() {
        let docs = ["total totals revenue", "revenue by region region", "plot line", "", "Region REVENUE"];
        let index = Bm25::new(docs.iter().map(|d| d.to_string()));
        let toks: Vec<Vec<String>> = docs
            .iter()
            .map(|d| {
                let mut t = vec![];
                tokenize(d, &mut t);
                t
            })
            .collect();
        let avg = (toks.iter().map(Vec::len).sum::<usize>() as f64 / toks.len() as f64).max(1.0);
        for q in ["total revenue", "region", "region region plot", "nothing", "revenues total"] {
            let mut terms = vec![];
            tokenize(q, &mut terms);
            terms.sort();
            terms.dedup();
            let want: Vec<f64> = toks
                .iter()
                .map(|doc| {
                    terms
                        .iter()
                        .map(|t| {
                            let df = toks.iter().filter(|d| d.contains(t)).count() as f64;
                            let tf = doc.iter().filter(|x| *x == t).count() as f64;
                            if tf == 0.0 {
                                return 0.0;
                            }
                            let idf = ((docs.len() as f64 - df + 0.5) / (df + 0.5) + 1.0).ln();
                            idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * doc.len() as f64 / avg))
                        })
                        .sum()
                })
                .collect();
            assert_eq!(index.scores(q), want, "{q}");
        }
    }
}
