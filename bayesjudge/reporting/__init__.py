"""Reporting helpers shared by every family: safe output folders and files, and text escaping."""
