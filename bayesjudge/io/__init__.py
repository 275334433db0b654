"""The input layer: tables in any format read, columns and values mapped, labels joined."""
