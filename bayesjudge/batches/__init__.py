"""Batches over time: evaluation runs, releases and judge versions compared."""
