"""The private names of other packages that srdash still uses, each with why no public way exists yet.

One list for two tests: tests/test_no_private_names.py fails on any other use of a private name of another
package in srdash/, and tests/test_upstream_contract.py checks that each of these still exists where srdash
reads it (a rename upstream fails there, in seconds, instead of reading as "absent" in srdash's code).

Each key is (file under srdash/, the dotted use as the scanner writes it: the imported name it starts from,
then the attributes or getattr/setattr names); each value says why it is allowed.
"""

from __future__ import annotations

GUARDED_PRIVATE_NAMES: dict[tuple[str, str], str] = {}
