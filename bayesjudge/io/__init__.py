"""The input layer: read tables, map columns and values, join labels, stream large files."""
