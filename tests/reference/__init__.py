"""Reference implementations written from competition organisers' own code (not from srdash's steps)."""
