# srdash's Voilà configuration for `srdash review`: also refuses a wrong review key before a kernel starts
# (see srdash.apps.gate).
from srdash.apps.gate import configure

configure(get_config(), review=True)  # noqa: F821 - get_config is given to Voilà's configuration files
