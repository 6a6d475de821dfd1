# srdash's Voilà configuration for `srdash serve` and the other apps (see srdash.apps.gate).
from srdash.apps.gate import configure

configure(get_config(), review=False)  # noqa: F821 - get_config is given to Voilà's configuration files
