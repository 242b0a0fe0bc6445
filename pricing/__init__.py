"""Where cloud rates come from: the Offer record, one adapter per provider, the store."""
