//! Tuning configurations: the compiler turns a kernel's `tile.tune` space
//! into [`Config`]s and instantiates each; the runtime's tuner measures
//! them and caches the choice.

use crate::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One point of a tuning space: knob name to value, such as
/// `tile_m = 64`, `num_stages = 3`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Config(pub BTreeMap<String, i64>);

impl Config {
    /// The value of `key`, if the configuration sets it.
    pub fn get(&self, key: &str) -> Option<i64> {
        self.0.get(key).copied()
    }

    /// Every combination of the values in `space` (knob to candidate
    /// values), in order, `default` first and not repeated. Knobs
    /// `default` sets but `space` does not keep the default's value.
    pub fn product(default: &Config, space: &BTreeMap<String, Vec<i64>>) -> Vec<Config> {
        let mut configs = vec![default.clone()];
        let mut partial = vec![default.clone()];
        for (key, values) in space {
            partial = partial
                .iter()
                .flat_map(|config| {
                    values.iter().map(move |value| {
                        let mut next = config.clone();
                        next.0.insert(key.clone(), *value);
                        next
                    })
                })
                .collect();
        }
        for config in partial {
            if !configs.contains(&config) {
                configs.push(config);
            }
        }
        configs
    }
}

/// `configs` without those that compile to the same kernel as an earlier
/// one (same `key`: a hash of the compiled bundle, say), so that each
/// distinct kernel is measured once. A knob that does nothing in some
/// configuration (`num_ctas` without a persistent producer, for one) then
/// costs no measurement there. Configurations without a key (they did not
/// compile) stay, for the tuner to report; the order is kept, so the
/// default stays first.
pub fn distinct<K: Eq + std::hash::Hash>(configs: &[Config], mut key: impl FnMut(&Config) -> Option<K>) -> Vec<Config> {
    let mut seen = std::collections::HashSet::new();
    configs.iter().filter(|config| key(config).is_none_or(|k| seen.insert(k))).cloned().collect()
}

/// `key=value,key=value`, as [`Config`]'s `Display` writes it.
impl std::str::FromStr for Config {
    type Err = Error;

    fn from_str(text: &str) -> crate::Result<Self> {
        let mut config = Config::default();
        for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (key, value) =
                pair.split_once('=').ok_or_else(|| Error::Config(format!("'{pair}' is not KEY=VALUE")))?;
            let value = value.trim().parse().map_err(|_| Error::Config(format!("'{value}' is not an integer")))?;
            config.0.insert(key.trim().to_string(), value);
        }
        Ok(config)
    }
}

impl std::fmt::Display for Config {
    fn fmt(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        formatter.write_str(&parts.join(","))
    }
}
