"""The application floor: a job from options, run, reported (docs/architecture.md)."""
