"""Reading and validating inputs: results files, dataset descriptions and data files."""
