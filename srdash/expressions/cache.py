"""Former home of :mod:`srdash.cache` (kept so that ``srdash.expressions.cache`` still imports).

The cache needs only the standard library; it moved out of this package so that a kernel that
only reads prepared results does not import sympy (importing ``srdash.expressions.cache`` runs
``srdash/expressions/__init__.py``). Both names are the same module object.
"""

import sys

from srdash import cache as _cache

sys.modules[__name__] = _cache
