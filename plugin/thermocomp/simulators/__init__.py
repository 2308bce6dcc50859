"""Simulator adapters: thin, each importing its simulator lazily."""
