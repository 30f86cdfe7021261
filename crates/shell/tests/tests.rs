//! Integration tests of the shell analysis: one test executable, one module per area.

mod analyze;
mod archives_reach;
mod argv;
mod cwd;
mod environ;
mod evaluating;
mod fuzz_regressions;
mod git_shown;
mod globs;
mod hardening;
mod lexing;
mod listings;
mod made;
mod network;
mod options;
mod parallel;
mod parse_repairs;
mod program_texts;
mod project_dirs;
mod props;
mod reach;
mod real;
mod statements;
