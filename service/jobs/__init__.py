"""Work that runs outside a request: scheduled refreshes and measuring a local card."""
