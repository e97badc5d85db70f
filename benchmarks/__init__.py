"""Side-by-side benchmarks against the reference implementations (not tests). See run.py."""
