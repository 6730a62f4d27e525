//! One small stable sort for the crate's few sorts (tool names, keys, repair logs, action
//! candidates). The standard library's sorts are fast but large once monomorphised
//! (bench/README.md, "Measurements behind design choices"); this one is small per element
//! type. The inputs are small (at most a catalog of tools), and the sort is
//! O(n log n) anyway: insertion sort on runs of 16, then bottom-up merging through one copy.

/// Sorts `v` stably by `less` (a strict weak order).
pub(crate) fn sort_by<T: Copy>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    const RUN: usize = 16;
    let n = v.len();
    for run in v.chunks_mut(RUN) {
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && less(&run[j], &run[j - 1]) {
                run.swap(j, j - 1);
                j -= 1;
            }
        }
    }
    if n <= RUN {
        return;
    }
    let mut buf = v.to_vec();
    let mut in_v = true;
    let mut width = RUN;
    while width < n {
        let (src, dst): (&[T], &mut [T]) = if in_v { (&*v, &mut buf[..]) } else { (&buf[..], &mut *v) };
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut dst[lo..hi] {
                // The left run wins ties: stable.
                if i < mid && (j >= hi || !less(&src[j], &src[i])) {
                    *slot = src[i];
                    i += 1;
                } else {
                    *slot = src[j];
                    j += 1;
                }
            }
            lo = hi;
        }
        in_v = !in_v;
        width *= 2;
    }
    if !in_v {
        v.copy_from_slice(&buf);
    }
}

/// [`sort_by`] on a key.
pub(crate) fn sort_by_key<T: Copy, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a) < key(b));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equals the standard stable sort on keys with many ties, for every length up to 300.
    #[test]
    fn matches_std_stable_sort() {
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for n in 0..300 {
            for modulus in [1, 3, 50, 1000] {
                let v: Vec<(u64, usize)> = (0..n)
                    .map(|i| {
                        s ^= s << 13;
                        s ^= s >> 7;
                        s ^= s << 17;
                        (s % modulus, i)
                    })
                    .collect();
                let mut a = v.clone();
                let mut b = v.clone();
                sort_by_key(&mut a, |x| x.0);
                b.sort_by_key(|x| x.0);
                assert_eq!(a, b, "n {n} modulus {modulus}");
                let mut c = v.clone();
                sort_by(&mut c, |x, y| x > y);
                let mut d = v;
                d.sort_by(|x, y| y.cmp(x));
                assert_eq!(c, d);
            }
        }
    }
}
