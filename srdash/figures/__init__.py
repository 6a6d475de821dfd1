"""Pure plotly figure builders and escaped HTML tables, shared by the apps and the report."""
