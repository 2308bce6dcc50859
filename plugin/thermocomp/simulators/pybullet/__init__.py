"""PyBullet: the deformed robot in a real simulator (headless and GUI)."""
