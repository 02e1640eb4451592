# The static checks of `make lint` that antsibull-nox runs (sessions: antsibull-nox.toml).
# Run through tools/lint, which sets up the environment; `nox -l` lists the sessions.

import antsibull_nox

antsibull_nox.load_antsibull_nox_toml()
