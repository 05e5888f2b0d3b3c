"""Staff services: the one place staff actions change state (admin actions, staff views,
management commands and tasks call them)."""
