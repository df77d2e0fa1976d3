"""The book's Sphinx extensions (listed in _config.yml's sphinx.local_extensions)."""
