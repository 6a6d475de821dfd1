"""The static, self-contained report."""
