//! Statistics windows: the values one figure took since the last
//! statistics snapshot (round-trip times, throttle times, queue latencies,
//! batch sizes), and what librdkafka's window objects show of them (min,
//! max, mean, sum, standard deviation and percentiles; STATISTICS.md,
//! "Window stats").
//!
//! A window keeps the exact count, min, max and sum of every value, and the
//! last [`SAMPLES`] values for the percentiles and the deviation. librdkafka
//! keeps an HDR histogram instead, of a fixed range; gregor's values are
//! exact, so none is out of range.

/// Values kept per window for the percentiles.
pub(crate) const SAMPLES: usize = 1024;

/// The values added since the window was last taken.
#[derive(Debug, Clone, Default)]
pub struct Window {
    cnt: u64,
    min: u64,
    max: u64,
    sum: u64,
    /// The last [`SAMPLES`] values (more after a merge), in no order.
    samples: Vec<u32>,
}

impl Window {
    /// Adds a value.
    pub fn add(&mut self, v: u64) {
        if self.cnt == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.sum = self.sum.saturating_add(v);
        let s = v.min(u64::from(u32::MAX)) as u32;
        if self.samples.len() < SAMPLES {
            self.samples.push(s);
        } else {
            self.samples[(self.cnt % SAMPLES as u64) as usize] = s;
        }
        self.cnt += 1;
    }

    /// The window's values, leaving it empty (a new window starts).
    pub fn take(&mut self) -> Window {
        std::mem::take(self)
    }

    /// Adds another window's values (of another source of the same figure:
    /// two connections to one broker).
    pub fn merge(&mut self, o: &Window) {
        if o.cnt == 0 {
            return;
        }
        if self.cnt == 0 || o.min < self.min {
            self.min = o.min;
        }
        self.max = self.max.max(o.max);
        self.sum = self.sum.saturating_add(o.sum);
        self.cnt += o.cnt;
        self.samples.extend_from_slice(&o.samples);
    }

    /// What librdkafka's window object shows of it.
    pub fn stats(&self) -> WindowStats {
        let mut samples = self.samples.clone();
        samples.sort_unstable();
        // q in hundredths of a percent
        let pct = |q: usize| {
            samples
                .get((samples.len() * q / 10_000).min(samples.len().saturating_sub(1)))
                .map_or(0, |&v| u64::from(v))
        };
        let stddev = if samples.is_empty() {
            0
        } else {
            let n = samples.len() as f64;
            let mean = samples.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
            let var = samples
                .iter()
                .map(|&v| (f64::from(v) - mean).powi(2))
                .sum::<f64>()
                / n;
            var.sqrt().round() as u64
        };
        WindowStats {
            min: self.min,
            max: self.max,
            avg: self.sum.checked_div(self.cnt).unwrap_or(0),
            sum: self.sum,
            stddev,
            p50: pct(5_000),
            p75: pct(7_500),
            p90: pct(9_000),
            p95: pct(9_500),
            p99: pct(9_900),
            p99_99: pct(9_999),
            cnt: self.cnt,
        }
    }
}

/// A window's figures, as librdkafka's window object (all 0 when `cnt` is
/// 0). The percentiles and the deviation are of the last [`SAMPLES`]
/// values; the rest of all of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowStats {
    pub min: u64,
    pub max: u64,
    /// Mean.
    pub avg: u64,
    pub sum: u64,
    /// Standard deviation.
    pub stddev: u64,
    pub p50: u64,
    pub p75: u64,
    pub p90: u64,
    pub p95: u64,
    pub p99: u64,
    pub p99_99: u64,
    /// Values in the window.
    pub cnt: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(vs: &[u64]) -> Window {
        let mut w = Window::default();
        for &v in vs {
            w.add(v);
        }
        w
    }

    #[test]
    fn percentiles_deviation_and_merge() {
        let a = of(&(1..=100).collect::<Vec<_>>());
        assert_eq!(
            a.stats(),
            WindowStats {
                min: 1,
                max: 100,
                avg: 50,
                sum: 5050,
                stddev: 29,
                p50: 51,
                p75: 76,
                p90: 91,
                p95: 96,
                p99: 100,
                p99_99: 100,
                cnt: 100,
            }
        );
        assert_eq!(of(&[]).stats(), WindowStats::default());
        let mut m = of(&[500, 700]);
        m.merge(&a);
        m.merge(&of(&[]));
        let s = m.stats();
        assert_eq!((s.min, s.max, s.cnt), (1, 700, 102));
        assert_eq!(s.avg, (5050 + 1200) / 102);
        assert_eq!(s.p99, 500);
        // more values than kept: exact count, min, max and sum all the same
        let many: Vec<u64> = (0..5000).map(|i| 10 + i % 7).collect();
        let mut w = of(&many);
        let s = w.stats();
        assert_eq!((s.cnt, s.min, s.max), (5000, 10, 16));
        assert!(w.samples.len() == SAMPLES && (10..=16).contains(&s.p50));
        assert_eq!(w.take().stats().cnt, 5000);
        assert_eq!(w.stats(), WindowStats::default());
    }
}
