"""Repeated samples: several answers per item, items grouped in clusters."""
