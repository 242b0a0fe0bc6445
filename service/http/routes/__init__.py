"""One blueprint per resource; the app factory registers them all."""
