//! The four engines, each built from the same [`Rule`]s.

pub mod cedar;
pub mod linear;
pub mod rego;
pub mod toolgate;

use toolgate_policy::Effect;

use crate::calls::BenchCall;

#[allow(unused_imports)] // named in the docs
use crate::rules::Rule;

/// An engine that decides benchmark calls.
pub trait Engine {
    /// Short name for tables and reports.
    fn name(&self) -> &'static str;
    /// Decides one call: the part that is timed.
    fn decide(&self, call: &BenchCall) -> Effect;
}
