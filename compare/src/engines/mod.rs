//! The four engines, each built from the same [`Rule`](crate::rules::Rule)s.

pub mod cedar;
pub mod linear;
pub mod rego;
pub mod toolgate;

use toolgate_policy::Effect;

use crate::calls::BenchCall;

/// An engine that decides benchmark calls.
pub trait Engine {
    /// Short name for tables and reports.
    fn name(&self) -> &'static str;
    /// Decides one call: the part that is timed.
    fn decide(&self, call: &BenchCall) -> Effect;
}
