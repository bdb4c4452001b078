//! Renderers: how each kind of output reads in a terminal or a pull request, apart from the verbs
//! that produce it. Each takes values from `mneme::ops` and returns text; the verbs print it
//! through `Ui`.

pub mod diff;
pub mod forge;
pub mod proposal;
pub mod review;
