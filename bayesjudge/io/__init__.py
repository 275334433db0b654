"""The input layer: tables, column and value mapping, label joins and evaluation-tool logs."""
