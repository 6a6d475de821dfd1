"""Analyses of a verdict: robustness (bootstrap), significance, weight sensitivity, audits."""
