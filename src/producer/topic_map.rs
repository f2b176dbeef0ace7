//! The accumulator's maps: topics by name, with the one found last
//! remembered (a run of messages to one topic costs no hashing), and the
//! FxHash they are keyed with.

use std::collections::HashMap;
use std::sync::Arc;

/// A fast non-cryptographic hasher (FxHash) for the accumulator's maps, whose
/// keys come from the application, not the network.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxBuild;

pub(crate) struct Fx(u64);

impl std::hash::BuildHasher for FxBuild {
    type Hasher = Fx;
    #[inline]
    fn build_hasher(&self) -> Fx {
        Fx(0)
    }
}

impl Fx {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let mut tail = [0u8; 8];
        let r = chunks.remainder();
        tail[..r.len()].copy_from_slice(r);
        self.add(u64::from_le_bytes(tail) ^ (r.len() as u64) << 56);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_i32(&mut self, i: i32) {
        self.add(u64::from(i as u32));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Values by topic name, in the order the topics were added (never
/// removed). `get_mut` looks at the topic it found last before hashing.
pub(crate) struct TopicMap<V> {
    entries: Vec<(Arc<str>, V)>,
    index: HashMap<Arc<str>, usize, FxBuild>,
    /// The entry `get_mut` found last.
    last: usize,
}

impl<V> Default for TopicMap<V> {
    fn default() -> Self {
        TopicMap {
            entries: Vec::new(),
            index: HashMap::default(),
            last: 0,
        }
    }
}

impl<V> TopicMap<V> {
    pub fn get(&self, name: &str) -> Option<&V> {
        self.index.get(name).map(|&i| &self.entries[i].1)
    }

    #[inline]
    pub fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        let i = match self.entries.get(self.last) {
            Some((n, _)) if **n == *name => self.last,
            _ => {
                let i = *self.index.get(name)?;
                self.last = i;
                i
            }
        };
        Some(&mut self.entries[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Adds `name` with `v`, or replaces its value.
    pub fn insert(&mut self, name: Arc<str>, v: V) {
        match self.index.get(&name) {
            Some(&i) => self.entries[i].1 = v,
            None => {
                self.index.insert(name.clone(), self.entries.len());
                self.entries.push((name, v));
            }
        }
    }

    /// The value of `name`, added with `make` if it has none.
    pub fn get_or_insert_with(&mut self, name: &str, make: impl FnOnce(Arc<str>) -> V) -> &mut V {
        if !self.index.contains_key(name) {
            let name: Arc<str> = Arc::from(name);
            let v = make(name.clone());
            self.insert(name, v);
        }
        self.get_mut(name).expect("just added")
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&Arc<str>, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_by_name_remembers_the_last_and_keeps_order() {
        let mut m: TopicMap<i32> = TopicMap::default();
        m.insert(Arc::from("a"), 1);
        *m.get_or_insert_with("b", |_| 2) += 10;
        m.insert(Arc::from("a"), 3);
        assert_eq!(m.get("a"), Some(&3));
        assert_eq!(m.get_mut("b"), Some(&mut 12));
        // the last found is b; a lookup of a must not answer b's
        assert_eq!(m.get_mut("a"), Some(&mut 3));
        assert_eq!(m.get_mut("c"), None);
        assert_eq!(m.get_mut("a"), Some(&mut 3));
        assert!(m.contains_key("b") && !m.contains_key("c"));
        let names: Vec<&str> = m.entries.iter().map(|(k, _)| &**k).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(m.values().sum::<i32>(), 15);
    }
}
