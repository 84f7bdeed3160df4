//! The JSON object of [`super::json::Json`]: source key order kept (the resolved manifest is
//! written back out and compared key for key with Extension.js's).

use super::json::Json;

/// An object: keys in insertion order, unique. Objects past [`INDEX_FROM`] keys also keep a
/// key → position index, so a hostile manifest with 100 000 keys parses and resolves in
/// linear time instead of quadratic.
#[derive(Debug, Clone, Default)]
pub struct Object {
    entries: Vec<(String, Json)>,
    index: Option<std::collections::HashMap<String, usize>>,
}

/// Object size from which lookups go through the index.
const INDEX_FROM: usize = 32;

impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        self.entries == other.entries
    }
}

impl Object {
    pub fn new() -> Self {
        Object::default()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }

    fn reindex(&mut self) {
        self.index = (self.entries.len() >= INDEX_FROM)
            .then(|| self.entries.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect());
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        self.position(key).and_then(|i| self.entries.get(i)).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        let i = self.position(key)?;
        self.entries.get_mut(i).map(|(_, v)| v)
    }

    /// Sets a key: an existing key keeps its position, a new key goes last.
    pub fn insert(&mut self, key: impl Into<String>, value: Json) {
        let key = key.into();
        if let Some(i) = self.position(&key)
            && let Some(slot) = self.entries.get_mut(i)
        {
            slot.1 = value;
            return;
        }
        if let Some(index) = self.index.as_mut() {
            index.insert(key.clone(), self.entries.len());
        }
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() >= INDEX_FROM {
            self.reindex();
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let i = self.position(key)?;
        let (_, v) = self.entries.remove(i);
        if self.index.is_some() {
            self.reindex();
        }
        Some(v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, Json)> for Object {
    fn from_iter<I: IntoIterator<Item = (String, Json)>>(iter: I) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.insert(k, v);
        }
        o
    }
}
