//! What the verbs do, over one workspace: orchestration of the model, the store and git.

pub mod review;
