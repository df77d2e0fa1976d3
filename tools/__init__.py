"""Small tools that build, stamp and check the course."""
