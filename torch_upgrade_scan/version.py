"""The package's version, in one place: pyproject.toml reads it (setuptools' `attr:`); the command line's
--version and the SARIF report print it."""

VERSION = "0.3.0"
